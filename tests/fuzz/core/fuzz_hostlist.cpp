// The short values trn-slurm reads from Slurm's environment, launchers' files, plugstack
// arguments and the command line: hostlists, hostfiles, id and CPU lists, task and CPU counts,
// node name patterns, kernel releases, sizes, ages, compiler flags and option names.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "trn/cache/compiler_flags.hpp"
#include "trn/cache/layout.hpp"
#include "trn/cache/units.hpp"
#include "trn/common/error.hpp"
#include "trn/common/hostlist.hpp"
#include "trn/common/id_list.hpp"
#include "trn/common/node_name.hpp"
#include "trn/common/whole_number.hpp"
#include "trn/forecast/sweep.hpp"
#include "trn/placement/bind_mode.hpp"
#include "trn/run/launch_environment.hpp"
#include "trn/run/slurm_allocation.hpp"
#include "trn/run/slurm_task.hpp"
#include "trn/taskenv/env_options.hpp"
#include "trn/taskenv/neuron_launch.hpp"
#include "trn/topology/kernel_release.hpp"

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void parse_one(FuzzedDataProvider& input) {
  switch (input.ConsumeIntegralInRange(0, 11)) {
    case 0:
      trn::first_host(input.ConsumeRemainingBytesAsString());
      break;
    case 1:
      trn::run::hostfile_hosts(input.ConsumeRemainingBytesAsString());
      break;
    case 2: {
      const auto node = input.ConsumeRandomLengthString();
      trn::expand_node_name(input.ConsumeRemainingBytesAsString(), node);
      break;
    }
    case 3: {
      const auto list = trn::IdList::parse(input.ConsumeRemainingBytesAsString(), "fuzz");
      // The list form is written back to the tasks' environment and read again there.
      if (trn::IdList::parse(list.to_string(), "rewritten") != list) std::abort();
      break;
    }
    case 4: {
      const auto node_id = input.ConsumeIntegralInRange<unsigned>(0, 1 << 20);
      trn::run::tasks_on_node(input.ConsumeRemainingBytesAsString(), node_id,
                              "SLURM_STEP_TASKS_PER_NODE");
      break;
    }
    case 5: {
      const auto max_nodes = input.ConsumeIntegralInRange<unsigned>(0, 1 << 16);
      trn::run::parse_cpus_per_node(input.ConsumeRemainingBytesAsString(), max_nodes);
      break;
    }
    case 6:
      trn::forecast::parse_node_counts(input.ConsumeRemainingBytesAsString());
      break;
    case 7: {
      const auto minimum = input.ConsumeIntegral<std::int64_t>();
      const auto maximum = input.ConsumeIntegral<std::int64_t>();
      const auto text = input.ConsumeRemainingBytesAsString();
      trn::parse_whole_number(text);
      trn::parse_whole_number_in(text, "--fuzz", minimum, maximum);
      break;
    }
    case 8:
      trn::run::sagemaker_host_order(lines_of(input.ConsumeRemainingBytesAsString()));
      break;
    case 9:
      trn::topology::parse_kernel_release(input.ConsumeRemainingBytesAsString(), "fuzz");
      break;
    case 10: {
      const auto text = input.ConsumeRemainingBytesAsString();
      try {
        trn::cache::parse_size(text, "--max-size");
      } catch (const trn::Error&) {
      }
      trn::cache::parse_age(text, "--older-than");
      break;
    }
    case 11: {
      const auto flags = input.ConsumeRandomLengthString();
      const auto url = input.ConsumeRemainingBytesAsString();
      trn::cache::cache_dir_in_flags(flags);
      trn::cache::compiler_cache_root(flags, url);
      break;
    }
  }
}

// Option values that name one of a few choices.
void parse_names(const std::string& text) {
  const auto attempt = [](auto parse) {
    try {
      parse();
    } catch (const trn::Error&) {
    }
  };
  attempt([&] { trn::taskenv::parse_neuron_launch(text, "neuron-launch="); });
  attempt([&] { trn::taskenv::parse_efa_mode(text, "efa="); });
  attempt([&] { trn::placement::parse_bind_mode(text, "--neuron-bind"); });
  attempt([&] { trn::run::launcher_named(text); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  parse_names(std::string(reinterpret_cast<const char*>(data), size));
  FuzzedDataProvider input(data, size);
  try {
    parse_one(input);
  } catch (const trn::Error&) {
  }
  return 0;
}
