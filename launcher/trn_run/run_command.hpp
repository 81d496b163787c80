#pragma once

#include <string>
#include <vector>

namespace trn::launcher {

enum class Mode {
  kRun,      // trn-run: plan, pull the cache, compile, train, resume
  kCompile,  // trn-compile: plan, pull the cache, compile; inside a step, the per-node agent
};

int run_command(const std::vector<std::string>& args, Mode mode);

}  // namespace trn::launcher
