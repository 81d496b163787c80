#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "trn/plan/plan.hpp"

namespace trn::plan {

// plan.json: keys named for what they hold (nodes, node_list, workers_per_node, world_size,
// tensor_parallel, pipeline_parallel, data_parallel, micro_batch, grad_accum, global_batch,
// lr, ...); a value the plan lacks (no job id, no lr) is null.
nlohmann::json to_json(const Plan& plan);

// A short aligned table for people: one line per fact, the arithmetic spelt out.
std::string render_plan_text(const Plan& plan);

}  // namespace trn::plan
