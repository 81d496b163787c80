#include "trn/pcluster/resource_name.hpp"

namespace trn::pcluster {

bool is_valid_resource_name(std::string_view name) {
  if (name.empty() || name.size() > max_resource_name_length) return false;
  if (name.front() < 'a' || name.front() > 'z') return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace trn::pcluster
