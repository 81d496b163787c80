#include "trn/cache/spread.hpp"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "directory.hpp"
#include "staging.hpp"
#include "trn/cache/cache_stream.hpp"
#include "trn/common/error.hpp"
#include "trn/common/tcp.hpp"
#include "trn/common/unique_fd.hpp"

namespace trn::cache {
namespace {

using Clock = tcp::Clock;

// Sends to a connected socket (the upstream end of a node that reads the shared tier itself).
class SocketSink : public ByteSink {
 public:
  explicit SocketSink(int fd) : fd_(fd) {}
  void write(const char* data, std::size_t size) override {
    if (!tcp::send_all(fd_, data, size, Clock::time_point::max())) {
      throw Error("the spread stopped reading the shared tier's stream");
    }
  }

 private:
  int fd_;
};

// Reads the parent's stream and forwards every byte to the children as it arrives. A child that
// does not take the bytes within `idle` is dropped (its subtree falls back to the shared tier);
// the parent's silence for `upstream_idle` ends the stream (none: the shared tier's reader on
// this node, whose file system is waited for however slow).
class ForwardingSource : public ByteSource {
 public:
  struct Child {
    std::string host;
    UniqueFd fd;
  };
  ForwardingSource(int upstream, std::optional<std::chrono::milliseconds> upstream_idle,
                   std::chrono::milliseconds idle, std::vector<Child>& children,
                   std::vector<std::string>& lost)
      : upstream_(upstream),
        upstream_idle_(upstream_idle),
        idle_(idle),
        children_(children),
        lost_(lost) {}

  std::size_t read_some(char* data, std::size_t size) override {
    const auto deadline =
        upstream_idle_ ? Clock::now() + *upstream_idle_ : Clock::time_point::max();
    const auto got = tcp::receive_some(upstream_, data, size, deadline);
    if (!got) {
      throw Error("the parent sent nothing for " +
                  std::to_string(upstream_idle_.value_or(idle_).count() / 1000) + " s");
    }
    for (auto& child : children_) {
      if (!child.fd.valid()) continue;
      if (!tcp::send_all(child.fd.get(), data, *got, Clock::now() + idle_)) {
        lost_.push_back(child.host);
        child.fd = UniqueFd();
      }
    }
    return *got;
  }

 private:
  int upstream_;
  std::optional<std::chrono::milliseconds> upstream_idle_;
  std::chrono::milliseconds idle_;
  std::vector<Child>& children_;
  std::vector<std::string>& lost_;
};

// Streams the shared tier's complete entries into one end of a socket pair, on a thread of its
// own, so a node that reads the shared tier forwards like any other.
class SharedTierReader {
 public:
  SharedTierReader(const std::filesystem::path& shared_root,
                   const std::optional<std::string>& compiler_version) {
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
      throw Error(std::string("cannot make a socket pair for the cache spread: ") +
                  std::strerror(errno));
    }
    read_end_ = UniqueFd(ends[0]);
    UniqueFd write_end(ends[1]);
    thread_ =
        std::thread([this, shared_root, compiler_version, fd = std::move(write_end)]() mutable {
          try {
            SocketSink sink(fd.get());
            counts_ = write_cache_stream(shared_root, compiler_version, sink);
          } catch (const std::exception& e) {
            problem_ = e.what();
          }
        });
  }
  SharedTierReader(const SharedTierReader&) = delete;
  SharedTierReader& operator=(const SharedTierReader&) = delete;
  ~SharedTierReader() { finish(); }

  int fd() const { return read_end_.get(); }
  // Stops the writer (it may be blocked on a reader that gave up) and waits for it.
  void finish() {
    if (!thread_.joinable()) return;
    ::shutdown(read_end_.get(), SHUT_RDWR);
    thread_.join();
  }
  const StreamCounts& counts() const { return counts_; }  // after finish()
  const std::string& problem() const { return problem_; }

 private:
  UniqueFd read_end_;
  std::thread thread_;
  StreamCounts counts_;
  std::string problem_;
};

// The parent's stream: connected (retried until the deadline, as its task may start later) and
// told which node this is.
UniqueFd connect_to_parent(const std::string& host, std::uint16_t port, std::uint32_t self,
                           Clock::time_point deadline, std::string& why) {
  const auto endpoint = tcp::resolve(host, port, why);
  if (!endpoint) return UniqueFd();
  auto pause = std::chrono::milliseconds(10);
  while (Clock::now() < deadline) {
    UniqueFd fd = tcp::connect_once(*endpoint, deadline, why);
    if (fd.valid()) {
      const std::uint32_t index = htonl(self);
      if (tcp::send_all(fd.get(), reinterpret_cast<const char*>(&index), 4, deadline)) return fd;
      why = "the connection closed";
      continue;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(250));
  }
  why = "cannot reach " + host + " (" + why + ")";
  return UniqueFd();
}

// This node's children, as they connect, until all came or the deadline passed.
std::vector<ForwardingSource::Child> accept_children(int listener, const SpreadOptions& options,
                                                     const std::vector<std::size_t>& expected,
                                                     Clock::time_point deadline) {
  std::vector<ForwardingSource::Child> children(expected.size());
  std::size_t arrived = 0;
  while (arrived < expected.size()) {
    UniqueFd fd = tcp::accept_before(listener, deadline);
    if (!fd.valid()) break;
    std::uint32_t index = 0;
    if (!tcp::receive_all(fd.get(), reinterpret_cast<char*>(&index), 4,
                          std::min(deadline, Clock::now() + std::chrono::seconds(2)))) {
      continue;
    }
    const auto which = std::find(expected.begin(), expected.end(), ntohl(index));
    if (which == expected.end()) continue;  // not one of ours: a stray connection
    auto& child = children[static_cast<std::size_t>(which - expected.begin())];
    if (!child.fd.valid()) arrived++;
    child = {options.hosts[*which], std::move(fd)};
  }
  return children;
}

// A private folder for what arrives, removed when the spread ends. The inboxes of spreads that
// were killed (their maker gone) are removed first.
class Inbox {
 public:
  explicit Inbox(const std::filesystem::path& local_root) {
    std::filesystem::create_directories(local_root);
    detail::remove_stale_temps(local_root);
    path_ = detail::make_temp_dir(local_root);
  }
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;
  ~Inbox() { detail::remove_tree(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace

SpreadTreePosition spread_tree_position(std::size_t self, std::size_t nodes, std::size_t fanout) {
  if (fanout == 0) throw Error("the spread's fanout must be at least 1");
  SpreadTreePosition position;
  if (self > 0) position.parent = (self - 1) / fanout;
  for (std::size_t child = fanout * self + 1; child <= fanout * self + fanout && child < nodes;
       ++child) {
    position.children.push_back(child);
  }
  return position;
}

SpreadReport spread(const SpreadOptions& options) {
  const auto started = Clock::now();
  if (options.self >= options.hosts.size()) {
    throw Error("the spread's node " + std::to_string(options.self) + " is not among its " +
                std::to_string(options.hosts.size()) + " hosts");
  }
  SpreadReport report;
  const auto position = spread_tree_position(options.self, options.hosts.size(), options.fanout);
  const auto connect_deadline = started + options.connect_timeout;

  // Listening first: children may connect while this node still looks for its parent.
  UniqueFd listener;
  std::string why;
  if (!position.children.empty()) {
    listener =
        tcp::listen_on(options.listen_on_own_host ? options.hosts[options.self] : std::string(),
                       options.port, why);
  }
  UniqueFd parent;
  if (position.parent) {
    report.parent = options.hosts[*position.parent];
    parent = connect_to_parent(*report.parent, options.port,
                               static_cast<std::uint32_t>(options.self), connect_deadline, why);
    if (!parent.valid()) report.fallback = why;
  }
  std::vector<ForwardingSource::Child> children;
  if (listener.valid()) {
    children = accept_children(listener.get(), options, position.children, connect_deadline);
  }
  for (std::size_t i = 0; i < position.children.size(); ++i) {
    if (i >= children.size() || !children[i].fd.valid()) {
      report.children_lost.push_back(options.hosts[position.children[i]]);
    }
  }

  Inbox inbox(options.local_root);
  std::optional<SharedTierReader> shared;
  int upstream = parent.get();
  if (!parent.valid()) {
    shared.emplace(options.shared_root, options.transfer.compiler_version);
    upstream = shared->fd();
  }
  ForwardingSource source(upstream,
                          parent.valid() ? std::optional(options.idle_timeout) : std::nullopt,
                          options.idle_timeout, children, report.children_lost);
  const auto outcome = read_cache_stream(source, inbox.path());
  for (auto& child : children) {
    if (child.fd.valid()) report.children.push_back(child.host);
    child.fd = UniqueFd();  // closed now: a child must not wait for us while we install
  }
  if (shared) {
    shared->finish();
    report.shared_tier_bytes += shared->counts().bytes;
  } else {
    report.received_bytes = outcome.counts.bytes;
  }
  std::string problem = outcome.problem;
  if (shared && !shared->problem().empty()) problem = shared->problem();

  report.local = move_in(inbox.path(), options.local_root, options.transfer);
  if (!outcome.complete) {
    // Whatever broke, the node ends as a pull from the shared tier would leave it. That pull
    // finds what came through the tree present; it is counted as copied, once.
    report.fallback = report.fallback ? *report.fallback + "; then " + problem : problem;
    const auto from_tree = report.local;
    report.local = pull(options.shared_root, options.local_root, options.transfer);
    report.shared_tier_bytes += report.local.copied_bytes;
    report.local.copied += from_tree.copied;
    report.local.copied_bytes += from_tree.copied_bytes;
    report.local.replaced += from_tree.replaced;
    report.local.present -= std::min(report.local.present, from_tree.copied);
    report.local.present_bytes -= std::min(report.local.present_bytes, from_tree.copied_bytes);
  }
  report.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return report;
}

nlohmann::json to_json(const SpreadReport& report) {
  auto json = to_json(report.local);
  json["spread"] = {
      {"parent", report.parent ? nlohmann::json(*report.parent) : nlohmann::json()},
      {"children", report.children},
      {"children_lost", report.children_lost},
      {"received_bytes", report.received_bytes},
      {"shared_tier_bytes", report.shared_tier_bytes},
      {"fallback", report.fallback ? nlohmann::json(*report.fallback) : nlohmann::json()},
      {"seconds", report.seconds}};
  return json;
}

}  // namespace trn::cache
