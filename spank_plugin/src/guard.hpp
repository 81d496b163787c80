#pragma once

#include <exception>
#include <string>

#include "log.hpp"
#include "trn/common/error.hpp"

namespace trn::spank {

// SPANK return codes (spank.h's ESPANK_* are slurm_err_t values; 0 is success).
inline constexpr int kSpankSuccess = 0;
inline constexpr int kSpankError = -1;

// Thrown after the failure was already reported (or deliberately not repeated): the callback
// fails without another message.
struct ReportedFailure {};

// Runs one callback's work so that nothing escapes into the C host: a trn::Error (a message
// meant for the user) or any other exception becomes one error line naming the callback and a
// failure return (negative: Slurm's plugin stack treats only rc < 0 as a failure, and
// ESPANK_ERROR is positive), which fails the step (or the srun/sbatch command) instead of crashing
// slurmstepd. `work` returns the SPANK result.
template <typename Work>
int guarded(const char* callback, Work&& work) noexcept {
  try {
    return work();
  } catch (const ReportedFailure&) {
  } catch (const Error& e) {
    // The message is the user's: it names the input and the fix; the callback adds nothing.
    try {
      log_error(e.what());
    } catch (...) {
    }
  } catch (const std::exception& e) {
    try {
      log_error(std::string(callback) + ": internal error: " + e.what() +
                ": please report it with the step's slurmd log");
    } catch (...) {
    }
  } catch (...) {
    try {
      log_error(std::string(callback) +
                ": internal error: please report it with the step's "
                "slurmd log");
    } catch (...) {
    }
  }
  return kSpankError;
}

}  // namespace trn::spank
