// What `engram serve` checks on every request before it authenticates or
// reads a body: the Host header (DNS rebinding), the Origin header (pages
// of other sites) and, on POST and PUT, a JSON content type (cross-site
// "simple" requests: a web page can send text/plain, form-urlencoded or
// multipart POSTs to any address without asking, but not application/json).
//
// Pure functions over header values, so each rule is testable alone.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::server {

struct HostPolicy {
  // Names and addresses the server answers to besides loopback ones
  // (lower case, no port), e.g. "brain.lan" or the --host address.
  std::vector<std::string> allowed_hosts;
  // Origins allowed besides loopback pages and same-origin requests, each
  // "scheme://host[:port]".
  std::vector<std::string> allowed_origins;
};

struct Authority {
  std::string host;  // lower case; IPv6 without brackets; no trailing dot
  int port = -1;     // -1: none given
};

// "host", "host:port", "[v6]" or "[v6]:port"; nullopt when malformed
// (empty host, a bad port, characters a host name cannot hold).
std::optional<Authority> ParseAuthority(std::string_view text);

struct Origin {
  std::string scheme;  // "http" or "https"
  std::string host;
  int port = -1;  // the scheme's default when none is given
};

// "scheme://host[:port]" with nothing after it; nullopt otherwise
// (including "null", which sandboxed frames and file:// pages send).
std::optional<Origin> ParseOrigin(std::string_view text);

// localhost, 127.0.0.0/8 (dotted quad) or ::1.
bool IsLoopbackHost(std::string_view host);

// Ok when the Host header names this server: a loopback name, the address
// the connection arrived on (`local_ip`), or an allowed host. An absent Host
// (HTTP/1.0 tools) is accepted: a browser always sends one. Otherwise
// PermissionDenied naming the host and the setting that would allow it.
Status CheckHost(std::string_view host_header, std::string_view local_ip, const HostPolicy& policy);

// Ok when there is no Origin header, or it is a loopback page (any port),
// the server's own origin (same scheme-less host and port as the Host
// header, which CheckHost accepted), or an allowed origin — compared as
// parsed scheme, host and port, never as a prefix. Otherwise PermissionDenied.
Status CheckOrigin(std::string_view origin_header, std::string_view host_header, const HostPolicy& policy);

// Whether a Content-Type value is application/json (parameters such as
// charset allowed, case-insensitive).
bool IsJsonContentType(std::string_view content_type);

}  // namespace engram::server
