#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trn::run {

// The output of one rank of a failed training step (srun --label lines, label removed).
struct RankOutput {
  unsigned rank = 0;
  std::string node;
  std::string text;
};

enum class FailureKind {
  kUserError,         // every rank failed with the same error: requeueing cannot help
  kNodeFailure,       // anything else: a rank vanished, ranks disagree, a node or the fabric failed
  kStepRefused,       // Slurm refused to create the step: the job holds too little (no --exclusive)
  kRunDirectoryFull,  // the run directory's file system has no room for the next checkpoint
};

struct FailureDiagnosis {
  FailureKind kind = FailureKind::kNodeFailure;
  std::string exception;  // the common exception line, for a user error
  std::string excerpt;    // the traceback of the first failing rank, for a user error
  std::string summary;    // one line for the job log
  // A node failure a rank's own output pins on its node: a Neuron runtime hardware status.
  std::string failed_node;
  std::string node_evidence;  // e.g. "NRT_EXEC_HW_ERR_NC_UE (1202) on rank 3"
};

// Tells a user error from a node failure after a training step failed, from each rank's first
// error (a Python traceback or an error line; Slurm's own lines are never one): it is the user's
// when every rank failed with the same error, or when the ranks that printed an error printed
// the same error line and Slurm cancelled the rest (the full rule is in failure_diagnosis.cpp).
// A rank that printed a Neuron runtime hardware status makes it a failure of that rank's node,
// named in failed_node, whatever the other ranks printed.
FailureDiagnosis diagnose_training_failure(const std::vector<RankOutput>& ranks,
                                           unsigned expected_ranks);

// One line of srun --label output ("12: text"): the rank and the text; nullopt for other lines.
struct LabelledLine {
  unsigned rank = 0;
  std::string_view text;
};
std::optional<LabelledLine> parse_labelled_line(std::string_view line);

// Splits srun --label output ("12: text") into per-rank outputs.
std::vector<RankOutput> split_labelled_output(const std::string& labelled, const std::string& node);

}  // namespace trn::run
