#pragma once

#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "trn/common/unique_fd.hpp"

// TCP between the nodes of a step, with deadlines: every socket is non-blocking and every wait
// is a poll(2) bounded by the caller's deadline, so a node that stops answering never blocks
// the caller past it.
namespace trn::tcp {

using Clock = std::chrono::steady_clock;

struct Endpoint {
  sockaddr_storage address{};
  socklen_t length = 0;
};

// `host`'s IPv4 address and `port`; nullopt with `why` set when the name does not resolve.
std::optional<Endpoint> resolve(const std::string& host, std::uint16_t port, std::string& why);

// One connection attempt, waiting at most a second (or what is left until `deadline`) for the
// peer's answer; an invalid fd with `why` set when refused or unanswered.
UniqueFd connect_once(const Endpoint& endpoint, Clock::time_point deadline, std::string& why);

// A listening socket on `port` of `host` (an IPv4 address; empty: every address).
UniqueFd listen_on(const std::string& host, std::uint16_t port, std::string& why);

// Accepts one connection within the deadline (a non-blocking socket); invalid when none came.
UniqueFd accept_before(int listener, Clock::time_point deadline);

// Sends or receives exactly `size` bytes, never past the deadline; false when the peer closed,
// failed or was too slow.
bool send_all(int fd, const char* data, std::size_t size, Clock::time_point deadline);
bool receive_all(int fd, char* data, std::size_t size, Clock::time_point deadline);

// Receives what has arrived, up to `size` bytes, waiting for the first byte until the deadline:
// the count, 0 when the peer closed the connection, nullopt on an error or the deadline.
std::optional<std::size_t> receive_some(int fd, char* data, std::size_t size,
                                        Clock::time_point deadline);

}  // namespace trn::tcp
