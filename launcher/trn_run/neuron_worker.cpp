#include "neuron_worker.hpp"

#include <stdlib.h>

#include "exec_command.hpp"
#include "trn/common/env_names.hpp"
#include "trn/common/env_value.hpp"
#include "trn/common/error.hpp"
#include "trn/run/worker_core.hpp"

namespace trn::launcher {

int neuron_worker_command(const std::vector<std::string>& args) {
  if (args.size() < 2 || args.front() != "--") {
    throw Error(
        "neuron-worker: give the worker's command after --: trn-launcher neuron-worker -- "
        "COMMAND...");
  }
  const auto core =
      run::worker_visible_core(env_value(env::kNeuronRtVisibleCores), env_value(env::kLocalRank),
                               env_value(env::kLocalWorldSize));
  ::setenv(std::string(env::kNeuronRtVisibleCores).c_str(), core.c_str(), 1);
  return exec_command({args.begin() + 1, args.end()}, "trn-launcher neuron-worker");
}

}  // namespace trn::launcher
