#include "common/fabric_providers.hpp"

#include <dlfcn.h>
#include <rdma/fabric.h>

#include <algorithm>

namespace trn::launcher {
namespace {

// libfabric is opened when asked, not linked: loading Debian's build runs its PSM providers'
// constructors, which calibrate timers for 0.2 s, and every run of the tools would pay for it.
struct Libfabric {
  decltype(&fi_getinfo) getinfo = nullptr;
  decltype(&fi_freeinfo) freeinfo = nullptr;
  decltype(&fi_strerror) strerror = nullptr;
  std::string error;
};

Libfabric open_libfabric() {
  Libfabric lib;
  void* handle = ::dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    lib.error = std::string("cannot load libfabric.so.1 (") + (why ? why : "?") +
                "): install libfabric (the EFA software on AWS)";
    return lib;
  }
  lib.getinfo = reinterpret_cast<decltype(&fi_getinfo)>(::dlsym(handle, "fi_getinfo"));
  lib.freeinfo = reinterpret_cast<decltype(&fi_freeinfo)>(::dlsym(handle, "fi_freeinfo"));
  lib.strerror = reinterpret_cast<decltype(&fi_strerror)>(::dlsym(handle, "fi_strerror"));
  if (!lib.getinfo || !lib.freeinfo || !lib.strerror) lib.error = "libfabric.so.1 lacks fi_getinfo";
  return lib;  // the handle stays open: providers may keep threads
}

}  // namespace

health::FabricProviders query_fabric_providers() {
  health::FabricProviders report;
  static const Libfabric lib = open_libfabric();
  if (!lib.error.empty()) {
    report.error = lib.error;
    return report;
  }
  fi_info* info = nullptr;
  const int rc = lib.getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), nullptr, nullptr, 0,
                             nullptr, &info);
  if (rc != 0) {
    report.error = lib.strerror(-rc);
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
  lib.freeinfo(info);
  return report;
}

}  // namespace trn::launcher
