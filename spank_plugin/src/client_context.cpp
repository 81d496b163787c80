#include "client_context.hpp"

#include <string>

#include "log.hpp"
#include "user_options.hpp"

namespace trn::spank::client {

void init_post_opt(spank_t /*handle*/, const PluginConfig& config) {
  const UserOptions& options = user_options();
  if (options.trn == false) {
    log_verbose("--neuron-trn=off: nothing will be set for the tasks");
    return;
  }
  if (!config.default_on && !options.any_given()) {
    log_verbose("default=off and no --neuron-* option: nothing will be set for the tasks");
    return;
  }
  std::string line = "tasks get";
  line += options.cores_per_task
              ? " " + std::to_string(*options.cores_per_task) + " NeuronCores each"
              : " an even share of each node's NeuronCores";
  line += ", bind " + std::string(placement::to_string(options.bind.value_or(config.bind)));
  line += ", EFA " + std::string(taskenv::to_string(options.efa.value_or(config.efa)));
  if (options.lnc) line += ", LNC " + std::to_string(*options.lnc);
  if (options.cache) line += ", compile cache " + (options.cache->empty() ? "off" : *options.cache);
  if (options.override_env) line += ", overriding variables already set";
  log_verbose(line);
}

}  // namespace trn::spank::client
