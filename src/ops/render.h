// The JSON documents of the brain's results, one shape for every transport:
// `engram --json`, the HTTP API and MCP tool results.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "engram/brain.h"
#include "engram/engine.h"
#include "engram/search.h"

namespace engram::ops {

nlohmann::json ToJson(const SearchResponse& r, bool explain);
nlohmann::json ToJson(const ImportReport& r);
nlohmann::json ToJson(const SyncReport& r);
nlohmann::json ToJson(const StoredPage& p);
nlohmann::json ToJson(const BrainStats& s);
nlohmann::json ToJson(const BrainStatus& s);
nlohmann::json ToJson(const std::vector<PageSummary>& pages);  // {"pages": [...], "count"}
nlohmann::json ToJson(const std::vector<LinkRecord>& links);
nlohmann::json ToJson(const std::vector<TimelineEntry>& entries);
nlohmann::json ToJson(const PutReport& r);
// {"error": {"code": "NotFound", "message": "..."}}
nlohmann::json ErrorJson(const Status& st);
// Serialises j (indent < 0: one line); invalid UTF-8 that reached a string
// (an echoed bad input in a message) becomes U+FFFD instead of throwing.
std::string Dump(const nlohmann::json& j, int indent = -1);

}  // namespace engram::ops
