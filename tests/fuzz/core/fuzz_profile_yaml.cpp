// Profile files are written by users (trn-run PROFILE.yaml): any text must either load or be
// refused with a trn::Error naming the file.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "trn/common/error.hpp"
#include "trn/plan/load_profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto profile = trn::plan::parse_profile(text, "fuzz.yaml", "fuzz");
    trn::plan::check_complete(profile);
  } catch (const trn::Error&) {
  }
  return 0;
}
