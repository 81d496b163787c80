#include "trn/common/cpu_binding.hpp"

#include <sched.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "trn/common/error.hpp"

namespace trn {

void bind_task_to_cpus(const IdList& cpus) {
  if (cpus.empty()) return;
  const unsigned count = cpus.ids().back() + 1;
  struct Free {
    void operator()(cpu_set_t* set) const { CPU_FREE(set); }
  };
  std::unique_ptr<cpu_set_t, Free> set(CPU_ALLOC(count));
  if (!set) throw Error("cannot bind the task to CPUs " + cpus.to_string() + ": out of memory");
  const std::size_t size = CPU_ALLOC_SIZE(count);
  CPU_ZERO_S(size, set.get());
  for (unsigned cpu : cpus.ids()) CPU_SET_S(cpu, size, set.get());
  if (::sched_setaffinity(0, size, set.get()) != 0) {
    throw Error("cannot bind the task to CPUs " + cpus.to_string() + ": " + std::strerror(errno) +
                ": check the step's cpuset, or run with --neuron-bind=none");
  }
}

}  // namespace trn
