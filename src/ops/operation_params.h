// Parameters several modules' operations share (slug, query, limit), for
// the files that register operations (src/ops/*_operations.cc).
#pragma once

#include <cstdint>
#include <string>

#include "ops/operations.h"

namespace engram::ops {

inline Param Slug(std::string description = "the page's slug, e.g. people/zhang-san") {
  return {"slug", Param::Type::kString, true, std::move(description), 0, 0, 1024, {}, {}};
}

inline Param Query() { return {"query", Param::Type::kString, true, "what to look for (keywords or a question, any language)", 0, 0, 65536, {}, {}}; }
inline Param Limit(int64_t max, const char* what) { return {"limit", Param::Type::kInteger, false, what, 1, max, 0, {}, {}}; }

}  // namespace engram::ops
