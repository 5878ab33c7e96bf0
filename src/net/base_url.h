// The base URL of an OpenAI-compatible server ("https://api.openai.com/v1",
// "http://127.0.0.1:8080/v1"): the origin a connection is opened to and the
// path prefix every endpoint ("/embeddings", "/chat/completions") goes under.
#pragma once

#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram::net {

struct BaseUrl {
  std::string origin;       // "scheme://host[:port]", as given (no trailing slash)
  std::string path_prefix;  // "/v1", or "" — never ends in '/'
  bool https = false;

  // The path of an endpoint on the server: path_prefix + endpoint.
  std::string Path(std::string_view endpoint) const { return path_prefix + std::string(endpoint); }
  // The full URL of an endpoint, for messages: origin + path.
  std::string Url(std::string_view endpoint) const { return origin + Path(endpoint); }
};

// Parses http(s)://host[:port][/path]. Trailing slashes of the path go.
// InvalidArgument naming `setting` ("[embedding] base_url") and the URL when
// the scheme is not http or https, the host is missing, the port is not
// 1-65535, or the URL holds credentials (user:password@ — the key belongs in
// an environment variable, and URLs appear in messages), a query, a fragment,
// white space or control characters.
Result<BaseUrl> ParseBaseUrl(std::string_view url, std::string_view setting);

}  // namespace engram::net
