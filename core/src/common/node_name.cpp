#include "trn/common/node_name.hpp"

#include <unistd.h>

#include <array>

#include "trn/common/env_value.hpp"

namespace trn {

std::string this_node_name() {
  if (auto name = env_value("SLURMD_NODENAME"); name && !name->empty()) return *name;
  std::array<char, 256> host{};
  ::gethostname(host.data(), host.size() - 1);
  std::string name = host.data();
  return name.substr(0, name.find('.'));
}

std::string expand_node_name(std::string_view text, std::string_view node) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 1 < text.size() && text[i + 1] == 'n') {
      out += node;
      ++i;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace trn
