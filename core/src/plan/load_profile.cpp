#include "trn/plan/load_profile.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "profile_fields.hpp"
#include "suggest.hpp"
#include "trn/common/error.hpp"
#include "trn/common/text_file.hpp"
#include "trn/common/utf8.hpp"
#include "trn/plan/command_template.hpp"

namespace trn::plan {
namespace {

// Reads one profile document, turning every problem into "SOURCE:LINE:COLUMN: ...".
class ProfileReader {
 public:
  explicit ProfileReader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& problem) const {
    // yaml-cpp counts from 0; editors and compilers count from 1.
    const int line = mark.is_null() ? 1 : mark.line + 1;
    const int column = mark.is_null() ? 1 : mark.column + 1;
    throw Error(source_ + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
                problem);
  }

  static std::string describe(const YAML::Node& node) {
    if (node.IsSequence()) return "a list";
    if (node.IsMap()) return "a mapping";
    if (node.IsNull()) return "nothing";
    // A file that is no profile at all (/etc/passwd) reads as one long scalar: quote its start.
    constexpr std::size_t kMaxQuoted = 60;
    const std::string& text = node.Scalar();
    if (text.size() <= kMaxQuoted) return "'" + text + "'";
    return "'" + text.substr(0, kMaxQuoted) + "...' (" + std::to_string(text.size()) +
           " characters)";
  }

  // For a key that wants one value: YAML reads an unquoted {placeholder} as a mapping.
  static std::string describe_as_value(const YAML::Node& node) {
    if (node.IsMap() && node.Style() == YAML::EmitterStyle::Flow) {
      return "a mapping (YAML reads an unquoted '{...}' as one: quote the value, e.g. "
             "\"{run_dir}/cache\")";
    }
    return describe(node);
  }

  // Where a value's problem is reported: the value, or its key when the value has no place
  // of its own (an empty value).
  static YAML::Mark place(const YAML::Node& value, const YAML::Mark& key_mark) {
    return value.Mark().is_null() || value.IsNull() ? key_mark : value.Mark();
  }

  void read(const YAML::Node& root, Profile& profile) const {
    if (!root.IsDefined() || root.IsNull()) {
      fail(YAML::Mark(),
           "the profile is empty: write a mapping with at least command, "
           "micro_batch, global_batch and steps");
    }
    if (!root.IsMap()) {
      fail(root.Mark(), "a profile is a mapping of keys (command: ..., micro_batch: ...), got " +
                            describe(root));
    }
    std::map<std::string, YAML::Mark> seen;
    for (auto it = root.begin(); it != root.end(); ++it) {
      const YAML::Node key = it->first;
      const YAML::Node value = it->second;
      if (!key.IsScalar()) fail(key.Mark(), "keys must be plain names, got " + describe(key));
      const std::string& name = key.Scalar();
      check_unique(seen, name, key.Mark(), "");
      if (name == "env") {
        read_env(value, key.Mark(), profile);
      } else if (name == "command" && value.IsSequence()) {
        read_command_list(value, key.Mark(), profile);
      } else {
        read_scalar(name, value, key.Mark(), profile);
      }
    }
    const std::string missing = missing_required(profile);
    if (!missing.empty()) fail(root.Mark(), missing);
  }

 private:
  void check_unique(std::map<std::string, YAML::Mark>& seen, const std::string& name,
                    const YAML::Mark& mark, const std::string& in) const {
    const auto [first, inserted] = seen.emplace(name, mark);
    if (!inserted) {
      fail(mark, "duplicate key '" + name + "'" + in + " (first at line " +
                     std::to_string(first->second.line + 1) + "): keep only one");
    }
  }

  void read_scalar(const std::string& name, const YAML::Node& value, const YAML::Mark& key_mark,
                   Profile& profile) const {
    const Field* field = find_field(name);
    if (field == nullptr) {
      const std::string suggestion = did_you_mean(name, all_key_names());
      fail(key_mark, "unknown key '" + name + "'" + suggestion +
                         (suggestion.empty() ? "; keys: " + join_names(all_key_names()) : ""));
    }
    if (!value.IsScalar()) {
      fail(place(value, key_mark),
           std::string(field->doc.key) + " must be " + std::string(field->doc.accepts) + " (" +
               std::string(field->doc.meaning) + "), got " + describe_as_value(value));
    }
    std::string problem;
    if (!field->set(profile, value.Scalar(), problem)) {
      fail(value.Mark(), problem.empty() ? wrong_value(*field, value.Scalar()) : problem);
    }
  }

  void read_command_list(const YAML::Node& list, const YAML::Mark& key_mark,
                         Profile& profile) const {
    std::vector<std::string> words;
    for (const auto& word : list) {
      if (!word.IsScalar()) {
        fail(place(word, key_mark),
             "command list items are single words (text), got " + describe_as_value(word));
      }
      const std::string problem = check_command_words({word.Scalar()});
      if (!problem.empty()) fail(word.Mark(), problem);
      words.push_back(word.Scalar());
    }
    if (words.empty()) fail(key_mark, "command is an empty list: give the training command");
    profile.command = std::move(words);
  }

  void read_env(const YAML::Node& env, const YAML::Mark& key_mark, Profile& profile) const {
    if (env.IsNull()) return;
    if (!env.IsMap()) {
      fail(place(env, key_mark), "env must be a mapping of NAME: value, got " + describe(env));
    }
    std::map<std::string, YAML::Mark> seen;
    for (auto it = env.begin(); it != env.end(); ++it) {
      const YAML::Node name = it->first;
      const YAML::Node value = it->second;
      if (!name.IsScalar()) fail(name.Mark(), "env names must be text, got " + describe(name));
      check_unique(seen, name.Scalar(), name.Mark(), " in env");
      if (!value.IsScalar()) {
        fail(place(value, name.Mark()), "env." + name.Scalar() +
                                            " must be a single value (quote it for text), got " +
                                            describe_as_value(value));
      }
      const std::string problem = set_env_entry(profile, name.Scalar(), value.Scalar());
      if (!problem.empty())
        fail(problem.starts_with("env name") ? name.Mark() : value.Mark(), problem);
    }
  }

  std::string source_;
};

}  // namespace

Profile parse_profile(std::string_view yaml_text, const std::string& source, std::string name) {
  YAML::Node root;
  ProfileReader reader(source);
  // The profile's strings go into plan.json and results.json, whose strings must be UTF-8.
  if (const auto bad = first_invalid_utf8(yaml_text)) {
    YAML::Mark mark;
    const auto before = yaml_text.substr(0, *bad);
    mark.line = static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    const auto line_start = before.rfind('\n');
    mark.column =
        static_cast<int>(line_start == std::string_view::npos ? *bad : *bad - line_start - 1);
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(yaml_text[*bad]));
    reader.fail(mark, std::string("not UTF-8 text (byte ") + byte + "); save the profile as UTF-8");
  }
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    reader.fail(e.mark, "not valid YAML: " + e.msg + "; fix the syntax there");
  }
  Profile profile;
  profile.name = std::move(name);
  profile.source = source;
  reader.read(root, profile);
  return profile;
}

Profile load_profile_file(const std::filesystem::path& file, std::string name) {
  const auto read = try_read_regular_file(file, kMaxTextFileBytes);
  if (!read.ok()) {
    throw Error(file.string() + ": cannot read the profile (" + read_failure_reason(read) +
                "): check the path and its permissions");
  }
  if (name.empty()) name = file.stem().string();
  return parse_profile(read.text, file.string(), std::move(name));
}

}  // namespace trn::plan
