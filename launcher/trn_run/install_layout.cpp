#include "install_layout.hpp"

namespace trn::launcher {

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

}  // namespace trn::launcher
