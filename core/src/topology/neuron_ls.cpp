#include "trn/topology/neuron_ls.hpp"

#include <nlohmann/json.hpp>
#include <set>

#include "trn/common/error.hpp"
#include "trn/common/text_file.hpp"

namespace trn::topology {
namespace {

[[noreturn]] void fail(const NeuronLsOutput& output, const std::string& why) {
  throw Error(output.origin + ": " + why +
              ": expected the JSON array printed by `neuron-ls -j` (one object per device "
              "with neuron_device and bdf)");
}

}  // namespace

std::vector<NeuronLsDevice> parse_neuron_ls(const NeuronLsOutput& output) {
  const auto doc = nlohmann::json::parse(output.json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) fail(output, "not valid JSON");
  if (!doc.is_array()) fail(output, "not a JSON array");
  std::vector<NeuronLsDevice> devices;
  std::set<unsigned> seen;
  for (const auto& entry : doc) {
    if (!entry.is_object()) fail(output, "an entry is not an object");
    const auto index = entry.find("neuron_device");
    const auto bdf = entry.find("bdf");
    if (index == entry.end() || !index->is_number_unsigned()) {
      fail(output, "an entry has no numeric neuron_device");
    }
    if (bdf == entry.end() || !bdf->is_string()) fail(output, "an entry has no bdf string");
    NeuronLsDevice device;
    device.index = index->get<unsigned>();
    device.pci = PciAddress::parse(bdf->get<std::string>(), output.origin);
    const auto lnc = entry.find("logical_neuroncore_config");
    if (lnc != entry.end() && lnc->is_number_unsigned()) {
      device.logical_core_config = lnc->get<unsigned>();
    }
    const auto cores = entry.find("nc_count");
    if (cores != entry.end() && cores->is_number_unsigned())
      device.core_count = cores->get<unsigned>();
    if (!seen.insert(device.index).second) {
      fail(output, "neuron_device " + std::to_string(device.index) + " appears twice");
    }
    devices.push_back(device);
  }
  return devices;
}

NeuronLsOutput read_neuron_ls_file(const std::filesystem::path& file) {
  return {read_text(file, "pass a file holding the output of `neuron-ls -j`"), file.string()};
}

}  // namespace trn::topology
