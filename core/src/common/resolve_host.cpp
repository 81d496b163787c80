#include "trn/common/resolve_host.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <memory>

namespace trn {

std::optional<std::string> resolve_ipv4(const std::string& host, std::string* why) {
  struct addrinfo hints {};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  struct addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    if (why != nullptr) *why = ::gai_strerror(rc);
    return std::nullopt;
  }
  std::unique_ptr<struct addrinfo, decltype(&::freeaddrinfo)> guard(found, ::freeaddrinfo);
  char text[INET_ADDRSTRLEN] = {};
  const auto* address = reinterpret_cast<const struct sockaddr_in*>(found->ai_addr);
  if (::inet_ntop(AF_INET, &address->sin_addr, text, sizeof text) == nullptr) {
    if (why != nullptr) *why = "inet_ntop failed";
    return std::nullopt;
  }
  return std::string(text);
}

}  // namespace trn
