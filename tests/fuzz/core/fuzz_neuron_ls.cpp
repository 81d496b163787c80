// `neuron-ls -j` output (a recorded file or the tool's) and the topology cache file under /run:
// both are JSON from outside trn-slurm's control.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "trn/common/error.hpp"
#include "trn/topology/neuron_ls.hpp"
#include "trn/topology/topology_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    trn::topology::parse_neuron_ls({text, "fuzz-neuron-ls.json"});
  } catch (const trn::Error&) {
  }
  trn::topology::NodeTopology topology;
  try {
    topology = trn::topology::topology_from_json(text, "fuzz-topology.json");
  } catch (const trn::Error&) {
    return 0;
  }
  // A topology that was read must survive the cache's write and read back: the plugin rewrites
  // the cache with what it read.
  try {
    trn::topology::topology_from_json(trn::topology::topology_to_json(topology), "rewritten");
  } catch (const trn::Error&) {
    std::abort();
  }
  return 0;
}
