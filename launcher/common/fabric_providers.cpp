#include "common/fabric_providers.hpp"

#include <rdma/fabric.h>

#include <algorithm>

namespace trn::launcher {

health::FabricProviders query_fabric_providers() {
  health::FabricProviders report;
  fi_info* info = nullptr;
  const int rc = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), nullptr, nullptr, 0,
                            nullptr, &info);
  if (rc != 0) {
    report.error = fi_strerror(-rc);
    return report;
  }
  for (const fi_info* i = info; i != nullptr; i = i->next) {
    if (i->fabric_attr == nullptr || i->fabric_attr->prov_name == nullptr) continue;
    const std::string name = i->fabric_attr->prov_name;
    if (std::find(report.providers.begin(), report.providers.end(), name) ==
        report.providers.end()) {
      report.providers.push_back(name);
    }
  }
  fi_freeinfo(info);
  return report;
}

}  // namespace trn::launcher
