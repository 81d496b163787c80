#include "trn/pcluster/config_check.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "merge_keys.hpp"
#include "report.hpp"
#include "rules.hpp"
#include "schema_check.hpp"
#include "trn/common/error.hpp"
#include "trn/common/text_file.hpp"
#include "yaml_scalar.hpp"

namespace trn::pcluster {
namespace {

// Where each document of a YAML stream starts; the documents themselves are loaded afterwards.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  std::vector<YAML::Mark> starts;
};

std::optional<YAML::Node> parse(std::string_view yaml_text, Report& report) {
  try {
    // Not YAML::LoadAll: yaml-cpp 0.7's never returns on a stream where a node would start at a
    // ',' (its parser reads the same empty document there forever, filling memory; fixed in
    // 0.8). Every other document moves on through the text, so the count is bounded.
    std::istringstream stream{std::string(yaml_text)};
    YAML::Parser parser(stream);
    DocumentStarts documents;
    while (parser.HandleNextDocument(documents)) {
      const auto& starts = documents.starts;
      if (starts.size() < 2 || starts.back().pos != starts[starts.size() - 2].pos) continue;
      const auto at = static_cast<std::size_t>(starts.back().pos);
      report.error(starts.back(), "not valid YAML: unexpected '" +
                                      std::string(yaml_text.substr(at, 1)) +
                                      "' where a value should start");
      return std::nullopt;
    }
    if (documents.starts.size() > 1) {
      // pcluster (PyYAML's safe_load) refuses a stream of several documents.
      report.error(documents.starts[1], "the file holds " +
                                            std::to_string(documents.starts.size()) +
                                            " YAML documents; a cluster configuration is one "
                                            "(remove the '---' and what follows it)");
      return std::nullopt;
    }
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
  merge_keys(root, report);
  check_section(root, cluster_section(), "", root.Mark(), report);
  check_scheduling(root, report);
  check_resource_names(root, report);
  check_compute_resources(root, report);
  check_instance_types(root, options.unknown_instance_types_are_errors, report);
  check_efa(root, report);
  check_fsx_capacity(root, report);
  check_install_action(root, report);
  check_training_stack(root, report);
  check_capacity_blocks(root, report);
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
