#pragma once

// Reading kernel attributes below a filesystem root (internal to trn_core's topology part).

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace trn::topology::sysfs {

// root / relative, where relative is written as on the real system ("sys/bus/pci/devices").
std::filesystem::path under(const std::filesystem::path& root, std::string_view relative);

// The trimmed contents of an attribute; throws trn::Error naming the file and `fix`.
std::string read(const std::filesystem::path& file, std::string_view fix);

unsigned parse_unsigned(std::string_view text, const std::filesystem::path& file);
int parse_int(std::string_view text, const std::filesystem::path& file);       // e.g. numa_node -1
unsigned parse_hex(std::string_view text, const std::filesystem::path& file);  // "0x1d0f"

// "12, 3, 4, 1" (connected_devices); "" is an empty list.
std::vector<unsigned> parse_number_list(std::string_view text, const std::filesystem::path& file);

// Directory entries (names only, sorted); empty when the directory does not exist.
std::vector<std::string> list_directory(const std::filesystem::path& dir);

}  // namespace trn::topology::sysfs
