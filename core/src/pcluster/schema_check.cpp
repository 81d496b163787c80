#include "schema_check.hpp"

#include <algorithm>
#include <map>
#include <regex>

#include "node_access.hpp"
#include "placeholder.hpp"
#include "yaml_scalar.hpp"

namespace trn::pcluster {
namespace {

std::string place(const std::string& path) { return path.empty() ? "the top level" : path; }

std::string allowed_keys(const Section& section) {
  std::vector<std::string_view> keys;
  for (const auto& field : section.fields) keys.push_back(field.key);
  std::sort(keys.begin(), keys.end());
  std::string text;
  for (auto key : keys) text += (text.empty() ? "" : ", ") + std::string(key);
  return text;
}

std::string listed(const std::vector<std::string_view>& values) {
  std::string text;
  for (auto value : values) text += (text.empty() ? "" : ", ") + std::string(value);
  return text;
}

void check_string(const Field& field, const YAML::Node& value, const std::string& path,
                  Report& report) {
  if (!value.IsScalar() || resolve_scalar(value) != ScalarType::kString) {
    std::string hint = value.IsScalar() ? " (quote it if you mean the text)" : "";
    report.error(value.Mark(), path + " must be a string, got " + describe_node(value) + hint);
    return;
  }
  const std::string& text = value.Scalar();
  if (is_placeholder(text)) return;  // reported by the placeholder rule
  if (!field.one_of.empty() &&
      std::find(field.one_of.begin(), field.one_of.end(), text) == field.one_of.end()) {
    report.error(value.Mark(), path + " '" + text +
                                   "' is not one of the allowed values: " + listed(field.one_of));
    return;
  }
  if (!field.pattern.empty() && !std::regex_match(text, std::regex(std::string(field.pattern)))) {
    report.error(value.Mark(), path + " '" + text + "' is not valid: expected " +
                                   std::string(field.pattern_meaning));
  }
}

void check_integer(const Field& field, const YAML::Node& value, const std::string& path,
                   Report& report) {
  const auto number = integer_of(value);
  if (!number) {
    report.error(value.Mark(), path + " must be an integer, got " + describe_node(value));
    return;
  }
  if (field.minimum && *number < *field.minimum) {
    report.error(value.Mark(), path + " must be at least " + std::to_string(*field.minimum) +
                                   ", got " + std::to_string(*number));
  }
}

void check_list(const Field& field, const YAML::Node& value, const std::string& path,
                Report& report) {
  if (!value.IsSequence()) {
    report.error(value.Mark(), path + " must be a list, got " + describe_node(value));
    return;
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    const YAML::Node element = value[i];
    const std::string element_path = path + "[" + std::to_string(i) + "]";
    if (field.kind == ValueKind::kStringList) {
      check_string(field, element, element_path, report);
    } else if (!element.IsMap()) {
      report.error(element.Mark(),
                   element_path + " must be a mapping of keys, got " + describe_node(element));
    } else {
      check_section(element, *field.section, element_path, element.Mark(), report);
    }
  }
}

void check_value(const Field& field, const YAML::Node& value, const std::string& path,
                 const YAML::Mark& key_mark, Report& report) {
  if (value.IsNull() && field.kind != ValueKind::kAny) {
    report.error(key_mark, path + " has no value: give it one or remove the key");
    return;
  }
  switch (field.kind) {
    case ValueKind::kString:
      check_string(field, value, path, report);
      break;
    case ValueKind::kInteger:
      check_integer(field, value, path, report);
      break;
    case ValueKind::kNumber:
      if (!is_number(value)) {
        report.error(value.Mark(), path + " must be a number, got " + describe_node(value));
      }
      break;
    case ValueKind::kBoolean:
      if (!boolean_of(value)) {
        report.error(value.Mark(), path + " must be true or false, got " + describe_node(value));
      }
      break;
    case ValueKind::kMap:
      if (!value.IsMap()) {
        report.error(value.Mark(),
                     path + " must be a mapping of keys, got " + describe_node(value));
      } else {
        check_section(value, *field.section, path, key_mark, report);
      }
      break;
    case ValueKind::kStringList:
    case ValueKind::kMapList:
      check_list(field, value, path, report);
      break;
    case ValueKind::kCustomAction:
      check_custom_action(value, path, key_mark, report);
      break;
    case ValueKind::kAny:
      break;
  }
}

}  // namespace

void check_section(const YAML::Node& map, const Section& section, const std::string& path,
                   const YAML::Mark& where, Report& report) {
  std::map<std::string, YAML::Mark> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    const YAML::Node key = it->first;
    if (!key.IsScalar()) {
      report.error(key.Mark(),
                   "keys in " + place(path) + " must be plain names, got " + describe_node(key));
      continue;
    }
    const std::string& name = key.Scalar();
    const auto [first, inserted] = seen.emplace(name, key.Mark());
    if (!inserted) {
      report.error(key.Mark(), "duplicate key '" + name + "' in " + place(path) +
                                   " (first at line " + std::to_string(first->second.line + 1) +
                                   "): ParallelCluster rejects duplicate keys, keep only one");
      continue;
    }
    const Field* field = section.find(name);
    if (field == nullptr) {
      report.error(key.Mark(), "unknown key '" + name + "' in " + place(path) +
                                   "; allowed keys: " + allowed_keys(section));
      continue;
    }
    check_value(*field, it->second, join_path(path, name), key.Mark(), report);
  }
  for (const auto& field : section.fields) {
    if (field.required && seen.count(std::string(field.key)) == 0) {
      report.error(where, (path.empty() ? std::string("the configuration") : path) +
                              " is missing the required key '" + std::string(field.key) + "'");
    }
  }
}

void check_custom_action(const YAML::Node& value, const std::string& path, const YAML::Mark& where,
                         Report& report) {
  if (!value.IsMap()) {
    report.error(value.Mark(), path +
                                   " must be a mapping with Script (and Args) or Sequence, got " +
                                   describe_node(value));
    return;
  }
  const auto sequence_key = key_mark(value, "Sequence");
  const bool has_script = key_mark(value, "Script").has_value();
  if (has_script && sequence_key) {
    report.error(*sequence_key, path +
                                    " sets both Script and Sequence: use Script (with Args) for "
                                    "one script or Sequence for several, not both");
    return;
  }
  if (!has_script && !sequence_key) {
    report.error(where, path + " needs Script (with optional Args) or Sequence");
    return;
  }
  if (has_script) {
    check_section(value, custom_action_script_section(), path, where, report);
    return;
  }
  static const Section sequence_only{{{.key = "Sequence",
                                       .kind = ValueKind::kMapList,
                                       .required = true,
                                       .section = &custom_action_script_section()}}};
  check_section(value, sequence_only, path, where, report);
}

}  // namespace trn::pcluster
