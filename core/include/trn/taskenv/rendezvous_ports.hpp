#pragma once

#include <cstdint>

namespace trn::taskenv {

// Rendezvous ports derived from the job and step ids, the same on every node without any
// communication. Jobs get blocks of 20 ports in 11000-30999, below the Linux ephemeral range
// (32768-60999) so no outgoing connection holds them: jobs whose ids differ by less than 1000
// never collide, and within a job the regular steps 0-8 (then repeating) and the batch/
// interactive step each get their own pair.
struct RendezvousPorts {
  std::uint16_t master_port = 0;     // MASTER_PORT / PET_MASTER_PORT (torch.distributed store)
  std::uint16_t root_comm_port = 0;  // NEURON_RT_ROOT_COMM_ID (Neuron collectives bootstrap)
};

struct PortBlock {
  std::uint16_t first = 0;
  std::uint16_t count = 0;
};

inline constexpr std::uint16_t kRendezvousPortBase = 11000;
inline constexpr std::uint16_t kPortsPerJob = 20;
inline constexpr std::uint32_t kJobSlots = 1000;

RendezvousPorts rendezvous_ports(std::uint32_t job_id, std::uint32_t step_id);

// Every port any step of the job can use, e.g. to reserve them in the prolog with
// net.ipv4.ip_local_reserved_ports.
PortBlock job_port_block(std::uint32_t job_id);

}  // namespace trn::taskenv
