#include "server/request_guard.h"

#include <algorithm>
#include <cctype>

namespace engram::server {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool ParsePort(std::string_view s, int* port) {
  if (s.empty() || s.size() > 5) return false;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v > 65535) return false;
  *port = v;
  return true;
}

bool IsDottedQuad(std::string_view s, int* first) {
  int parts = 0;
  size_t i = 0;
  while (i <= s.size()) {
    size_t end = s.find('.', i);
    if (end == std::string_view::npos) end = s.size();
    std::string_view part = s.substr(i, end - i);
    int v = 0;
    if (part.empty() || part.size() > 3 || !ParsePort(part, &v) || v > 255) return false;
    if (parts == 0) *first = v;
    ++parts;
    i = end + 1;
    if (end == s.size()) break;
  }
  return parts == 4;
}

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

int DefaultPort(const std::string& scheme) { return scheme == "https" ? 443 : 80; }

}  // namespace

std::optional<Authority> ParseAuthority(std::string_view text) {
  text = Trim(text);
  Authority a;
  std::string_view host, port;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = text.substr(1, close - 1);
    std::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port = rest.substr(1);
      if (port.empty()) return std::nullopt;
    }
    if (host.empty() || host.find_first_not_of("0123456789abcdefABCDEF:.") != std::string_view::npos) return std::nullopt;
  } else {
    const size_t colon = text.find(':');
    host = text.substr(0, colon);
    if (colon != std::string_view::npos) {
      port = text.substr(colon + 1);
      if (port.empty()) return std::nullopt;
    }
    if (!host.empty() && host.back() == '.') host.remove_suffix(1);  // "localhost." is localhost
    if (host.empty()) return std::nullopt;
    for (char c : host) {
      const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
      if (!ok) return std::nullopt;
    }
  }
  if (!port.empty() && !ParsePort(port, &a.port)) return std::nullopt;
  a.host = Lower(host);
  return a;
}

std::optional<Origin> ParseOrigin(std::string_view text) {
  text = Trim(text);
  const size_t sep = text.find("://");
  if (sep == std::string_view::npos) return std::nullopt;
  Origin o;
  o.scheme = Lower(text.substr(0, sep));
  if (o.scheme != "http" && o.scheme != "https") return std::nullopt;
  std::string_view rest = text.substr(sep + 3);
  if (rest.find_first_of("/?#@") != std::string_view::npos) return std::nullopt;  // an origin has no path or user
  auto a = ParseAuthority(rest);
  if (!a) return std::nullopt;
  o.host = a->host;
  o.port = a->port >= 0 ? a->port : DefaultPort(o.scheme);
  return o;
}

bool IsLoopbackHost(std::string_view host) {
  const std::string h = Lower(host);
  if (h == "localhost" || h == "::1" || h == "0:0:0:0:0:0:0:1") return true;
  int first = -1;
  return IsDottedQuad(h, &first) && first == 127;
}

Status CheckHost(std::string_view host_header, std::string_view local_ip, const HostPolicy& policy) {
  if (Trim(host_header).empty()) return Status::Ok();
  auto a = ParseAuthority(host_header);
  if (!a) return Status::PermissionDenied("malformed Host header '" + std::string(host_header) + "'");
  if (IsLoopbackHost(a->host)) return Status::Ok();
  if (!local_ip.empty() && a->host == Lower(local_ip)) return Status::Ok();
  if (Contains(policy.allowed_hosts, a->host)) return Status::Ok();
  return Status::PermissionDenied("Host '" + a->host +
                                  "' is not a name of this server (DNS rebinding protection); to serve it, add it to "
                                  "[server] allowed_hosts in config.toml");
}

Status CheckOrigin(std::string_view origin_header, std::string_view host_header, const HostPolicy& policy) {
  if (Trim(origin_header).empty()) return Status::Ok();
  const std::string shown(origin_header.substr(0, 200));
  auto o = ParseOrigin(origin_header);
  if (!o) return Status::PermissionDenied("origin '" + shown + "' is not allowed");
  if (IsLoopbackHost(o->host)) return Status::Ok();
  for (const std::string& allowed : policy.allowed_origins) {
    auto a = ParseOrigin(allowed);
    if (a && a->scheme == o->scheme && a->host == o->host && a->port == o->port) return Status::Ok();
  }
  // Same origin: the page was served by this server under the name the
  // request carries (CheckHost has accepted that name).
  if (auto h = ParseAuthority(host_header); h && h->host == o->host && (h->port < 0 ? DefaultPort(o->scheme) : h->port) == o->port) {
    return Status::Ok();
  }
  return Status::PermissionDenied("origin '" + shown +
                                  "' is not allowed (cross-site request); to allow it, add it to [server] "
                                  "allowed_origins in config.toml");
}

bool IsJsonContentType(std::string_view content_type) {
  std::string_view media = content_type.substr(0, content_type.find(';'));
  return Lower(Trim(media)) == "application/json";
}

}  // namespace engram::server
