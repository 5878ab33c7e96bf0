// Keyword search: the chunk arm (BM25 over chunks) and the title/alias arm
// (BM25 over titles and aliases), fused per page, with phrase checks.
#pragma once

#include <string_view>

#include "engram/engine.h"
#include "engram/search.h"
#include "engram/status.h"

namespace engram::search {

// Runs a keyword query. An empty query, or one with no searchable terms, is
// InvalidArgument with a message that says so.
Result<SearchResponse> KeywordSearch(Engine& engine, std::string_view query, const SearchOptions& options);

}  // namespace engram::search
