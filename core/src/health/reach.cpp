// The all-to-all: every node listens on the step's port and, at the same time, connects to
// every other node, sends its index and a payload and waits for the echo. Refused connections
// are retried (the peer's task may start later) until the deadline.
#include "trn/health/reach.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include "trn/common/deadline.hpp"
#include "trn/common/unique_fd.hpp"

namespace trn::health {
namespace {

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
  return static_cast<int>(time_left(deadline).count());  // poll(2)'s unit
}

// Moves `size` bytes in the direction `send_side`, never past the deadline.
bool transfer(int fd, char* data, std::size_t size, bool send_side, Clock::time_point deadline) {
  std::size_t done = 0;
  while (done < size) {
    pollfd p{fd, static_cast<short>(send_side ? POLLOUT : POLLIN), 0};
    const int ready = ::poll(&p, 1, remaining_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    const ssize_t n = send_side ? ::send(fd, data + done, size - done, MSG_NOSIGNAL)
                                : ::recv(fd, data + done, size - done, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

UniqueFd connect_once(const sockaddr_storage& address, socklen_t length, Clock::time_point deadline,
                      std::string& why) {
  UniqueFd fd(::socket(address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    why = std::strerror(errno);
    return UniqueFd();
  }
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), length) != 0 &&
      errno != EINPROGRESS) {
    why = std::strerror(errno);
    return UniqueFd();
  }
  pollfd p{fd.get(), POLLOUT, 0};
  if (::poll(&p, 1, std::min(remaining_ms(deadline), 1000)) <= 0) {
    why = "no answer";
    return UniqueFd();
  }
  int error = 0;
  socklen_t size = sizeof error;
  ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &size);
  if (error != 0) {
    why = std::strerror(error);
    return UniqueFd();
  }
  return fd;
}

struct PeerResult {
  bool reached = false;
  double round_trip_s = 0;
  std::string why;
};

PeerResult probe_peer(const ReachPeer& peer, std::uint32_t self, std::uint16_t port,
                      std::size_t payload_bytes, Clock::time_point deadline) {
  PeerResult result;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(peer.host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0 || found == nullptr) {
    result.why = std::string("cannot resolve ") + peer.host + ": " + ::gai_strerror(rc);
    return result;
  }
  sockaddr_storage address{};
  const socklen_t length = found->ai_addrlen;
  std::memcpy(&address, found->ai_addr, found->ai_addrlen);
  ::freeaddrinfo(found);
  std::string message(4 + payload_bytes, '\x5a');
  const std::uint32_t index = htonl(self);
  std::memcpy(message.data(), &index, 4);
  // A refused connection is a peer whose task is not listening yet. The retries back off, 10 ms
  // doubling up to 250 ms: every node probes every other at once, and N x (N - 1) probes each
  // retrying 100 times a second would flood the network (on the local cluster, the shared
  // CPUs) while the step's tasks start.
  auto pause = std::chrono::milliseconds(10);
  while (remaining_ms(deadline) > 0) {
    UniqueFd fd = connect_once(address, length, deadline, result.why);
    if (!fd.valid()) {
      std::this_thread::sleep_for(
          std::min(pause, std::chrono::milliseconds(remaining_ms(deadline))));
      pause = std::min(pause * 2, std::chrono::milliseconds(250));
      continue;
    }
    const auto start = Clock::now();
    std::string echo(payload_bytes, '\0');
    if (transfer(fd.get(), message.data(), message.size(), true, deadline) &&
        transfer(fd.get(), echo.data(), echo.size(), false, deadline) &&
        echo == message.substr(4)) {
      result.reached = true;
      result.round_trip_s = std::chrono::duration<double>(Clock::now() - start).count();
      return result;
    }
    result.why = "the exchange did not complete";
  }
  if (result.why.empty()) result.why = "no answer";
  return result;
}

// Serves peers until every other node has been heard from or the deadline passes; records who.
void serve(int listener, std::size_t peers, std::size_t payload_bytes, Clock::time_point deadline,
           std::set<std::uint32_t>& heard, std::mutex& mutex) {
  std::vector<std::thread> sessions;
  std::atomic<std::size_t> done{0};
  while (remaining_ms(deadline) > 0 && done.load() + 1 < peers) {
    pollfd p{listener, POLLIN, 0};
    // Short slices: the last session may finish (done) while we wait for a new connection.
    if (::poll(&p, 1, std::min(remaining_ms(deadline), 5)) <= 0) continue;
    const int client = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (client < 0) continue;
    sessions.emplace_back([&, client] {
      UniqueFd fd(client);
      std::string message(4 + payload_bytes, '\0');
      if (!transfer(fd.get(), message.data(), message.size(), false, deadline)) return;
      std::uint32_t index = 0;
      std::memcpy(&index, message.data(), 4);
      if (!transfer(fd.get(), message.data() + 4, payload_bytes, true, deadline)) return;
      std::lock_guard lock(mutex);
      if (heard.insert(ntohl(index)).second) ++done;
    });
  }
  for (auto& session : sessions) session.join();
}

UniqueFd listen_on(const std::string& host, std::uint16_t port, std::string& why) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const int on = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  if (!host.empty() && ::inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1) {
    why = "cannot listen on " + host + ": not an IPv4 address";
    return UniqueFd();
  }
  if (!fd.valid() || ::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(fd.get(), 128) != 0) {
    why = "cannot listen on port " + std::to_string(port) + ": " + std::strerror(errno);
    return UniqueFd();
  }
  return fd;
}

}  // namespace

ReachOutcome check_reach(const ReachOptions& options) {
  ReachOutcome outcome;
  outcome.result.check = "reach";
  const auto started = Clock::now();
  const auto deadline = started + options.deadline;
  if (options.peers.size() < 2) {
    outcome.result.status = CheckStatus::kSkipped;
    outcome.result.evidence = "one node: nothing to reach";
    return outcome;
  }
  std::string why;
  UniqueFd listener =
      listen_on(options.listen_on_own_host ? options.peers[options.self].host : std::string(),
                options.port, why);
  if (!listener.valid()) {
    outcome.result.status = CheckStatus::kWarning;  // could not run: never a reason to drain
    outcome.result.evidence = why;
    return outcome;
  }
  std::set<std::uint32_t> heard;
  std::mutex mutex;
  std::thread server([&] {
    serve(listener.get(), options.peers.size(), options.payload_bytes, deadline, heard, mutex);
  });
  std::vector<PeerResult> results(options.peers.size());
  std::vector<std::thread> probes;
  for (std::size_t i = 0; i < options.peers.size(); ++i) {
    if (i == options.self) continue;
    probes.emplace_back([&, i] {
      results[i] = probe_peer(options.peers[i], static_cast<std::uint32_t>(options.self),
                              options.port, options.payload_bytes, deadline);
    });
  }
  for (auto& probe : probes) probe.join();
  server.join();

  double slowest = 0;
  std::string slowest_node;
  std::string first_problem;
  for (std::size_t i = 0; i < options.peers.size(); ++i) {
    if (i == options.self) continue;
    const auto& peer = options.peers[i];
    const bool heard_from = heard.count(static_cast<std::uint32_t>(i)) > 0;
    if (!results[i].reached) {
      outcome.unreached.push_back(peer.node);
      if (first_problem.empty())
        first_problem = "cannot reach " + peer.node + " (" + results[i].why + ")";
    } else if (!heard_from && first_problem.empty()) {
      first_problem = peer.node + " never reached this node";
    }
    if (results[i].round_trip_s >= slowest) {
      slowest = results[i].round_trip_s;
      slowest_node = peer.node;
    }
  }
  const auto limit = std::to_string(options.deadline.count()) + " ms";
  if (!first_problem.empty()) {
    outcome.result.status = CheckStatus::kFailed;
    outcome.result.evidence = first_problem + " within " + limit;
    if (outcome.unreached.size() > 1)
      outcome.result.evidence +=
          "; " + std::to_string(outcome.unreached.size()) + " peers unreached";
  } else {
    char text[160];
    std::snprintf(text, sizeof text, "%zu peers reached, slowest round trip %.1f ms (%s)",
                  options.peers.size() - 1, slowest * 1000, slowest_node.c_str());
    outcome.result.evidence = text;
  }
  outcome.result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return outcome;
}

}  // namespace trn::health
