#include "trn/cache/compiler_processes.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <iterator>
#include <optional>
#include <string_view>

#include "directory.hpp"
#include "trn/common/error.hpp"

namespace trn::cache {

namespace {

constexpr std::array<std::string_view, 2> compiler_names = {"neuronx-cc",
                                                            "neuron_parallel_compile"};
constexpr std::size_t comm_length = 15;  // TASK_COMM_LEN - 1

std::optional<std::string> read_small_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string_view base_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The compiler's name if argv[0], or argv[1] behind an interpreter (python3 .../neuronx-cc),
// or the comm name is one of them.
std::optional<std::string> compiler_name(std::string_view cmdline, std::string_view comm) {
  std::array<std::string_view, 2> first_arguments{};
  for (std::size_t i = 0; i < first_arguments.size() && !cmdline.empty(); ++i) {
    const auto end = cmdline.find('\0');
    first_arguments[i] = cmdline.substr(0, end);
    cmdline = end == std::string_view::npos ? std::string_view() : cmdline.substr(end + 1);
  }
  while (!comm.empty() && (comm.back() == '\n' || comm.back() == '\0')) comm.remove_suffix(1);
  for (const auto name : compiler_names) {
    for (const auto argument : first_arguments) {
      if (!argument.empty() && base_name(argument) == name) return std::string(name);
    }
    if (!comm.empty() && comm == name.substr(0, comm_length)) return std::string(name);
  }
  return std::nullopt;
}

}  // namespace

std::vector<CompilerProcess> find_compiler_processes(const std::filesystem::path& proc_root) {
  std::vector<CompilerProcess> found;
  const auto items = detail::list_directory(proc_root);
  if (!items) {
    throw Error("process table " + proc_root.string() +
                ": no such folder, so whether a compiler runs cannot be told; mount procfs "
                "there or name the right one");
  }
  for (const auto& item : *items) {
    long pid = 0;
    const auto* end = item.name.data() + item.name.size();
    const auto [ptr, error] = std::from_chars(item.name.data(), end, pid);
    if (!item.is_dir || error != std::errc() || ptr != end) continue;
    // A process may end between the listing and the reads: then it is not running.
    const auto cmdline = read_small_file(proc_root / item.name / "cmdline");
    const auto comm = read_small_file(proc_root / item.name / "comm");
    if (!cmdline && !comm) continue;
    if (auto name = compiler_name(cmdline.value_or(""), comm.value_or(""))) {
      found.push_back({pid, std::move(*name)});
    }
  }
  std::sort(found.begin(), found.end(),
            [](const CompilerProcess& a, const CompilerProcess& b) { return a.pid < b.pid; });
  return found;
}

}  // namespace trn::cache
