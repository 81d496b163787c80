#include "plugin_config.hpp"

#include <string_view>

#include "trn/common/error.hpp"

namespace trn::spank {
namespace {

constexpr std::string_view kKnown =
    "fsroot=DIR, cache_root=DIR, local_cache=DIR|off, efa=auto|required|off, "
    "bind=numa|cores|none, default=on|off, topology_cache=DIR|off, neuron_ls=auto|off|FILE, "
    "alloc_cores=use|ignore";

[[noreturn]] void bad(std::string_view argument, std::string_view why) {
  throw Error("plugstack.conf argument '" + std::string(argument) + "': " + std::string(why));
}

std::filesystem::path absolute_path(std::string_view argument, std::string_view value) {
  if (value.empty() || value.front() != '/') {
    bad(argument, "the path must be absolute: write it as /path/to/dir");
  }
  return std::filesystem::path(value).lexically_normal();
}

bool on_off(std::string_view argument, std::string_view value) {
  if (value == "on") return true;
  if (value == "off") return false;
  bad(argument, "use on or off");
}

}  // namespace

PluginConfig parse_plugin_config(int argc, const char* const* argv) {
  PluginConfig config;
  for (int i = 0; i < argc; ++i) {
    const std::string_view argument = argv[i] == nullptr ? "" : argv[i];
    const auto equals = argument.find('=');
    if (equals == std::string_view::npos) {
      bad(argument, "it is not key=value: the plugin takes " + std::string(kKnown));
    }
    const std::string_view key = argument.substr(0, equals);
    const std::string_view value = argument.substr(equals + 1);
    try {
      if (key == "fsroot") {
        config.fsroot = absolute_path(argument, value);
      } else if (key == "cache_root") {
        config.cache_root = absolute_path(argument, value).string();
      } else if (key == "local_cache") {
        config.local_cache =
            value == "off" ? std::nullopt : std::optional(absolute_path(argument, value));
      } else if (key == "efa") {
        config.efa = taskenv::parse_efa_mode(value, "plugstack.conf argument efa");
      } else if (key == "bind") {
        config.bind = placement::parse_bind_mode(value, "plugstack.conf argument bind");
      } else if (key == "default") {
        config.default_on = on_off(argument, value);
      } else if (key == "topology_cache") {
        config.topology_cache =
            value == "off" ? std::nullopt : std::optional(absolute_path(argument, value));
      } else if (key == "neuron_ls") {
        if (value == "auto") {
          config.neuron_ls = NeuronLsSource::kAuto;
        } else if (value == "off") {
          config.neuron_ls = NeuronLsSource::kOff;
        } else {
          config.neuron_ls = NeuronLsSource::kFile;
          config.neuron_ls_file = absolute_path(argument, value);
        }
      } else if (key == "alloc_cores") {
        if (value != "use" && value != "ignore") bad(argument, "use use or ignore");
        config.use_alloc_cores = value == "use";
      } else {
        bad(argument, "it is unknown: the plugin takes " + std::string(kKnown));
      }
    } catch (const Error& e) {
      const std::string message = e.what();
      if (message.rfind("plugstack.conf", 0) == 0) throw;
      bad(argument, message);
    }
  }
  return config;
}

}  // namespace trn::spank
