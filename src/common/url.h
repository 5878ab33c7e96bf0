// Splitting an http(s) base URL ("https://api.openai.com/v1") into the
// origin a client connects to and the path of one endpoint under it.
#pragma once

#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram::common {

struct HttpEndpoint {
  std::string origin;  // scheme://host[:port]
  std::string path;    // base path + suffix, e.g. "/v1/embeddings"
};

// InvalidArgument naming `what` (the setting) when base is not
// http(s)://host[/path].
Result<HttpEndpoint> SplitBaseUrl(std::string_view base, std::string_view suffix, std::string_view what);

}  // namespace engram::common
