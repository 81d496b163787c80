// ParallelCluster configs are written by users (trn-cluster check FILE): the linter must turn
// any text into diagnostics, never crash on it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trn/common/error.hpp"
#include "trn/pcluster/config_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // --strict turns placeholders and unknown instance types into errors: a path of its own.
  const bool strict = size % 2 == 1;
  try {
    trn::pcluster::check_cluster_config("fuzz.yaml", text, {strict, strict});
  } catch (const trn::Error&) {
  }
  return 0;
}
