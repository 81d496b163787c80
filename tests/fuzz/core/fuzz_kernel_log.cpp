// Kernel log records (/dev/kmsg, or a recorded tree's dev/kmsg file): any driver, any module,
// any garbage a recorded tree holds.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_tree.hpp"
#include "trn/common/error.hpp"
#include "trn/health/kernel_log.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const trn::test::TempDir tree;
  FuzzedDataProvider input(data, size);
  const auto after_sequence = input.ConsumeIntegral<std::uint64_t>();
  // Small limits exercise the read from the file's end, which cuts the first record.
  const auto max_bytes = input.ConsumeIntegralInRange<std::size_t>(0, 4096);
  const std::string log = input.ConsumeRemainingBytesAsString();

  std::string_view rest = log;
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    trn::health::parse_kmsg_record(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  trn::fuzz::write_file(tree.path() / "dev/kmsg", log);
  try {
    trn::health::scan_kernel_log(tree.path(), after_sequence, max_bytes);
  } catch (const trn::Error&) {
  }
  return 0;
}
