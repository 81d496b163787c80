#include "node_access.hpp"
#include "placeholder.hpp"
#include "rules.hpp"

namespace trn::pcluster {
namespace {

void visit(const YAML::Node& node, const std::string& path, bool as_errors, Report& report) {
  if (node.IsScalar()) {
    if (!is_placeholder(node.Scalar())) return;
    const std::string message = "placeholder '" + node.Scalar() + "' at " + path +
                                ": replace it with your own value before pcluster "
                                "create-cluster (see pcluster-configs/README.md)";
    if (as_errors) {
      report.error(node.Mark(), message);
    } else {
      report.warning(node.Mark(), message);
    }
  } else if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      visit(node[i], path + "[" + std::to_string(i) + "]", as_errors, report);
    }
  } else if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      visit(it->second, join_path(path, it->first.IsScalar() ? it->first.Scalar() : "?"), as_errors,
            report);
    }
  }
}

}  // namespace

void check_placeholders(const YAML::Node& root, bool as_errors, Report& report) {
  visit(root, "", as_errors, report);
}

}  // namespace trn::pcluster
