#pragma once

// Stands in for capture_process where a time budget runs a tool (neuron-ls, nccom-test): records
// what each run was given (its command and timeout), answers as the test scripted it, and moves
// the test's ManualClock by the time the run took. A tool that hangs takes its whole timeout and
// is reported timed out, as capture_process reports the tool it killed.

#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "manual_clock.hpp"
#include "trn/common/process.hpp"

namespace trn::test {

class ToolStandIn {
 public:
  struct Run {
    std::vector<std::string> argv;
    std::optional<std::chrono::milliseconds> timeout;
  };

  explicit ToolStandIn(const ManualClock& clock) : state_(std::make_shared<State>(clock)) {}

  // Every run prints `output` and exits with `status` after `taking`.
  void answers(std::string output, int status = 0, std::chrono::milliseconds taking = {}) {
    state_->hangs = false;
    state_->output = std::move(output);
    state_->status = status;
    state_->taking = taking;
  }
  // Every run hangs until it is killed at its timeout.
  void hangs() { state_->hangs = true; }

  // The stand-in as an options struct's ProcessRunner.
  ProcessRunner runner() const {
    return [state = state_](const std::vector<std::string>& argv, const ProcessOptions& options) {
      state->runs.push_back({argv, options.timeout});
      CapturedProcess result;
      if (state->hangs) {
        // A real hanging tool given no timeout would never return: the test would hang.
        if (!options.timeout) throw std::logic_error("a hanging tool was given no timeout");
        state->clock.advance(*options.timeout);
        result.timed_out = true;
        return result;
      }
      state->clock.advance(state->taking);
      result.status = state->status;
      result.output = state->output;
      return result;
    };
  }

  // What each run was given, in order.
  const std::vector<Run>& runs() const { return state_->runs; }

 private:
  struct State {
    explicit State(const ManualClock& with) : clock(with) {}
    ManualClock clock;
    bool hangs = false;
    std::string output;
    int status = 0;
    std::chrono::milliseconds taking{};
    std::vector<Run> runs;
  };
  std::shared_ptr<State> state_;
};

}  // namespace trn::test
