#include "trn/health/kernel_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "trn/common/error.hpp"
#include "trn/common/unique_fd.hpp"
#include "trn/common/whole_number.hpp"

namespace trn::health {
namespace {

constexpr std::string_view kField = "NEURON_HW_ERR=";

// The value of `key=` among the space-separated fields of `text`; "" when absent.
std::string field(std::string_view text, std::string_view key) {
  std::size_t at = 0;
  while (at < text.size()) {
    const auto end = std::min(text.find(' ', at), text.size());
    const auto word = text.substr(at, end - at);
    if (word.size() > key.size() && word.substr(0, key.size()) == key && word[key.size()] == '=') {
      return std::string(word.substr(key.size() + 1));
    }
    at = end + 1;
  }
  return {};
}

// The sequence number of a record ("<prio>,<seq>,<usec>,<flags>;<text>"); nullopt for a
// continuation line (" KEY=value") or garbage.
std::optional<std::uint64_t> record_sequence(std::string_view record) {
  const auto semicolon = record.find(';');
  const auto first_comma = record.find(',');
  if (semicolon == std::string_view::npos || first_comma > semicolon) return std::nullopt;
  const auto second_comma = record.find(',', first_comma + 1);
  if (second_comma > semicolon) return std::nullopt;
  const auto sequence =
      parse_whole_number(record.substr(first_comma + 1, second_comma - first_comma - 1));
  if (!sequence || *sequence < 0) return std::nullopt;
  return static_cast<std::uint64_t>(*sequence);
}

// Scans `text` (whole records, one per line) into `scan`.
void scan_records(std::string_view text, std::uint64_t after, KernelLogScan& scan) {
  std::size_t at = 0;
  while (at < text.size()) {
    const auto end = std::min(text.find('\n', at), text.size());
    const auto record = text.substr(at, end - at);
    at = end + 1;
    const auto sequence = record_sequence(record);
    if (!sequence) continue;
    scan.last_sequence = std::max(scan.last_sequence, *sequence);
    if (*sequence <= after) continue;
    if (auto error = parse_kmsg_record(record)) scan.errors.push_back(std::move(*error));
  }
}

std::string mib(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

bool is_permanent_hardware_error(std::string_view type) {
  return type == "SRAM_UNCORRECTABLE_ERROR" || type == "NC_UNCORRECTABLE_ERROR" ||
         type == "HBM_UNCORRECTABLE_ERROR" || type == "DMA_ERROR";
}

std::optional<HardwareErrorLine> parse_kmsg_record(std::string_view record) {
  const auto semicolon = record.find(';');
  if (semicolon == std::string_view::npos) return std::nullopt;
  const auto text = record.substr(semicolon + 1);
  const auto at = text.find(kField);
  if (at == std::string_view::npos) return std::nullopt;
  HardwareErrorLine line;
  const auto fields = text.substr(at);
  line.type = field(fields, "NEURON_HW_ERR");
  if (line.type.empty()) return std::nullopt;
  line.device = field(fields, "nd-id");
  line.core = field(fields, "nc-id");
  line.action = field(fields, "action");
  line.permanent = is_permanent_hardware_error(line.type);
  line.sequence = record_sequence(record).value_or(0);
  return line;
}

KernelLogScan scan_kernel_log(const std::filesystem::path& root, std::uint64_t after_sequence,
                              std::size_t max_bytes) {
  const auto path = root / "dev" / "kmsg";
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) {
    throw Error("cannot open " + path.string() + ": " + std::strerror(errno) +
                ": run trn-health as root (reading the kernel log needs CAP_SYSLOG where "
                "kernel.dmesg_restrict is set)");
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    throw Error("cannot stat " + path.string() + ": " + std::strerror(errno));
  }
  KernelLogScan scan;
  std::string text;
  if (S_ISCHR(info.st_mode)) {
    // Each read returns one record; EAGAIN once every record is read, EPIPE when the ring
    // buffer overwrote the next one (reading goes on with the oldest left).
    std::array<char, 8192> record{};
    while (text.size() < max_bytes) {
      const ssize_t n = ::read(fd.get(), record.data(), record.size());
      if (n > 0) {
        text.append(record.data(), static_cast<std::size_t>(n));
        if (text.back() != '\n') text += '\n';
        continue;
      }
      if (n < 0 && (errno == EINTR || errno == EPIPE)) continue;
      break;
    }
  } else if (S_ISREG(info.st_mode)) {
    const auto size = static_cast<std::uint64_t>(info.st_size);
    std::uint64_t start = 0;
    if (size > max_bytes) {
      start = size - max_bytes;
      scan.note = "read the last " + mib(max_bytes) + " of " + path.string() + " (" + mib(size) +
                  "); earlier records were not read";
    }
    text.resize(static_cast<std::size_t>(size - start));
    std::size_t got = 0;
    while (got < text.size()) {
      const ssize_t n =
          ::pread(fd.get(), text.data() + got, text.size() - got, static_cast<off_t>(start + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    text.resize(got);
    if (start > 0) text.erase(0, std::min(text.size(), text.find('\n') + 1));  // partial record
  } else {
    throw Error(path.string() + " is neither the kernel's record device nor a regular file");
  }
  scan_records(text, after_sequence, scan);
  return scan;
}

}  // namespace trn::health
