#include "install_layout.hpp"

#include <unistd.h>

#include <string>
#include <string_view>

#include "trn/common/env_names.hpp"
#include "trn/common/env_value.hpp"

namespace trn::launcher {
namespace {

// Where pcluster-configs/install/versions.env puts it (TRN_TRAINING_VENV there).
constexpr std::string_view kDefaultTrainingVenv = "/opt/trn-slurm/venv";

}  // namespace

InstallLayout install_layout() {
  InstallLayout layout;
  layout.bin_dir = std::filesystem::read_symlink("/proc/self/exe").parent_path();
  const auto installed_share = layout.bin_dir.parent_path() / "share" / "trn-slurm";
  if (std::filesystem::is_directory(installed_share / "profiles")) {
    layout.profile_dirs = {installed_share / "profiles"};
    layout.trainer_dir = installed_share / "trainer";
  } else {
    layout.profile_dirs = {TRN_SOURCE_DIR "/launcher/profiles"};
    layout.trainer_dir = TRN_SOURCE_DIR "/trainer";
  }
  return layout;
}

std::optional<std::filesystem::path> training_venv_bin() {
  const std::string venv =
      env_value(trn::env::kTrnTrainingVenv).value_or(std::string(kDefaultTrainingVenv));
  if (venv.empty()) return std::nullopt;
  const auto bin = std::filesystem::path(venv) / "bin";
  if (::access((bin / "python3").c_str(), X_OK) != 0) return std::nullopt;
  return bin;
}

}  // namespace trn::launcher
