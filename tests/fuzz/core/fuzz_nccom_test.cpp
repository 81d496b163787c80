// nccom-test's output is judged whatever its version prints (trn-health --step).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "trn/common/error.hpp"
#include "trn/health/collectives.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  const int exit_status = input.ConsumeIntegralInRange<int>(-64, 255);
  const unsigned ranks = input.ConsumeIntegralInRange<unsigned>(0, 256);
  const unsigned min_busbw = input.ConsumeIntegralInRange<unsigned>(0, 1000);
  const std::string output = input.ConsumeRemainingBytesAsString();
  try {
    trn::health::judge_nccom_test(output, exit_status, ranks, min_busbw);
  } catch (const trn::Error&) {
  }
  return 0;
}
