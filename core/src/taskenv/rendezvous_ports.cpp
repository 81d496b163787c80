#include "trn/taskenv/rendezvous_ports.hpp"

namespace trn::taskenv {
namespace {

// Slurm's special step ids (batch 0xfffffffb, interactive 0xfffffffa, extern ...) are all at
// the top of the range and never run side by side with each other in a job that trains.
constexpr std::uint32_t kFirstSpecialStepId = 0xfffffff0u;
constexpr std::uint32_t kSpecialStepSlot = 9;
constexpr std::uint32_t kRegularStepSlots = 9;

}  // namespace

PortBlock job_port_block(std::uint32_t job_id) {
  return {static_cast<std::uint16_t>(kRendezvousPortBase + (job_id % kJobSlots) * kPortsPerJob),
          kPortsPerJob};
}

RendezvousPorts rendezvous_ports(std::uint32_t job_id, std::uint32_t step_id) {
  const std::uint32_t slot =
      step_id >= kFirstSpecialStepId ? kSpecialStepSlot : step_id % kRegularStepSlots;
  const auto first = static_cast<std::uint32_t>(job_port_block(job_id).first) + 2 * slot;
  return {static_cast<std::uint16_t>(first), static_cast<std::uint16_t>(first + 1)};
}

}  // namespace trn::taskenv
