#pragma once

#include <string>
#include <string_view>

#include "trn/topology/node_topology.hpp"

namespace trn::topology {

// Version of the JSON layout; a cache with another version is rediscovered, not read.
inline constexpr int kTopologyFormat = 1;

std::string topology_to_json(const NodeTopology& topology);

// Throws trn::Error naming `origin` (e.g. the cache file) when the text is not a topology of
// this format.
NodeTopology topology_from_json(std::string_view text, std::string_view origin);

}  // namespace trn::topology
