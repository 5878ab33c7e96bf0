// Turning results into JSON documents (stdout with --json) and human text.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <map>
#include <string>

#include "engram/brain.h"
#include "engram/engine.h"
#include "engram/search.h"
#include "ops/render.h"

namespace engram::cli {

using ops::ToJson;  // the JSON shapes are the operation layer's (ops/render.h)

// The text of a command is a formatter over its operation's JSON (the
// documents of ops/render.h), so text and --json cannot drift apart.
std::string FormatSync(const nlohmann::json& sync);      // the sync operation's JSON
std::string FormatSync(const SyncReport& r);             // = FormatSync(ToJson(r))
std::string FormatImport(const nlohmann::json& import);  // the import operation's JSON
std::string FormatImport(const ImportReport& r);         // = FormatImport(ToJson(r))
// The search operation's JSON; explain: the "explain:" line of each hit.
std::string FormatSearch(const nlohmann::json& search, bool explain);
// The page counts of a status document (ToJson(BrainStats) fields).
std::string FormatStats(const nlohmann::json& stats);
// `engram list` (list_pages' JSON): slug, type and title in columns aligned
// by display width (a Chinese character takes two columns).
std::string FormatList(const nlohmann::json& list);
// "rule secret_assignment, line 3" (or ", path or name").
std::string QuarantineWhere(const ImportIssue& q);
// "  not indexed, by reason: quarantined 1; skipped by name (scope.skip_files) 2\n", or "".
std::string SkipCounts(const std::map<std::string, int64_t>& by_reason);

// A page written (put_page's JSON): created or updated, the commit, warnings on stderr.
void PrintPut(const nlohmann::json& r);
// An edit of a page (tag, timeline entry, link, fact): what was written, or
// that the page already said it.
void PrintEdit(const nlohmann::json& r);

// Reports a failed operation: a JSON error document on stdout with --json,
// the message on stderr; returns the exit code.
int Fail(const Status& st, bool json);

// The string at j[key]; "" when it is absent, null or not a string.
std::string StringField(const nlohmann::json& j, const char* key);

// Collapses whitespace and cuts text to at most max_bytes on a UTF-8 boundary.
std::string Snippet(const std::string& text, size_t max_bytes);

// "[embed] ####------ 412/1000  35.2/s  ETA 16 s" on stderr, rewritten in
// place; a line break once done reaches total.
void ProgressBar(const char* what, int64_t done, int64_t total, std::chrono::steady_clock::time_point start);

}  // namespace engram::cli
