#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace trn::plan {

// Splits a command line into words as a POSIX shell would, without expanding anything:
// blanks separate words, '...' is literal, "..." is literal but for \" and \\, and a backslash
// outside quotes takes the next character literally. The words are split BEFORE placeholders
// are filled in, so a value holding a blank stays one word. Throws trn::Error on an unclosed
// quote.
std::vector<std::string> split_command_words(std::string_view text);

// The placeholders a command or env template may use, sorted.
const std::vector<std::string>& known_placeholders();

// The placeholder names in one template word or value, in order. "{{" and "}}" stand for
// literal braces. Throws trn::Error for an unknown placeholder (naming it, suggesting a close
// known one and listing them all) or an unbalanced brace.
std::vector<std::string> placeholders_in(std::string_view text);

// Values by placeholder name. A known placeholder missing here has no value in this plan
// (e.g. the profile sets no lr): using it is an error that says which key to set.
using PlaceholderValues = std::map<std::string, std::string, std::less<>>;

// Fills the placeholders of one word or value.
std::string render_template(std::string_view text, const PlaceholderValues& values);

// Fills every word of a command template; the result is the argv to run.
std::vector<std::string> render_command(const std::vector<std::string>& words,
                                        const PlaceholderValues& values);

// argv as a shell would need it typed (quoted where needed), for people and logs.
std::string display_command(const std::vector<std::string>& argv);

}  // namespace trn::plan
