#include "common/url.h"

namespace engram::common {

Result<HttpEndpoint> SplitBaseUrl(std::string_view base, std::string_view suffix, std::string_view what) {
  const std::string b(base), w(what);
  const size_t scheme_end = b.find("://");
  if (scheme_end == std::string::npos ||
      (b.compare(0, scheme_end, "http") != 0 && b.compare(0, scheme_end, "https") != 0)) {
    return Status::InvalidArgument(w + " '" + b + "' must start with http:// or https://");
  }
  const size_t path_start = b.find('/', scheme_end + 3);
  HttpEndpoint e;
  e.origin = b.substr(0, path_start);
  std::string path = path_start == std::string::npos ? "" : b.substr(path_start);
  while (!path.empty() && path.back() == '/') path.pop_back();
  e.path = path + std::string(suffix);
  if (e.origin.size() <= scheme_end + 3) return Status::InvalidArgument(w + " '" + b + "' has no host");
  return e;
}

}  // namespace engram::common
