// Files for harnesses whose parsers read them. Their scratch folder is the unit tests'
// trn::test::TempDir, made once per fuzzer process under $TMPDIR (tests/fuzz/run_core.sh points
// it into its work folder) and removed when the process exits.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "temp_dir.hpp"

namespace trn::fuzz {

// Replaces `file` with `content`, creating its folder; a harness that cannot set up its input
// has no result worth keeping.
inline void write_file(const std::filesystem::path& file, std::string_view content) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out.flush()) std::abort();
}

}  // namespace trn::fuzz
