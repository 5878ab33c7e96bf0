#include "net/base_url.h"

#include <algorithm>
#include <cctype>

namespace engram::net {

Result<BaseUrl> ParseBaseUrl(std::string_view url, std::string_view setting) {
  const std::string u(url);
  std::string prefix(setting);
  prefix += " '";
  prefix += u;
  prefix += "' ";
  auto bad = [&](const char* why) { return Status::InvalidArgument(prefix + why); };

  BaseUrl out;
  size_t host_start = 0;
  if (u.rfind("http://", 0) == 0) {
    host_start = 7;
  } else if (u.rfind("https://", 0) == 0) {
    host_start = 8;
    out.https = true;
  } else {
    return bad("must start with http:// or https://");
  }
  for (char c : u) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return bad("holds white space or control characters");
  }
  if (u.find_first_of("?#") != std::string::npos) return bad("must not hold a query or fragment");
  const size_t path_start = u.find('/', host_start);
  const std::string authority = u.substr(host_start, path_start == std::string::npos ? std::string::npos
                                                                                      : path_start - host_start);
  if (authority.find('@') != std::string::npos) {
    // Not quoted: the message would show the password.
    std::string m(setting);
    m += " must not hold credentials (user:password@): name the key's environment variable in api_key_env";
    return Status::InvalidArgument(std::move(m));
  }
  // host, [v6 address] or either with :port
  size_t host_end = authority.size();
  if (!authority.empty() && authority[0] == '[') {
    host_end = authority.find(']');
    if (host_end == std::string::npos) return bad("has an unclosed [ in its host");
    ++host_end;
    if (host_end < authority.size() && authority[host_end] != ':') return bad("has text after its [address]");
  } else {
    host_end = std::min(authority.find(':'), authority.size());
  }
  if (host_end == 0 || (authority[0] == '[' && host_end <= 2)) return bad("has no host");
  if (host_end < authority.size()) {
    const std::string port = authority.substr(host_end + 1);
    long value = 0;
    bool digits = !port.empty() && port.size() <= 5;
    for (char c : port) {
      if (!std::isdigit(static_cast<unsigned char>(c))) digits = false;
      else value = value * 10 + (c - '0');
    }
    if (!digits || value < 1 || value > 65535) return bad("has a port outside 1-65535");
  }
  out.origin = u.substr(0, host_start + authority.size());
  out.path_prefix = path_start == std::string::npos ? "" : u.substr(path_start);
  while (!out.path_prefix.empty() && out.path_prefix.back() == '/') out.path_prefix.pop_back();
  return out;
}

}  // namespace engram::net
