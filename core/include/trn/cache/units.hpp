#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

// The sizes and ages trn-cache takes on its command line.
namespace trn::cache {

// "1073741824", "512K", "500M", "1.5G", "2T" (binary units; an optional "B"/"iB" suffix:
// "10GiB", "10GB" are both 10 x 2^30). `what` names the input in the error.
std::uintmax_t parse_size(std::string_view text, std::string_view what);

// "90s", "30m", "1h", "7d", "2w"; a bare number is seconds. `what` names the input.
std::chrono::seconds parse_age(std::string_view text, std::string_view what);

// 1536 -> "1.5 KiB", 0 -> "0 B".
std::string format_bytes(std::uintmax_t bytes);

}  // namespace trn::cache
