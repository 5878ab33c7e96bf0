// Limits checked on JSON text from outside (HTTP bodies, JSON-RPC messages,
// model files) before a JSON library builds a tree from it.
//
// Why: nlohmann::json parses iteratively, but copying, comparing and
// dumping a value recurse once per nesting level. 400 KB of "[" parse fine
// and then exhaust the stack of whichever thread first copies or renders
// the value (the server died with SIGSEGV). Refusing deep nesting before
// the parse keeps every later walk shallow.
//
// Header-only so that every module can use it without a new link edge.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram::common {

// Deep enough for any real request, config or model file (the deepest
// engram itself writes is 4), shallow enough that a recursive walk of the
// parsed value costs a few hundred KB of stack at most.
constexpr size_t kMaxJsonDepth = 64;

// The deepest nesting of [ and { in `text`, ignoring brackets inside
// strings (escapes respected). Stops counting at `stop_at` + 1 so a hostile
// input costs one pass and nothing more. Does not validate the JSON: that
// is the parser's job; unbalanced brackets only make the count approximate.
inline size_t JsonNestingDepth(std::string_view text, size_t stop_at = static_cast<size_t>(-1) - 1) {
  size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, whatever it is, cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > deepest) {
          deepest = depth;
          if (deepest > stop_at) return deepest;
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return deepest;
}

// InvalidArgument ("<what> nests deeper than N levels") when `text` nests
// deeper than max_depth, or is larger than max_bytes; Ok otherwise.
inline Status CheckJsonLimits(std::string_view text, std::string_view what, size_t max_depth = kMaxJsonDepth,
                              size_t max_bytes = static_cast<size_t>(-1)) {
  if (text.size() > max_bytes) {
    return Status::InvalidArgument(std::string(what) + " is " + std::to_string(text.size()) + " bytes, over the limit of " +
                                   std::to_string(max_bytes));
  }
  if (JsonNestingDepth(text, max_depth) > max_depth) {
    return Status::InvalidArgument(std::string(what) + " nests deeper than " + std::to_string(max_depth) +
                                   " levels of arrays and objects");
  }
  return Status::Ok();
}

}  // namespace engram::common
