// Who is reading, and so what a read may return. Every read of a page store
// that can return a private page, or something of one (a chunk, a link, a
// name), takes a ReadScope and honours it inside the store: a page the scope
// cannot see is absent - NotFound for a look-up, left out of a list, not
// counted - exactly as if it did not exist. Nothing is filtered afterwards.
//
// The local CLI reads with All(); remote callers (HTTP, MCP) with Public().
// Later: an as-of time (a read of the brain as it was).
#pragma once

#include <string>
#include <string_view>

namespace engram {

struct ReadScope {
  std::string source = "default";  // the source read ("" = every source)
  bool include_private = false;    // private pages exist for this reader

  static ReadScope All(std::string_view source) { return {std::string(source), true}; }
  static ReadScope Public(std::string_view source) { return {std::string(source), false}; }
  bool Sees(bool is_private) const { return include_private || !is_private; }
};

}  // namespace engram
