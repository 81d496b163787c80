#include "trn/pcluster/config_check.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "report.hpp"
#include "rules.hpp"
#include "schema_check.hpp"
#include "trn/common/error.hpp"
#include "yaml_scalar.hpp"

namespace trn::pcluster {
namespace {

std::optional<YAML::Node> parse(std::string_view yaml_text, Report& report) {
  try {
    return YAML::Load(std::string(yaml_text));
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
  check_section(root, cluster_section(), "", root.Mark(), report);
  check_scheduling(root, report);
  check_resource_names(root, report);
  check_compute_resources(root, report);
  check_efa(root, report);
  check_fsx_capacity(root, report);
  check_install_action(root, report);
  check_placeholders(root, options.placeholders_are_errors, report);
  return report.take_sorted();
}

std::vector<Diagnostic> check_cluster_config_file(const std::filesystem::path& file,
                                                  const CheckOptions& options) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    throw Error("cannot read cluster configuration '" + file.string() +
                "': it is a directory, pass a YAML file");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw Error("cannot read cluster configuration '" + file.string() +
                "': check that the file exists and is readable");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    throw Error("cannot read cluster configuration '" + file.string() + "': read error");
  }
  return check_cluster_config(file.string(), text.str(), options);
}

}  // namespace trn::pcluster
