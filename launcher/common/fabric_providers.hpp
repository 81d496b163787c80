#pragma once

#include "trn/health/node_checks.hpp"

namespace trn::launcher {

// The libfabric providers fi_getinfo offers on this machine, each once in fi_getinfo order.
// Only tools call it (trn-topo, trn-health): loading libfabric into slurmstepd is never safe.
health::FabricProviders query_fabric_providers();

}  // namespace trn::launcher
