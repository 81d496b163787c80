#pragma once

#include <unistd.h>

#include <cstdint>

namespace trn::test {

// A TCP port per test process and offset, so test processes running side by side (ctest -j)
// do not collide.
inline std::uint16_t test_port(unsigned offset) {
  return static_cast<std::uint16_t>(20000 +
                                    (static_cast<unsigned>(::getpid()) * 7 + offset) % 9000);
}

}  // namespace trn::test
