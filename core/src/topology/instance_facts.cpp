#include "trn/topology/instance_facts.hpp"

#include <array>

namespace trn::topology {
namespace {

constexpr std::array<unsigned, 1> kNoLogicalConfig{1};
// Trainium2 and Trainium3: 1 or 2 physical NeuronCores to a logical one, 2 by default.
constexpr std::array<unsigned, 2> kLogicalConfigs{1, 2};

// docs/hardware.md#instances gives each row's source. Trainium3's instance type names come from
// the Neuron driver's platform tables (v4/neuron_dhal_v4.c), its device counts from those tables
// and from the Trn3 architecture page (16 devices in a Gen1 server, 4 in a Gen2 server).
constexpr std::array kFacts{
    InstanceFacts{"trn1.2xlarge", "Trainium1", 1, 2, kNoLogicalConfig, 1, 32, 0},
    InstanceFacts{"trn1.32xlarge", "Trainium1", 16, 2, kNoLogicalConfig, 1, 32, 8},
    InstanceFacts{"trn1n.32xlarge", "Trainium1", 16, 2, kNoLogicalConfig, 1, 32, 16},
    InstanceFacts{"trn2.48xlarge", "Trainium2", 16, 8, kLogicalConfigs, 2, 96, 16},
    InstanceFacts{"trn2u.48xlarge", "Trainium2", 16, 8, kLogicalConfigs, 2, 96, 16},
    InstanceFacts{"trn3.48xlarge", "Trainium3", 16, 8, kLogicalConfigs, 2, 144, std::nullopt},
    InstanceFacts{"trn3p.48xlarge", "Trainium3", 16, 8, kLogicalConfigs, 2, 144, std::nullopt},
    InstanceFacts{"trn3e.24xlarge", "Trainium3", 4, 8, kLogicalConfigs, 2, 144, std::nullopt},
    InstanceFacts{"trn3pd98.3xlarge", "Trainium3", 1, 8, kLogicalConfigs, 2, 144, std::nullopt},
    InstanceFacts{"inf2.48xlarge", "Inferentia2", 12, 2, kNoLogicalConfig, 1, 32, std::nullopt},
};

}  // namespace

bool InstanceFacts::offers_lnc(unsigned lnc) const {
  for (const unsigned offered : lnc_values) {
    if (offered == lnc) return true;
  }
  return false;
}

unsigned InstanceFacts::logical_cores(unsigned lnc) const {
  return devices * physical_cores_per_device / lnc;
}

std::string InstanceFacts::lnc_values_text() const {
  if (lnc_values.size() == 1) return "only " + std::to_string(lnc_values.front());
  std::string text;
  for (std::size_t i = 0; i < lnc_values.size(); ++i) {
    if (i > 0) text += i + 1 == lnc_values.size() ? " or " : ", ";
    text += std::to_string(lnc_values[i]);
  }
  return text;
}

const InstanceFacts* instance_facts(std::string_view instance_type) {
  for (const auto& facts : kFacts) {
    if (facts.instance_type == instance_type) return &facts;
  }
  return nullptr;
}

const InstanceFacts* facts_of_device(std::string_view device_name) {
  for (const auto& facts : kFacts) {
    if (facts.device_name == device_name) return &facts;
  }
  return nullptr;
}

std::string instance_facts_types_text() {
  std::string text;
  for (const auto& facts : kFacts)
    text += (text.empty() ? "" : ", ") + std::string(facts.instance_type);
  return text;
}

}  // namespace trn::topology
