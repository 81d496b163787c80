#include "trn/common/tcp.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "trn/common/deadline.hpp"

namespace trn::tcp {
namespace {

int remaining_ms(Clock::time_point deadline) {
  return static_cast<int>(
      std::min<std::chrono::milliseconds::rep>(time_left(deadline).count(), 1 << 30));
}

// Waits until `fd` is ready for `events` or the deadline passes.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  while (true) {
    pollfd p{fd, events, 0};
    const int ready = ::poll(&p, 1, remaining_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    return ready > 0;
  }
}

}  // namespace

std::optional<Endpoint> resolve(const std::string& host, std::uint16_t port, std::string& why) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0 || found == nullptr) {
    why = std::string("cannot resolve ") + host + ": " + ::gai_strerror(rc);
    return std::nullopt;
  }
  Endpoint endpoint;
  endpoint.length = found->ai_addrlen;
  std::memcpy(&endpoint.address, found->ai_addr, found->ai_addrlen);
  ::freeaddrinfo(found);
  return endpoint;
}

UniqueFd connect_once(const Endpoint& endpoint, Clock::time_point deadline, std::string& why) {
  UniqueFd fd(::socket(endpoint.address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) {
    why = std::strerror(errno);
    return UniqueFd();
  }
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&endpoint.address), endpoint.length) !=
          0 &&
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

UniqueFd listen_on(const std::string& host, std::uint16_t port, std::string& why) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
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

UniqueFd accept_before(int listener, Clock::time_point deadline) {
  while (remaining_ms(deadline) > 0) {
    if (!wait_for(listener, POLLIN, deadline)) break;
    const int client = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (client >= 0) return UniqueFd(client);
    if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) break;
  }
  return UniqueFd();
}

bool send_all(int fd, const char* data, std::size_t size, Clock::time_point deadline) {
  std::size_t done = 0;
  while (done < size) {
    if (!wait_for(fd, POLLOUT, deadline)) return false;
    const ssize_t n = ::send(fd, data + done, size - done, MSG_NOSIGNAL);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

bool receive_all(int fd, char* data, std::size_t size, Clock::time_point deadline) {
  std::size_t done = 0;
  while (done < size) {
    const auto n = receive_some(fd, data + done, size - done, deadline);
    if (!n || *n == 0) return false;
    done += *n;
  }
  return true;
}

std::optional<std::size_t> receive_some(int fd, char* data, std::size_t size,
                                        Clock::time_point deadline) {
  while (true) {
    if (!wait_for(fd, POLLIN, deadline)) return std::nullopt;
    const ssize_t n = ::recv(fd, data, size, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) return std::nullopt;
    return static_cast<std::size_t>(n);
  }
}

}  // namespace trn::tcp
