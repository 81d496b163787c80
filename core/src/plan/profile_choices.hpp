#pragma once

#include "trn/common/enum_names.hpp"
#include "trn/plan/profile.hpp"

// The spellings of the profile's enum keys, shared by to_string() and the profile reader.
namespace trn::plan {

inline constexpr EnumNames<Scaling, 2> scaling_names{
    {{Scaling::kStrong, "strong"}, {Scaling::kWeak, "weak"}}};

inline constexpr EnumNames<LrRule, 3> lr_rule_names{
    {{LrRule::kNone, "none"}, {LrRule::kLinear, "linear"}, {LrRule::kSqrt, "sqrt"}}};

inline constexpr EnumNames<LaunchMode, 3> launch_mode_names{{{LaunchMode::kPerCore, "per-core"},
                                                             {LaunchMode::kTorchrun, "torchrun"},
                                                             {LaunchMode::kMpirun, "mpirun"}}};

inline constexpr EnumNames<WorkerCores, 2> worker_cores_names{
    {{WorkerCores::kPerTask, "per-task"}, {WorkerCores::kPerWorker, "per-worker"}}};

inline constexpr EnumNames<RequeuePolicy, 3> requeue_policy_names{
    {{RequeuePolicy::kNodeFailure, "node-failure"},
     {RequeuePolicy::kAlways, "always"},
     {RequeuePolicy::kNever, "never"}}};

}  // namespace trn::plan
