#pragma once

#include <filesystem>
#include <string>

#include "trn/plan/plan.hpp"

namespace trn::run {

// Whether `plan` may use `run_dir`, a directory the user named (`option`: "--resume DIR" or
// "--run-dir DIR") to continue an earlier run there. The trainer resumes from the newest
// checkpoint in it, which holds that run's model and its progress in samples, so the earlier
// plan.json and this plan must agree on the profile, model, sequence length and global batch;
// a difference is a trn::Error naming both values and the fix. `must_exist` (--resume): a
// directory without plan.json is an error too; otherwise it starts a new run there. `new_run`:
// how to start a new run instead (default: without the option that named the directory).
void check_run_dir_continues(const std::filesystem::path& run_dir, const plan::Plan& plan,
                             const std::string& option, bool must_exist,
                             const std::string& new_run = "");

// The newest step with a committed checkpoint manifest (ckpt_<step>.json) in `run_dir`; -1: none
// (or no such folder).
long newest_checkpoint(const std::filesystem::path& run_dir);

}  // namespace trn::run
