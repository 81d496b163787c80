#pragma once

#include <string_view>

// Messages to Slurm's log and, from slurmstepd once the step's I/O is up, to the user's srun.
// Every line starts with "spank_trn: " so a user or an admin can tell where it came from. The
// text is always passed as a "%s" argument: messages carry user input (paths, option values).
namespace trn::spank {

inline constexpr std::string_view kPrefix = "spank_trn: ";

void log_error(std::string_view message);    // slurm_error: the user sees it
void log_info(std::string_view message);     // slurm_info: srun's terminal (local context), the
                                             // slurmd log (slurmstepd)
void log_verbose(std::string_view message);  // slurm_verbose: srun -v (local), SlurmdDebug=verbose
// From task_init (a task process whose stderr is the user's): slurmstepd logs only errors to a
// task's stderr, so a line for the user is written there directly, and to the log at info level.
void tell_user_from_task(std::string_view message);
void log_debug(std::string_view message);  // slurm_debug

}  // namespace trn::spank
