#include "scaling.hpp"

#include <algorithm>
#include <optional>

#include "trn/common/error.hpp"
#include "trn/plan/plan.hpp"

namespace trn::plan {
namespace {

// Node counts listed in messages stop here: larger clusters are rare enough.
constexpr std::int64_t max_listed_nodes = 4096;

std::int64_t model_parallel(const Profile& p) { return p.tensor_parallel * p.pipeline_parallel; }

// The accumulation that makes micro_batch x dp x accumulation = global_batch, if whole.
std::optional<std::int64_t> whole_accumulation(const Profile& p, std::int64_t dp) {
  const std::int64_t per_micro_step = p.micro_batch * dp;
  if (p.global_batch % per_micro_step != 0) return std::nullopt;
  return p.global_batch / per_micro_step;
}

// The arithmetic when it works out, nullopt when it does not; scale_for says why.
std::optional<Scale> compute_scale(const Profile& p, std::int64_t nodes,
                                   std::int64_t workers_per_node) {
  const std::int64_t mp = model_parallel(p);
  Scale s;
  s.world_size = nodes * workers_per_node;
  if (s.world_size % mp != 0) return std::nullopt;
  s.data_parallel = s.world_size / mp;
  if (p.scaling == Scaling::kStrong) {
    const auto accumulation = whole_accumulation(p, s.data_parallel);
    if (!accumulation || *accumulation < 1) return std::nullopt;
    s.grad_accum = *accumulation;
    s.global_batch = p.global_batch;
    return s;
  }
  // Weak scaling: the accumulation of the reference size, kept on every node count.
  const std::int64_t reference_world = p.reference_nodes * workers_per_node;
  if (reference_world % mp != 0) return std::nullopt;
  const std::int64_t reference_dp = reference_world / mp;
  const auto accumulation = whole_accumulation(p, reference_dp);
  if (!accumulation || *accumulation < 1) return std::nullopt;
  s.grad_accum = *accumulation;
  s.global_batch = p.micro_batch * s.grad_accum * s.data_parallel;
  s.batch_factor = static_cast<double>(s.data_parallel) / static_cast<double>(reference_dp);
  return s;
}

std::string workers_text(const Profile& p, std::int64_t nodes, std::int64_t workers_per_node) {
  std::string text = std::to_string(nodes) + (nodes == 1 ? " node" : " nodes") + " x " +
                     std::to_string(workers_per_node) + " workers";
  if (model_parallel(p) > 1) {
    text += " / (tensor_parallel " + std::to_string(p.tensor_parallel) + " x pipeline_parallel " +
            std::to_string(p.pipeline_parallel) + ")";
  }
  return text;
}

std::string who(const Profile& p, std::int64_t nodes) {
  return "profile " + p.name + " on " + std::to_string(nodes) + (nodes == 1 ? " node" : " nodes");
}

std::string counts_that_work(const Profile& p, std::int64_t workers_per_node) {
  // Strong scaling stops working once dp exceeds global_batch / micro_batch.
  std::int64_t bound = max_listed_nodes;
  if (p.scaling == Scaling::kStrong) {
    bound = std::min(bound, p.global_batch / p.micro_batch * model_parallel(p) / workers_per_node);
  }
  const auto counts = feasible_node_counts(p, workers_per_node, std::max<std::int64_t>(bound, 1));
  if (counts.empty()) return "no node count works";
  return "node counts that work: " + list_numbers(counts);
}

// The largest micro-batch below the profile's that gives a whole accumulation for `dp`.
std::optional<std::int64_t> smaller_micro_batch(const Profile& p, std::int64_t dp) {
  if (p.global_batch % dp != 0) return std::nullopt;
  const std::int64_t per_worker = p.global_batch / dp;
  for (std::int64_t mb = std::min(p.micro_batch - 1, per_worker); mb >= 1; --mb) {
    if (per_worker % mb == 0) return mb;
  }
  return std::nullopt;
}

}  // namespace

std::string list_numbers(const std::vector<std::int64_t>& numbers, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < numbers.size() && i < shown; ++i) {
    out += (i == 0 ? "" : ", ") + std::to_string(numbers[i]);
  }
  if (numbers.size() > shown) out += ", ...";
  return out;
}

std::vector<std::int64_t> feasible_node_counts(const Profile& profile,
                                               std::int64_t workers_per_node,
                                               std::int64_t max_nodes) {
  std::vector<std::int64_t> counts;
  if (workers_per_node < 1 || profile.micro_batch < 1 || profile.global_batch < 1) return counts;
  for (std::int64_t nodes = 1; nodes <= max_nodes; ++nodes) {
    if (compute_scale(profile, nodes, workers_per_node)) counts.push_back(nodes);
  }
  return counts;
}

Scale scale_for(const Profile& p, std::int64_t nodes, std::int64_t workers_per_node) {
  // A tensor-parallel group all-reduces in every layer: its ranks are consecutive, so it sits
  // on one node (on consecutive NeuronCores) exactly when tp divides the workers of a node.
  if (workers_per_node % p.tensor_parallel != 0) {
    throw Error(who(p, nodes) + ": tensor_parallel " + std::to_string(p.tensor_parallel) +
                " does not divide the " + std::to_string(workers_per_node) +
                " workers of a node, so a tensor-parallel group would span nodes (its all-reduces "
                "run in every layer); fix: choose a tensor_parallel that divides " +
                std::to_string(workers_per_node) + ", or nodes with more workers");
  }
  if (const auto scale = compute_scale(p, nodes, workers_per_node)) return *scale;
  const std::int64_t mp = model_parallel(p);
  const std::int64_t world_size = nodes * workers_per_node;
  if (world_size % mp != 0) {
    throw Error(who(p, nodes) + ": tensor_parallel " + std::to_string(p.tensor_parallel) +
                " x pipeline_parallel " + std::to_string(p.pipeline_parallel) + " = " +
                std::to_string(mp) + " does not divide the " + std::to_string(world_size) +
                " workers (" + std::to_string(nodes) + " x " + std::to_string(workers_per_node) +
                "); " + counts_that_work(p, workers_per_node) +
                "; fix: use one of those, or change tensor_parallel/pipeline_parallel");
  }
  if (p.scaling == Scaling::kWeak && (p.reference_nodes * workers_per_node) % mp != 0) {
    throw Error("profile " + p.name + ": weak scaling starts from reference_nodes " +
                std::to_string(p.reference_nodes) + " x " + std::to_string(workers_per_node) +
                " workers, which tensor_parallel " + std::to_string(p.tensor_parallel) +
                " x pipeline_parallel " + std::to_string(p.pipeline_parallel) +
                " does not divide; fix: set reference_nodes to a node count it divides");
  }
  if (p.scaling == Scaling::kWeak) {
    throw Error("profile " + p.name + ": weak scaling keeps the accumulation of reference_nodes " +
                std::to_string(p.reference_nodes) + ", where global_batch " +
                std::to_string(p.global_batch) +
                " is not a whole number of micro-steps of micro_batch " +
                std::to_string(p.micro_batch) + " x data-parallel degree (" +
                workers_text(p, p.reference_nodes, workers_per_node) +
                "); fix: make global_batch a multiple of micro_batch x that degree, or set "
                "reference_nodes to the node count global_batch was chosen for");
  }
  const std::int64_t dp = world_size / mp;
  const std::int64_t per_micro_step = p.micro_batch * dp;
  const auto works = counts_that_work(p, workers_per_node);
  // "run on one of those" only where there are some.
  std::string fix = works.starts_with("no node count") ? "" : "run on one of those, ";
  if (const auto mb = smaller_micro_batch(p, dp)) {
    fix += "set micro_batch to " + std::to_string(*mb) +
           " (--set micro_batch=" + std::to_string(*mb) + "), ";
  }
  fix += "make global_batch a multiple of " + std::to_string(per_micro_step) +
         ", or use weak scaling (--set scaling=weak)";
  throw Error(who(p, nodes) + ": strong scaling needs global_batch " +
              std::to_string(p.global_batch) +
              " to be a whole number of micro-steps of micro_batch " +
              std::to_string(p.micro_batch) + " x data-parallel degree " + std::to_string(dp) +
              " (" + workers_text(p, nodes, workers_per_node) +
              ") = " + std::to_string(per_micro_step) + " sequences; " + works + "; fix: " + fix);
}

}  // namespace trn::plan
