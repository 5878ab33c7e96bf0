// The connection front of `engram serve`: cpp-httplib's request handling
// with engram's own connection management in front of it.
//
// Stock cpp-httplib 0.11 hands every accepted socket to a worker thread,
// which then reads the request head with the per-read time-out; ten clients
// that send a header line now and then hold every worker and nobody else is
// served, before any authentication. Here one gate thread polls every open
// connection and collects request heads itself (non-blocking, with a
// deadline for the whole head); a worker is only taken for a connection whose
// complete head has arrived, and gives it back to the gate between requests
// (an idle keep-alive connection holds no worker). The body is read by the
// worker against one deadline for the whole body. Connections per peer
// address and in total are capped; over the cap a connection gets a 503 at
// once and is closed.
//
// Threading: the accept loop (httplib's listen thread) hands sockets to the
// gate; the gate thread and `workers` worker threads run until stop().
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace engram::server {

struct GateOptions {
  size_t workers = 8;
  // A request head (request line and headers) must arrive in full within
  // this time of its first byte (or of the connection's opening).
  std::chrono::milliseconds header_timeout{10000};
  // How long an idle keep-alive connection is kept between requests.
  std::chrono::milliseconds idle_timeout{5000};
  // The body of one request must arrive within this time of its head; also
  // how long one write may wait for the client to read.
  std::chrono::milliseconds body_timeout{30000};
  size_t max_connections_per_peer = 64;
  size_t max_connections = 512;  // in total (stays below select()'s FD_SETSIZE)
  size_t max_head_bytes = 64u << 10;
  size_t max_requests_per_connection = 1000;
};

class GatedServer : public httplib::Server {
 public:
  explicit GatedServer(GateOptions options);
  ~GatedServer() override;
  GatedServer(const GatedServer&) = delete;
  GatedServer& operator=(const GatedServer&) = delete;

  // Called from a handler on the worker thread: the connection is closed
  // after this response (used when a request is refused before its body was
  // read, so the unread body cannot be taken for the next request).
  static void CloseAfterThisResponse();

  // Connections open now (gate and workers), for tests and logs.
  size_t open_connections();

 private:
  struct Conn;
  class ConnStream;

  // httplib's accept loop calls this (through the task queue, on its own
  // thread) for each accepted socket: the socket joins the gate.
  bool process_and_close_socket(socket_t sock) override;

  void Start();
  void Shutdown();
  void GateLoop();
  void WorkerLoop();
  void Serve(std::unique_ptr<Conn> conn);
  // Back to the gate for the next request head (or to drain and close).
  void ToGate(std::unique_ptr<Conn> conn);
  void Close(std::unique_ptr<Conn> conn);
  void Wake();

  class Queue;  // the TaskQueue handed to httplib

  GateOptions options_;
  int wake_fd_ = -1;  // eventfd: wakes the gate thread

  std::mutex mu_;  // guards everything below
  std::condition_variable ready_cv_;
  bool stopping_ = false;
  bool started_ = false;
  std::vector<std::unique_ptr<Conn>> incoming_;  // handed to the gate, not yet polled
  std::deque<std::unique_ptr<Conn>> ready_;      // complete heads, waiting for a worker
  std::unordered_map<std::string, size_t> per_peer_;
  size_t total_ = 0;
  std::vector<int> busy_fds_;  // connections a worker holds (shut down on stop)

  std::thread gate_;
  std::vector<std::thread> workers_;
};

}  // namespace engram::server
