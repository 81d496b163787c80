#include "step_resources.hpp"

#include "trn/common/error.hpp"

namespace trn::placement {

IdList step_cpus(const topology::NodeTopology& topology, const PlacementRequest& request) {
  IdList cpus = topology.cpus;
  if (request.allowed_cores) {
    IdList from_cores;
    for (unsigned core : request.allowed_cores->ids()) {
      if (core >= topology.cores.size()) {
        throw Error("the step's cores (S_STEP_ALLOC_CORES) '" + request.allowed_cores->to_string() +
                    "' include core " + std::to_string(core) + " but this node has " +
                    std::to_string(topology.cores.size()) +
                    " cores: check the node's CPU definition in slurm.conf");
      }
      from_cores = from_cores.united(topology.cores[core].cpus);
    }
    cpus = cpus.intersection(from_cores);
  }
  if (request.allowed_cpus) cpus = cpus.intersection(*request.allowed_cpus);
  if (cpus.empty()) {
    throw Error("the step has no CPU of this node left (node CPUs " + topology.cpus.to_string() +
                (request.allowed_cores ? ", allowed cores " + request.allowed_cores->to_string()
                                       : std::string()) +
                (request.allowed_cpus ? ", allowed CPUs " + request.allowed_cpus->to_string()
                                      : std::string()) +
                "): check the step's CPU allocation");
  }
  return cpus;
}

std::vector<const topology::NeuronDevice*> step_devices(const topology::NodeTopology& topology,
                                                        const PlacementRequest& request) {
  std::vector<const topology::NeuronDevice*> out;
  if (!request.allowed_devices) {
    for (const auto& device : topology.devices) out.push_back(&device);
    return out;
  }
  for (unsigned index : request.allowed_devices->ids()) {
    const auto* device = topology.device(index);
    if (device == nullptr) {
      throw Error("the step's Neuron devices (SLURM_STEP_GPUS/SLURM_JOB_GPUS) '" +
                  request.allowed_devices->to_string() + "' include device " +
                  std::to_string(index) + " but this node has " +
                  std::to_string(topology.devices.size()) +
                  " Neuron devices: check the gpu GRES in gres.conf against neuron-ls");
    }
    out.push_back(device);
  }
  return out;
}

unsigned step_lnc(const topology::NodeTopology& topology, const PlacementRequest& request,
                  std::vector<std::string>& notes) {
  std::optional<unsigned> from_env;
  if (request.lnc_env) {
    if (*request.lnc_env == "1" || *request.lnc_env == "2") {
      from_env = unsigned((*request.lnc_env)[0] - '0');
    } else {
      throw Error("NEURON_LOGICAL_NC_CONFIG='" + *request.lnc_env +
                  "' in the environment is not a logical NeuronCore config: set it to 1 or 2, "
                  "or unset it");
    }
  }
  if (request.lnc && *request.lnc != 1 && *request.lnc != 2) {
    throw Error("--neuron-lnc=" + std::to_string(*request.lnc) +
                " is not a logical NeuronCore "
                "config: use 1 or 2");
  }
  if (request.lnc && from_env && *request.lnc != *from_env) {
    throw Error("--neuron-lnc=" + std::to_string(*request.lnc) +
                " conflicts with NEURON_LOGICAL_NC_CONFIG=" + *request.lnc_env +
                " in the environment: drop one of them");
  }
  if (!topology.offers_logical_nc_config()) {
    if (request.lnc && *request.lnc != 1 && !topology.devices.empty()) {
      throw Error("--neuron-lnc=" + std::to_string(*request.lnc) +
                  " applies to Trainium2 and Trainium3 only and this node's devices are " +
                  topology.devices.front().device_name + ": drop the option");
    }
    if ((request.lnc && *request.lnc != 1) || (from_env && *from_env != 1)) {
      notes.emplace_back(
          "logical NeuronCore config ignored: this node has no Trainium2 or Trainium3 device");
    }
    return 1;
  }
  if (request.lnc) return *request.lnc;
  if (from_env) return *from_env;
  if (topology.neuron_ls_lnc == 1u || topology.neuron_ls_lnc == 2u) return *topology.neuron_ls_lnc;
  return 2;
}

}  // namespace trn::placement
