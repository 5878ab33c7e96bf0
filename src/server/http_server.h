// `engram serve`: the HTTP API (/v1/…, an OpenAPI document at
// /v1/openapi.json, GET /healthz) and MCP over Streamable HTTP at /mcp, over
// the operation layer. Every caller is remote: the trust boundary applies.
//
// Auth: Bearer tokens (ops/tokens.h); a token's scope bounds what it may
// do. With no token configured the server only binds to loopback, and its
// callers get the write scope. Limits: request body size, a per-caller
// token-bucket rate limit (429), read/write time-outs, a worker pool of
// `threads` (each worker leases its own Brain: readers never wait for the
// writer). One JSON access-log line per request on stderr.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>

#include "engram/status.h"

namespace engram::server {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8765;                  // 0: any free port
  int threads = 8;                  // workers (each keep-alive connection holds one)
  size_t max_body_bytes = 8u << 20;
  double rate_limit = 50;           // requests per second per caller (burst: twice that); 0: none
  int timeout_ms = 30000;           // read and write time-outs
  bool access_log = true;
};

bool IsLoopback(const std::string& host);

// Serves until *stop becomes true (checked every 100 ms); on_listening gets
// the bound port once the socket listens. Refuses to start on a
// non-loopback address without any token (FailedPrecondition).
Status ServeHttp(const std::filesystem::path& brain_root, const HttpOptions& options, std::atomic<bool>& stop,
                 const std::function<void(int port)>& on_listening);

}  // namespace engram::server
