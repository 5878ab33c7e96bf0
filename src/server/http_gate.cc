#include "server/http_gate.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "engram/status.h"
#include "ops/render.h"

namespace engram::server {

using Clock = std::chrono::steady_clock;

namespace {

thread_local bool t_close_after = false;

// The numeric address of one end of a socket (IPv4-mapped IPv6 as dotted quad).
void Address(int fd, bool peer, std::string* ip, int* port) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  const int r = peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len)
                     : ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  ip->clear();
  *port = 0;
  if (r != 0) return;
  char buf[INET6_ADDRSTRLEN] = {};
  if (ss.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    ::inet_ntop(AF_INET, &a->sin_addr, buf, sizeof(buf));
    *port = ntohs(a->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    if (IN6_IS_ADDR_V4MAPPED(&a->sin6_addr)) {
      ::inet_ntop(AF_INET, &a->sin6_addr.s6_addr[12], buf, sizeof(buf));
    } else {
      ::inet_ntop(AF_INET6, &a->sin6_addr, buf, sizeof(buf));
    }
    *port = ntohs(a->sin6_port);
  }
  *ip = buf;
}

// Waits until fd is ready for `events` or the deadline passes.
bool WaitFor(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1 << 30)));
    if (r > 0) return true;  // ready, or an error/hang-up the next call reports
    if (r == 0) return false;
    if (errno != EINTR) return false;
  }
}

// A short response written by the gate itself (best effort, never blocks).
void SendSimple(int fd, int status, const char* reason, const Status& st, bool retry_after) {
  const std::string body = ops::Dump(ops::ErrorJson(st));
  std::string head = "HTTP/1.1 " + std::to_string(status) + " " + reason +
                     "\r\nContent-Type: application/json\r\nConnection: close\r\n" +
                     (retry_after ? "Retry-After: 1\r\n" : "") + "Content-Length: " + std::to_string(body.size()) +
                     "\r\n\r\n" + body;
  (void)::send(fd, head.data(), head.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

}  // namespace

struct GatedServer::Conn {
  int fd = -1;
  std::string peer, local;
  int peer_port = 0, local_port = 0;
  std::string buf;   // received, not yet consumed by httplib
  size_t pos = 0;    // consumed bytes at the front of buf
  size_t scanned = 0;  // head-terminator search progress, from pos
  Clock::time_point deadline;
  bool got_bytes = false;  // the current head has started
  bool draining = false;   // response sent, write side shut: discarding input until EOF or deadline
  size_t requests = 0;

  size_t Pending() const { return buf.size() - pos; }
  void Compact() {
    if (pos == 0) return;
    buf.erase(0, pos);
    pos = 0;
  }
  // Empty lines before a request line are ignored (RFC 9112 §2.2).
  void SkipLeadingBlankLines() {
    while (pos < buf.size() && (buf[pos] == '\r' || buf[pos] == '\n')) ++pos;
  }
  bool HeadComplete() {
    const size_t from = pos + (scanned > 3 ? scanned - 3 : 0);
    const bool found = buf.find("\r\n\r\n", from) != std::string::npos;
    scanned = Pending();
    return found;
  }
};

// httplib reads and writes through this: first the bytes the gate already
// holds, then the socket, against the request's deadlines.
class GatedServer::ConnStream : public httplib::Stream {
 public:
  ConnStream(Conn& c, Clock::time_point read_deadline, std::chrono::milliseconds write_timeout)
      : c_(c), read_deadline_(read_deadline), write_timeout_(write_timeout) {}

  bool is_readable() const override { return c_.Pending() > 0 || WaitFor(c_.fd, POLLIN, read_deadline_); }
  bool is_writable() const override { return WaitFor(c_.fd, POLLOUT, Clock::now() + write_timeout_); }

  ssize_t read(char* ptr, size_t size) override {
    if (c_.Pending() == 0) {
      c_.buf.clear();
      c_.pos = 0;
      c_.scanned = 0;
      for (;;) {
        if (!WaitFor(c_.fd, POLLIN, read_deadline_)) return -1;
        c_.buf.resize(16384);
        const ssize_t n = ::recv(c_.fd, c_.buf.data(), c_.buf.size(), MSG_DONTWAIT);
        if (n > 0) {
          c_.buf.resize(static_cast<size_t>(n));
          break;
        }
        c_.buf.clear();
        if (n == 0) return 0;
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
      }
    }
    const size_t n = std::min(size, c_.Pending());
    std::memcpy(ptr, c_.buf.data() + c_.pos, n);
    c_.pos += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    for (;;) {
      if (!WaitFor(c_.fd, POLLOUT, Clock::now() + write_timeout_)) return -1;
      const ssize_t n = ::send(c_.fd, ptr, size, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n >= 0) return n;
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
    }
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = c_.peer;
    port = c_.peer_port;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip = c_.local;
    port = c_.local_port;
  }
  socket_t socket() const override { return c_.fd; }

 private:
  Conn& c_;
  Clock::time_point read_deadline_;
  std::chrono::milliseconds write_timeout_;
};

// httplib's accept loop enqueues one task per socket; running it inline
// only hands the socket to the gate (see process_and_close_socket).
class GatedServer::Queue : public httplib::TaskQueue {
 public:
  explicit Queue(GatedServer& s) : s_(s) {}
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override { s_.Shutdown(); }

 private:
  GatedServer& s_;
};

GatedServer::GatedServer(GateOptions options) : options_(std::move(options)) {
  options_.workers = std::max<size_t>(1, options_.workers);
  new_task_queue = [this] {
    Start();
    return new Queue(*this);
  };
  const auto idle_s = std::chrono::duration_cast<std::chrono::seconds>(options_.idle_timeout).count();
  set_keep_alive_timeout(std::max<time_t>(1, static_cast<time_t>(idle_s)));  // only advertised in Keep-Alive
  set_keep_alive_max_count(options_.max_requests_per_connection);
}

GatedServer::~GatedServer() { Shutdown(); }

void GatedServer::CloseAfterThisResponse() { t_close_after = true; }

size_t GatedServer::open_connections() {
  std::lock_guard<std::mutex> lock(mu_);
  return total_;
}

void GatedServer::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (started_) return;
  started_ = true;
  stopping_ = false;
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  gate_ = std::thread([this] { GateLoop(); });
  for (size_t i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

void GatedServer::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!started_ || stopping_) return;
    stopping_ = true;
    for (int fd : busy_fds_) ::shutdown(fd, SHUT_RDWR);  // wakes workers waiting on a slow client
  }
  Wake();
  ready_cv_.notify_all();
  if (gate_.joinable()) gate_.join();
  for (auto& w : workers_) w.join();
  workers_.clear();
  std::vector<std::unique_ptr<Conn>> left;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& c : ready_) left.push_back(std::move(c));
    for (auto& c : incoming_) left.push_back(std::move(c));
    ready_.clear();
    incoming_.clear();
  }
  for (auto& c : left) Close(std::move(c));
  if (wake_fd_ >= 0) ::close(wake_fd_);
  wake_fd_ = -1;
}

void GatedServer::Wake() {
  if (wake_fd_ < 0) return;
  const uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof(one));
}

bool GatedServer::process_and_close_socket(socket_t sock) {
  auto c = std::make_unique<Conn>();
  c->fd = sock;
  Address(sock, true, &c->peer, &c->peer_port);
  Address(sock, false, &c->local, &c->local_port);
  const int yes = 1;
  ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));  // headers and body go out in two writes
  c->deadline = Clock::now() + options_.header_timeout;
  Status refused;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = per_peer_.find(c->peer);
    const size_t from_peer = it == per_peer_.end() ? 0 : it->second;
    if (stopping_) {
      refused = Status::Unavailable("the server is stopping");
    } else if (from_peer >= options_.max_connections_per_peer) {
      refused = Status::Unavailable("too many connections from " + c->peer + " (at most " +
                                    std::to_string(options_.max_connections_per_peer) +
                                    ", [server] max_connections_per_peer)");
    } else if (total_ >= options_.max_connections) {
      refused = Status::Unavailable("too many open connections (at most " + std::to_string(options_.max_connections) + ")");
    } else {
      ++per_peer_[c->peer];
      ++total_;
      incoming_.push_back(std::move(c));
    }
  }
  if (!refused.ok()) {
    SendSimple(sock, 503, "Service Unavailable", refused, true);
    char sink[4096];
    while (::recv(sock, sink, sizeof(sink), MSG_DONTWAIT) > 0) {
    }  // what already arrived, so closing does not reset the connection before the client reads the 503
    ::shutdown(sock, SHUT_WR);
    ::close(sock);
    return true;
  }
  Wake();
  return true;
}

void GatedServer::Close(std::unique_ptr<Conn> conn) {
  ::close(conn->fd);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = per_peer_.find(conn->peer);
  if (it != per_peer_.end() && --it->second == 0) per_peer_.erase(it);
  --total_;
}

void GatedServer::ToGate(std::unique_ptr<Conn> conn) {
  conn->Compact();
  conn->scanned = 0;
  conn->got_bytes = conn->Pending() > 0 || conn->draining;
  conn->deadline = Clock::now() + (conn->draining ? std::chrono::milliseconds(1000)
                                   : conn->got_bytes ? options_.header_timeout
                                                     : options_.idle_timeout);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_) {
      incoming_.push_back(std::move(conn));
    }
  }
  if (conn) return Close(std::move(conn));
  Wake();
}

void GatedServer::GateLoop() {
  std::vector<std::unique_ptr<Conn>> waiting;
  std::vector<pollfd> fds;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) break;
      for (auto& c : incoming_) waiting.push_back(std::move(c));
      incoming_.clear();
    }
    auto now = Clock::now();
    int64_t timeout_ms = 1000;
    fds.assign(1, pollfd{wake_fd_, POLLIN, 0});
    for (auto& c : waiting) {
      fds.push_back(pollfd{c->fd, POLLIN, 0});
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(c->deadline - now).count() + 1;
      timeout_ms = std::clamp<int64_t>(left, 0, timeout_ms);
    }
    // (A connection handed back with a pipelined head already buffered is
    // checked below without waiting: ToGate wakes this loop.)
    const int r = ::poll(fds.data(), fds.size(), static_cast<int>(timeout_ms));
    if (r < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) {
      uint64_t v;
      (void)!::read(wake_fd_, &v, sizeof(v));
    }
    now = Clock::now();
    std::vector<std::unique_ptr<Conn>> keep, ready, closing;
    for (size_t i = 0; i < waiting.size(); ++i) {
      std::unique_ptr<Conn> c = std::move(waiting[i]);
      const short re = r > 0 ? fds[i + 1].revents : 0;
      bool eof = false;
      if (re & (POLLIN | POLLHUP | POLLERR)) {
        char tmp[16384];
        const ssize_t n = ::recv(c->fd, tmp, sizeof(tmp), MSG_DONTWAIT);
        if (n == 0) {
          eof = true;
        } else if (n < 0) {
          eof = errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
        } else if (!c->draining) {
          c->buf.append(tmp, static_cast<size_t>(n));
          if (!c->got_bytes) {
            c->got_bytes = true;
            c->deadline = now + options_.header_timeout;  // the head must now arrive in full
          }
        }
      }
      if (eof) {
        closing.push_back(std::move(c));
        continue;
      }
      if (!c->draining) {
        c->SkipLeadingBlankLines();
        if (c->HeadComplete()) {
          ready.push_back(std::move(c));
          continue;
        }
        if (c->Pending() > options_.max_head_bytes) {
          SendSimple(c->fd, 431, "Request Header Fields Too Large",
                     Status::InvalidArgument("request head over " + std::to_string(options_.max_head_bytes) + " bytes"),
                     false);
          ::shutdown(c->fd, SHUT_WR);
          c->draining = true;
          c->deadline = now + std::chrono::milliseconds(1000);
        }
      }
      if (now >= c->deadline) {
        if (!c->draining && c->got_bytes && c->Pending() > 0) {
          SendSimple(c->fd, 408, "Request Timeout",
                     Status::InvalidArgument("the request head did not arrive within " +
                                             std::to_string(options_.header_timeout.count()) + " ms"),
                     false);
        }
        closing.push_back(std::move(c));
        continue;
      }
      keep.push_back(std::move(c));
    }
    waiting = std::move(keep);
    for (auto& c : closing) Close(std::move(c));
    if (!ready.empty()) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto& c : ready) ready_.push_back(std::move(c));
      }
      ready_cv_.notify_all();
    }
  }
  for (auto& c : waiting) Close(std::move(c));
}

void GatedServer::WorkerLoop() {
  for (;;) {
    std::unique_ptr<Conn> conn;
    {
      std::unique_lock<std::mutex> lock(mu_);
      ready_cv_.wait(lock, [&] { return stopping_ || !ready_.empty(); });
      if (stopping_) return;
      conn = std::move(ready_.front());
      ready_.pop_front();
      busy_fds_.push_back(conn->fd);
    }
    Serve(std::move(conn));
  }
}

void GatedServer::Serve(std::unique_ptr<Conn> conn) {
  const auto now = Clock::now();
  ConnStream stream(*conn, now + options_.body_timeout, options_.body_timeout);
  t_close_after = false;
  bool parsed = false;  // the request line and headers were valid
  bool closed = false;  // the client asked to close (Connection: close, HTTP/1.0)
  const bool last = conn->requests + 1 >= options_.max_requests_per_connection;
  const bool ok = process_request(stream, last, closed, [&](httplib::Request&) { parsed = true; });
  ++conn->requests;
  {
    std::lock_guard<std::mutex> lock(mu_);
    busy_fds_.erase(std::find(busy_fds_.begin(), busy_fds_.end(), conn->fd));
  }
  if (!ok || !parsed) return Close(std::move(conn));
  if (closed || last || t_close_after) {
    // Lingering close: the response is out; discard what the client still
    // sends (an unread body) so closing does not reset the connection first.
    ::shutdown(conn->fd, SHUT_WR);
    conn->draining = true;
  }
  ToGate(std::move(conn));
}

}  // namespace engram::server
