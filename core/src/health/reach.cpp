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
#include "trn/common/tcp.hpp"
#include "trn/common/unique_fd.hpp"

namespace trn::health {
namespace {

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
  return static_cast<int>(time_left(deadline).count());  // poll(2)'s unit
}

struct PeerResult {
  bool reached = false;
  double round_trip_s = 0;
  std::string why;
};

PeerResult probe_peer(const ReachPeer& peer, std::uint32_t self, std::uint16_t port,
                      std::size_t payload_bytes, Clock::time_point deadline) {
  PeerResult result;
  const auto endpoint = tcp::resolve(peer.host, port, result.why);
  if (!endpoint) return result;
  std::string message(4 + payload_bytes, '\x5a');
  const std::uint32_t index = htonl(self);
  std::memcpy(message.data(), &index, 4);
  // A refused connection is a peer whose task is not listening yet. The retries back off, 10 ms
  // doubling up to 250 ms: every node probes every other at once, and N x (N - 1) probes each
  // retrying 100 times a second would flood the network (on the local cluster, the shared
  // CPUs) while the step's tasks start.
  auto pause = std::chrono::milliseconds(10);
  while (remaining_ms(deadline) > 0) {
    UniqueFd fd = tcp::connect_once(*endpoint, deadline, result.why);
    if (!fd.valid()) {
      std::this_thread::sleep_for(
          std::min(pause, std::chrono::milliseconds(remaining_ms(deadline))));
      pause = std::min(pause * 2, std::chrono::milliseconds(250));
      continue;
    }
    const auto start = Clock::now();
    std::string echo(payload_bytes, '\0');
    if (tcp::send_all(fd.get(), message.data(), message.size(), deadline) &&
        tcp::receive_all(fd.get(), echo.data(), echo.size(), deadline) &&
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
      if (!tcp::receive_all(fd.get(), message.data(), message.size(), deadline)) return;
      std::uint32_t index = 0;
      std::memcpy(&index, message.data(), 4);
      if (!tcp::send_all(fd.get(), message.data() + 4, payload_bytes, deadline)) return;
      std::lock_guard lock(mutex);
      if (heard.insert(ntohl(index)).second) ++done;
    });
  }
  for (auto& session : sessions) session.join();
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
      tcp::listen_on(options.listen_on_own_host ? options.peers[options.self].host : std::string(),
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
