#pragma once

#include <filesystem>
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

}  // namespace trn::launcher
