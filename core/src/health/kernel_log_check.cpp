// NEURON_HW_ERR lines in the kernel log since the node's last clean check, classified as the
// Neuron problem detector does (docs/health.md#kernel-log).
#include "trn/common/error.hpp"
#include "trn/health/kernel_log.hpp"
#include "trn/health/node_checks.hpp"

namespace trn::health {
namespace {

constexpr const char* kKernelLogCheckName = "kernel-log";

std::string describe(const HardwareErrorLine& line) {
  std::string text = "NEURON_HW_ERR=" + line.type;
  if (!line.device.empty()) text += " nd-id=" + line.device;
  if (!line.core.empty()) text += " nc-id=" + line.core;
  text += line.permanent ? " (permanent: replace the instance)"
                         : " (repairable: reload the Neuron driver or reboot)";
  return text;
}

}  // namespace

CheckResult check_kernel_log(const NodeCheckOptions& options, std::uint64_t& last_sequence) {
  last_sequence = options.baseline.kernel_log_sequence;
  KernelLogScan scan;
  try {
    scan = scan_kernel_log(options.fsroot, options.baseline.kernel_log_sequence);
  } catch (const Error& error) {
    return {kKernelLogCheckName, CheckStatus::kWarning, error.what()};
  }
  last_sequence = std::max(last_sequence, scan.last_sequence);
  if (!scan.errors.empty()) {
    // A permanent error outranks a repairable one: it decides what the operator must do.
    const auto worst = std::find_if(scan.errors.begin(), scan.errors.end(),
                                    [](const HardwareErrorLine& e) { return e.permanent; });
    const auto& shown = worst != scan.errors.end() ? *worst : scan.errors.front();
    std::string evidence = describe(shown);
    if (scan.errors.size() > 1)
      evidence += " and " + std::to_string(scan.errors.size() - 1) + " more";
    return {kKernelLogCheckName, CheckStatus::kFailed, evidence};
  }
  if (!scan.note.empty()) return {kKernelLogCheckName, CheckStatus::kWarning, scan.note};
  return {kKernelLogCheckName, CheckStatus::kOk, "no NEURON_HW_ERR since the last clean check"};
}

}  // namespace trn::health
