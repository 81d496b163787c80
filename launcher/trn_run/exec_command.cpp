#include "exec_command.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

namespace trn::launcher {

int exec_command(const std::vector<std::string>& command, std::string_view who) {
  std::vector<char*> argv;
  argv.reserve(command.size() + 1);
  for (const auto& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv.front(), argv.data());
  const int error = errno;
  std::cerr << who << ": cannot run " << command.front() << ": " << std::strerror(error) << '\n';
  return error == ENOENT ? 127 : 126;
}

}  // namespace trn::launcher
