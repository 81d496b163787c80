#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "trn/pcluster/diagnostic.hpp"

namespace trn::pcluster {

// The OnNodeConfigured script (pcluster-configs/install/) that installs trn-slurm on a node;
// the linter requires the head node and every queue to run it.
inline constexpr std::string_view install_script_name = "trn-slurm-setup.sh";

// Bundled configs ship with obvious placeholders (subnet-REPLACE_ME_...) that the user fills
// in. By default a placeholder is a warning, so the bundled files lint clean; with
// placeholders_are_errors a config that is about to be deployed must have none left.
struct CheckOptions {
  bool placeholders_are_errors = false;
  // A compute resource's instance type that trn-slurm has no facts for (a typo such as
  // trn1.32xlarg) is a warning by default, an error with this (trn-cluster check --strict).
  bool unknown_instance_types_are_errors = false;
};

// Lints a ParallelCluster 3 cluster configuration offline: the schema rules we rely on
// (required keys, unknown keys, duplicate keys, value types and formats), the validators
// ParallelCluster applies (names, counts, placement groups, FSx capacity, custom actions) and
// the Trainium rules of this project (EFA where the instance has it, the trn-slurm install
// action on every node). `file_label` only names the input in the diagnostics. The result is
// sorted by position; it is empty when the config is clean.
std::vector<Diagnostic> check_cluster_config(std::string_view file_label,
                                             std::string_view yaml_text,
                                             const CheckOptions& options = {});

// Cluster configurations are a few KiB; larger files are refused rather than read.
inline constexpr std::size_t kMaxConfigBytes = 1u << 20;

// Same, reading the file. Throws trn::Error when the file cannot be read, is not a regular
// file (a directory, FIFO or device) or is larger than kMaxConfigBytes.
std::vector<Diagnostic> check_cluster_config_file(const std::filesystem::path& file,
                                                  const CheckOptions& options = {});

}  // namespace trn::pcluster
