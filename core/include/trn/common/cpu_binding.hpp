#pragma once

#include "trn/common/id_list.hpp"

namespace trn {

// Binds the calling task to `cpus` (sched_setaffinity); throws trn::Error naming the CPUs and
// the reason when the kernel refuses (e.g. none of them is in the task's cpuset).
void bind_task_to_cpus(const IdList& cpus);

}  // namespace trn
