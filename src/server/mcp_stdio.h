// MCP over stdio: one JSON-RPC message per line on stdin, one response per
// line on stdout (nothing else is ever written there), logs on stderr.
#pragma once

#include <cstdio>

#include "engram/status.h"

namespace engram {
class Brain;
}

namespace engram::server {

// Serves until stdin closes. Lines over max_line_bytes are answered with
// an error and skipped.
Status ServeMcpStdio(Brain& brain, std::FILE* in, std::FILE* out, size_t max_line_bytes = 16u << 20);

}  // namespace engram::server
