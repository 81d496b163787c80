#include "user_options.hpp"

#include <charconv>

#include "guard.hpp"
#include "log.hpp"
#include "trn/common/error.hpp"

namespace trn::spank {
namespace {

UserOptions g_options;

// The largest NeuronCore count a node has today is 128 (trn2.48xlarge at LNC 1): this bound
// only keeps garbage out.
constexpr unsigned kMaxCoresPerTask = 1024;

unsigned parse_count(std::string_view option, std::string_view value, unsigned max) {
  unsigned parsed = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || parsed == 0 ||
      parsed > max) {
    throw Error(std::string(option) + "=" + std::string(value) +
                " is not a count: give a whole number from 1 to " + std::to_string(max));
  }
  return parsed;
}

int option_callback(int val, const char* optarg, int remote);

// spank_option wants mutable strings; these live as long as the plugin.
char kNameCores[] = "neuron-cores-per-task";
char kNameBind[] = "neuron-bind";
char kNameEfa[] = "neuron-efa";
char kNameCache[] = "neuron-cache";
char kNameLnc[] = "neuron-lnc";
char kNameTrn[] = "neuron-trn";
char kNameEnv[] = "neuron-env";
char kNameLaunch[] = "neuron-launch";
char kArgCount[] = "K";
char kArgBind[] = "numa|cores|none";
char kArgEfa[] = "auto|required|off";
char kArgCache[] = "PATH|off";
char kArgLnc[] = "1|2";
char kArgTrn[] = "on|off";
char kArgEnv[] = "keep|override";
char kArgLaunch[] = "auto|per-core|torchrun";
char kUseCores[] =
    "NeuronCores per task (default: all of the node's cores divided by its tasks) [spank_trn]";
char kUseBind[] =
    "bind each task to the CPUs of its Neuron devices' NUMA node (numa), an even "
    "share of them (cores), or not at all (none) [spank_trn]";
char kUseEfa[] =
    "use EFA where present (auto), fail on nodes without it (required), or never "
    "(off) [spank_trn]";
char kUseCache[] =
    "Neuron compile cache for the tasks (directory or s3:// URL), or off "
    "[spank_trn]";
char kUseLnc[] = "Trainium2 logical NeuronCore config (1 or 2) [spank_trn]";
char kUseTrn[] = "off: spank_trn sets nothing for this job or step [spank_trn]";
char kUseEnv[] =
    "override: replace variables already set in the environment instead of "
    "keeping them [spank_trn]";
char kUseLaunch[] =
    "per-core: each task is one Neuron worker and gets the NEURON_PJRT_* world; torchrun: each "
    "task runs torchrun, which describes it; auto: torchrun when the task's program is torchrun "
    "[spank_trn]";

struct spank_option g_table[] = {
    {kNameCores, kArgCount, kUseCores, 1, int(OptionId::kCoresPerTask), option_callback},
    {kNameBind, kArgBind, kUseBind, 1, int(OptionId::kBind), option_callback},
    {kNameEfa, kArgEfa, kUseEfa, 1, int(OptionId::kEfa), option_callback},
    {kNameCache, kArgCache, kUseCache, 1, int(OptionId::kCache), option_callback},
    {kNameLnc, kArgLnc, kUseLnc, 1, int(OptionId::kLnc), option_callback},
    {kNameTrn, kArgTrn, kUseTrn, 1, int(OptionId::kTrn), option_callback},
    {kNameEnv, kArgEnv, kUseEnv, 1, int(OptionId::kEnv), option_callback},
    {kNameLaunch, kArgLaunch, kUseLaunch, 1, int(OptionId::kLaunch), option_callback},
};

const char* option_name(OptionId id) {
  for (const auto& option : g_table) {
    if (option.val == int(id)) return option.name;
  }
  return "?";
}

// Called by srun/sbatch/salloc while parsing the command line (remote = 0), and by slurmstepd
// for the forwarded options (remote = 1). A failure stops srun/sbatch right away; slurmstepd
// only logs it, so there the error is kept for init_post_opt.
int option_callback(int val, const char* optarg, int remote) {
  return guarded("option", [&] {
    const std::string_view value = optarg == nullptr ? "" : optarg;
    if (val < int(OptionId::kCoresPerTask) || val > int(OptionId::kLaunch)) {
      throw Error("unknown option value " + std::to_string(val));
    }
    try {
      apply_option(g_options, OptionId(val), value);
    } catch (const Error& e) {
      if (!remote) throw;
      g_options.errors.emplace_back(e.what());
      return kSpankError;
    }
    return kSpankSuccess;
  });
}

}  // namespace

bool UserOptions::any_given() const {
  return cores_per_task || bind || efa || cache || lnc || trn || override_env || launch;
}

UserOptions& user_options() { return g_options; }

void reset_user_options() { g_options = UserOptions(); }

void apply_option(UserOptions& options, OptionId id, std::string_view value) {
  const std::string option = std::string("--") + option_name(id);
  switch (id) {
    case OptionId::kCoresPerTask:
      options.cores_per_task = parse_count(option, value, kMaxCoresPerTask);
      return;
    case OptionId::kBind:
      options.bind = placement::parse_bind_mode(value, option);
      return;
    case OptionId::kEfa:
      options.efa = taskenv::parse_efa_mode(value, option);
      return;
    case OptionId::kCache:
      if (value == "off") {
        options.cache = "";
      } else if (!value.empty() && (value.front() == '/' || value.rfind("s3://", 0) == 0)) {
        options.cache = std::string(value);
      } else {
        throw Error(option + "=" + std::string(value) +
                    " is not a cache location: give an absolute directory, an s3:// URL or off");
      }
      return;
    case OptionId::kLnc:
      if (value != "1" && value != "2") {
        throw Error(option + "=" + std::string(value) +
                    " is not a logical NeuronCore config: use 1 or 2");
      }
      options.lnc = unsigned(value[0] - '0');
      return;
    case OptionId::kTrn:
      if (value != "on" && value != "off") {
        throw Error(option + "=" + std::string(value) + " is not valid: use on or off");
      }
      options.trn = value == "on";
      return;
    case OptionId::kEnv:
      if (value != "keep" && value != "override") {
        throw Error(option + "=" + std::string(value) + " is not valid: use keep or override");
      }
      options.override_env = value == "override";
      return;
    case OptionId::kLaunch:
      options.launch = taskenv::parse_neuron_launch(value, option);
      return;
  }
}

void register_user_options(spank_t handle) {
  for (auto& option : g_table) {
    const spank_err_t rc = spank_option_register(handle, &option);
    if (rc != ESPANK_SUCCESS) {
      throw Error(std::string("cannot register --") + option.name + " (" + spank_strerror(rc) +
                  "): is another plugin using the same option name?");
    }
  }
}

}  // namespace trn::spank
