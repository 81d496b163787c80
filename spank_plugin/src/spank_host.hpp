#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spank_api.hpp"

// Typed access to what the SPANK host (slurmstepd, srun, slurmd...) offers. Failures that
// mean "Slurm did not give us what the step needs" throw trn::Error naming the item.
namespace trn::spank {

class Host {
 public:
  explicit Host(spank_t handle) : handle_(handle) {}

  std::uint32_t u32(spank_item_t item, const char* name) const;
  uid_t uid() const;
  gid_t gid() const;
  int task_id() const;  // S_TASK_ID is an int
  // A string item (S_STEP_ALLOC_CORES); std::nullopt when the host does not offer it.
  std::optional<std::string> text(spank_item_t item) const;
  // The task's command (S_JOB_ARGV); empty when the host does not offer it.
  std::vector<std::string> argv() const;

  // The job's (remote) environment; std::nullopt when unset.
  std::optional<std::string> getenv(const std::string& name) const;
  void setenv(const std::string& name, const std::string& value) const;
  void unsetenv(const std::string& name) const;

 private:
  spank_t handle_;
};

}  // namespace trn::spank
