// Optional LLM query expansion (MISSION.md §1, "Hybrid search" step 2): up
// to two rewrites of a query, sanitised, each searched by its own vector arm.
// Off by default: measured elsewhere to hurt strict recall.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "llm/chat_client.h"

namespace engram::llm {

constexpr size_t kMaxVariantBytes = 200;

// The variants in a model's reply, one per line: list markers, numbering and
// surrounding quotes removed; control characters dropped; invalid UTF-8,
// empty lines, lines longer than kMaxVariantBytes (cut at a character
// boundary), and repeats of the query or of each other (case-insensitive)
// left out; at most max.
std::vector<std::string> SanitizeVariants(std::string_view reply, std::string_view query, size_t max = 2);

// Asks the model for rewrites of query and sanitises them.
Result<std::vector<std::string>> ExpandQuery(ChatClient& client, std::string_view query, size_t max = 2);

}  // namespace engram::llm
