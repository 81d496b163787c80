#pragma once

#include <string>
#include <vector>

namespace trn::topo_tool {

// The libfabric providers fi_getinfo offers on this machine (outside slurmstepd, so loading
// libfabric here is harmless).
struct FabricReport {
  std::vector<std::string> providers;  // in fi_getinfo order, each once
  std::string error;                   // fi_getinfo's error, when it failed
};

FabricReport query_fabric();

}  // namespace trn::topo_tool
