#include "trn/pcluster/config_check.hpp"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

#include "merge_keys.hpp"
#include "report.hpp"
#include "rules.hpp"
#include "schema_check.hpp"
#include "trn/common/error.hpp"
#include "trn/common/text_file.hpp"
#include "yaml_scalar.hpp"

namespace trn::pcluster {
namespace {

std::optional<YAML::Node> parse(std::string_view yaml_text, Report& report) {
  try {
    auto documents = YAML::LoadAll(std::string(yaml_text));
    if (documents.size() > 1) {
      // pcluster (PyYAML's safe_load) refuses a stream of several documents.
      report.error(documents[1].Mark(), "the file holds " + std::to_string(documents.size()) +
                                            " YAML documents; a cluster configuration is one "
                                            "(remove the '---' and what follows it)");
      return std::nullopt;
    }
    if (documents.empty()) return YAML::Node();
    return documents.front();
  } catch (const YAML::ParserException& e) {
    report.error(e.mark, "not valid YAML: " + e.msg);
    return std::nullopt;
  }
}

}  // namespace

std::vector<Diagnostic> check_cluster_config(std::string_view file_label,
                                             std::string_view yaml_text,
                                             const CheckOptions& options) {
  Report report{std::string(file_label)};
  const std::optional<YAML::Node> parsed = parse(yaml_text, report);
  if (!parsed) return report.take_sorted();
  const YAML::Node& root = *parsed;
  if (!root.IsMap()) {
    report.error(root.Mark(),
                 "a cluster configuration must be a mapping of keys (Image, HeadNode, "
                 "Scheduling, ...), got " +
                     describe_node(root));
    return report.take_sorted();
  }
  merge_keys(root, report);
  check_section(root, cluster_section(), "", root.Mark(), report);
  check_scheduling(root, report);
  check_resource_names(root, report);
  check_compute_resources(root, report);
  check_instance_types(root, options.unknown_instance_types_are_errors, report);
  check_efa(root, report);
  check_fsx_capacity(root, report);
  check_install_action(root, report);
  check_placeholders(root, options.placeholders_are_errors, report);
  return report.take_sorted();
}

std::vector<Diagnostic> check_cluster_config_file(const std::filesystem::path& file,
                                                  const CheckOptions& options) {
  FileRead read = try_read_regular_file(file, kMaxConfigBytes);
  if (!read.ok()) {
    const std::string what = "cannot read cluster configuration '" + file.string() + "': ";
    switch (read.error_number) {
      case EISDIR:
        throw Error(what + "it is a directory, pass a YAML file");
      case EINVAL:
        throw Error(what + "not a regular file (a FIFO, device or socket), pass a YAML file");
      case EFBIG:
        throw Error(what +
                    "larger than 1 MiB, which no cluster configuration is; pass the "
                    "YAML file");
      default:
        throw Error(what + std::strerror(read.error_number) +
                    ": check that the file exists and is readable");
    }
  }
  return check_cluster_config(file.string(), read.text, options);
}

}  // namespace trn::pcluster
