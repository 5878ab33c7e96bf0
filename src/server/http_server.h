// `engram serve`: the HTTP API (/v1/…, an OpenAPI document at
// /v1/openapi.json, GET /healthz) and MCP over Streamable HTTP at /mcp, over
// the operation layer. Every caller is remote: the trust boundary applies.
//
// Before a request is authenticated or its body read (in this order):
//   - Host must name this server: a loopback name, the address the
//     connection arrived on, or one of allowed_hosts (DNS rebinding);
//   - Origin, when sent, must be a loopback page, the server's own origin or
//     one of allowed_origins, compared as parsed scheme/host/port;
//   - POST and PUT must say Content-Type: application/json (415 otherwise): a
//     web page can send text/plain or form bodies anywhere without asking,
//     never JSON, so no page can change the brain behind the user's back;
//   - the caller is authenticated and rate-limited.
// Auth: Bearer tokens (ops/tokens.h); a token's scope bounds what it may
// do. With no token configured the server only binds to loopback and only
// answers loopback peers, which get the write scope. A server that has seen
// a token stays in token mode until restarted: revoking the last token
// locks it (every request 401), never opens it.
// Limits: JSON nesting (common/json_limits.h) and body size, a per-caller
// token-bucket rate limit (429), request-head and body deadlines, connections
// per peer (http_gate.h), MCP sessions per caller. One JSON access-log line
// per request on stderr.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engram/status.h"

namespace engram::server {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8765;                  // 0: any free port
  int threads = 8;                  // workers (a worker is held only while a request is handled)
  int pool_size = 0;                // brains (store connections) open at most; 0: as many as requests need
  size_t max_body_bytes = 8u << 20;
  double rate_limit = 50;           // requests per second per caller (burst: twice that); 0: none
  int timeout_ms = 30000;           // a request's body must arrive within this; also the write time-out
  int header_timeout_ms = 10000;    // a request head must arrive in full within this
  size_t max_connections_per_peer = 64;
  std::vector<std::string> allowed_hosts;    // Host names served besides loopback ones and --host
  std::vector<std::string> allowed_origins;  // Origins allowed besides loopback pages
  size_t max_mcp_sessions_per_caller = 100;  // beyond: the caller's own least recently used closes
  size_t max_mcp_sessions = 1000;            // beyond: refused (503), nobody else's active session closes
  bool access_log = true;
};

bool IsLoopback(const std::string& host);

// Serves until *stop becomes true (checked every 100 ms); on_listening gets
// the bound port once the socket listens. Refuses to start on a
// non-loopback address without any token (FailedPrecondition).
Status ServeHttp(const std::filesystem::path& brain_root, const HttpOptions& options, std::atomic<bool>& stop,
                 const std::function<void(int port)>& on_listening);

}  // namespace engram::server
