#pragma once

#include <filesystem>
#include <optional>
#include <vector>

namespace trn::launcher {

// Where the launcher finds its siblings, profiles and the trainer: next to an installed binary
// (<prefix>/bin -> <prefix>/share/trn-slurm), else in the source tree it was built from.
struct InstallLayout {
  std::filesystem::path bin_dir;  // trn-launcher, trn-cache, trn-topo
  std::vector<std::filesystem::path> profile_dirs;
  std::filesystem::path trainer_dir;  // holds the trn_trainer package
};

InstallLayout install_layout();

// The cluster install's training environment (TRN_TRAINING_VENV, default /opt/trn-slurm/venv)
// as its bin folder, when it holds a python3; none on machines without one (CPU runs use the
// system's python3).
std::optional<std::filesystem::path> training_venv_bin();

}  // namespace trn::launcher
