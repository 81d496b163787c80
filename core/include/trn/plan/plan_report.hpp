#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "trn/plan/plan.hpp"

namespace trn::plan {

// plan.json: keys named for what they hold (nodes, node_list, workers_per_node, world_size,
// tensor_parallel, pipeline_parallel, data_parallel, micro_batch, grad_accum, global_batch,
// lr, ...); a value the plan lacks (no job id, no lr) is null.
nlohmann::json to_json(const Plan& plan);

// What decides the graphs the compile phase produces, for the compile cache's manifest: the
// compile command and env with the run directory and the node-local checkpoint folder (new for
// every job) written as "{run_dir}" and "{checkpoint_local_dir}", and the world and batch
// shape. Plans with equal compile_inputs compile the same graphs; the compiler's version and
// flags are the manifest's to add.
nlohmann::json compile_inputs(const Plan& plan);

// A short aligned table for people: one line per fact, the arithmetic spelt out.
std::string render_plan_text(const Plan& plan);

}  // namespace trn::plan
