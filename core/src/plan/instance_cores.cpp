#include "trn/plan/instance_cores.hpp"

#include "trn/common/env_names.hpp"
#include "trn/common/error.hpp"
#include "trn/common/whole_number.hpp"
#include "trn/pcluster/node_features.hpp"
#include "trn/topology/instance_facts.hpp"

namespace trn::plan {

std::optional<LncRequest> requested_lnc(const std::map<std::string, std::string>& profile_env,
                                        const std::optional<std::string>& environment) {
  const std::string name(env::kNeuronLogicalNcConfig);
  if (const auto set = profile_env.find(name); set != profile_env.end())
    return LncRequest{set->second, name + " in the profile's env"};
  if (environment) return LncRequest{*environment, name + " in the environment"};
  return std::nullopt;
}

std::int64_t planned_neuron_cores(const std::string& instance_type, const std::string& source,
                                  const std::optional<LncRequest>& lnc) {
  if (const auto problem = pcluster::instance_type_problem(instance_type)) {
    throw Error("instance type '" + instance_type + "' (" + source + ") " + *problem);
  }
  const auto* facts = topology::instance_facts(instance_type);
  if (facts == nullptr) return 0;
  if (!lnc) return facts->logical_cores(facts->default_lnc);
  const auto value = parse_whole_number(lnc->value);
  if (!value || *value < 1 || *value > facts->physical_cores_per_device ||
      !facts->offers_lnc(static_cast<unsigned>(*value))) {
    const std::string fix = facts->lnc_values.size() == 1
                                ? "unset it (or set 1)"
                                : "set " + facts->lnc_values_text() + ", or unset it for " +
                                      std::to_string(facts->default_lnc);
    throw Error(lnc->source + " is '" + lnc->value + "', but " + instance_type + " (" + source +
                ", " + std::string(facts->device_name) + ") offers logical NeuronCore config " +
                facts->lnc_values_text() + ": " + fix);
  }
  return facts->logical_cores(static_cast<unsigned>(*value));
}

}  // namespace trn::plan
