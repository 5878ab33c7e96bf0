#include "ops/render.h"

#include <nlohmann/json.hpp>

namespace engram::ops {

using Json = nlohmann::json;

namespace {
Json Issues(const std::vector<ImportIssue>& issues, const char* key) {
  Json out = Json::array();
  for (const auto& i : issues) out.push_back({{"path", i.path}, {key, i.reason}});
  return out;
}

// Quarantined files: path, rule and line (0: the path or name hit) — never content.
Json Quarantined(const std::vector<ImportIssue>& issues) {
  Json out = Json::array();
  for (const auto& i : issues) out.push_back({{"path", i.path}, {"rule", i.reason}, {"line", i.line}});
  return out;
}
}  // namespace

Json ToJson(const SearchResponse& r, bool explain) {
  Json results = Json::array();
  for (const SearchHit& h : r.results) {
    Json j = {{"slug", h.slug},     {"title", h.title},         {"type", h.type}, {"chunk_id", h.chunk_id.value()},
              {"date", h.date},     {"chunk_dates", h.chunk_dates},
              {"score", h.score},   {"chunk_source", ChunkSourceName(h.chunk_source)}, {"text", h.text},
              {"path", h.path},     {"line_start", h.line_start}, {"line_end", h.line_end}};
    if (!h.timeline.empty()) {
      Json tl = Json::array();
      for (const auto& t : h.timeline) tl.push_back({{"date", t.date}, {"summary", t.summary}, {"source", t.source}});
      j["timeline"] = std::move(tl);
    }
    if (explain && r.mode == SearchMode::kKeyword) {
      j["explain"] = {{"chunk_bm25", h.explain.chunk_score}, {"title_bm25", h.explain.title_score},
                      {"chunk_rank", h.explain.chunk_rank},  {"title_rank", h.explain.title_rank},
                      {"name_match", h.explain.name_match},
                      {"terms", h.explain.terms}};
    } else if (explain) {
      Json arms = Json::array();
      for (const auto& a : h.explain.arms) arms.push_back({{"arm", a.name}, {"rank", a.rank}, {"rrf", a.rrf}});
      j["explain"] = {{"arms", arms},
                      {"rrf", h.explain.rrf},
                      {"compiled_truth_boost", h.explain.boost},
                      {"cosine", h.explain.has_cosine ? Json(h.explain.cosine) : Json(nullptr)},
                      {"cosine_share", h.explain.cosine_share},
                      {"backlinks", h.explain.backlinks},
                      {"backlink_factor", h.explain.backlink_factor}};
    }
    results.push_back(std::move(j));
  }
  return {{"query", r.query},
          {"results", std::move(results)},
          {"meta",
           {{"mode", SearchModeName(r.mode)},
            {"intent", r.intent.empty() ? Json(nullptr) : Json(r.intent)},
            {"stage_ms", [&] {
               Json j = Json::object();
               for (const auto& [stage, ms] : r.stage_ms) j[stage] = ms;
               return j;
             }()},
            {"confidence", [&] {
               Json j = Json::object();
               for (const auto& [arm, c] : r.confidence) j[arm] = c;
               return j;
             }()},
            {"count", r.results.size()},
            {"took_ms", r.took_ms},
            {"notes", r.notes}}}};
}

Json ToJson(const ImportReport& r) {
  Json skipped = Json::array(), warnings = Json::array();
  for (const auto& s : r.skipped) skipped.push_back({{"path", s.path}, {"reason", s.reason}});
  for (const auto& w : r.warnings) warnings.push_back({{"path", w.path}, {"warning", w.reason}});
  return {{"root", r.root},           {"scanned", r.scanned}, {"added", r.added},
          {"updated", r.updated},     {"unchanged", r.unchanged}, {"removed", r.removed},
          {"skipped", skipped},       {"warnings", warnings}, {"quarantined", Quarantined(r.quarantined)},
          {"skipped_by_reason", r.skipped_by_reason}, {"rekeyed", r.rekeyed},
          {"seconds", r.seconds},     {"embedded", r.embedded}, {"embedding_stale", r.embedding_stale},
          {"embedding_note", r.embedding_note}};
}

Json ToJson(const SyncReport& r) {
  // "modified" and "anchor" are the documented names; "updated", "from" and
  // "to" say the same for readers of the text output.
  return {{"from", r.from},         {"to", r.to},
          {"anchor", r.to},         {"mode", r.mode},
          {"added", r.added},       {"modified", r.updated},
          {"updated", r.updated},   {"renamed", r.renamed},
          {"deleted", r.deleted},   {"unchanged", r.unchanged},
          {"skipped", Issues(r.skipped, "reason")}, {"failed", Issues(r.failed, "reason")},
          {"warnings", Issues(r.warnings, "warning")}, {"quarantined", Quarantined(r.quarantined)},
          {"skipped_by_reason", r.skipped_by_reason},
          {"rekeyed", r.rekeyed},
          {"worktree", r.worktree},
          {"seconds", r.seconds},
          {"embedded", r.embedded},
          {"embedding_stale", r.embedding_stale},
          {"embedding_note", r.embedding_note}};
}

Json ToJson(const StoredPage& p) {
  Json fm = Json::parse(p.frontmatter_json, nullptr, false);
  if (fm.is_discarded()) fm = Json::object();
  return {{"slug", p.slug},
          {"path", p.path},
          {"type", p.type},
          {"title", p.title},
          {"tags", p.tags},
          {"aliases", p.aliases},
          {"visibility", p.is_private ? "private" : "public"},
          {"frontmatter", fm},
          {"compiled_truth", p.compiled_truth},
          {"timeline", p.timeline},
          {"content", p.content},
          {"content_hash", p.content_hash},
          {"created_at", p.created_at},
          {"updated_at", p.updated_at},
          {"indexed_at", p.indexed_at}};
}

Json ToJson(const BrainStats& s) {
  Json j = {{"pages", s.pages},
            {"private_pages", s.private_pages},
            {"chunks", s.chunks},
            {"links", s.links},
            {"attachments", s.attachments},
            {"tags", s.tags},
            {"aliases", s.aliases},
            {"timeline_entries", s.timeline_entries},
            {"versions", s.versions},
            {"terms", s.terms},
            {"pages_by_type", s.pages_by_type},
            {"db_bytes", s.db_bytes},
            {"schema_version", s.schema_version},
            {"engine", s.engine},
            {"server", s.server}};
  if (s.scoped) {  // counts that would tell a reader of public pages about private ones
    for (const char* hidden : {"private_pages", "versions", "terms", "db_bytes"}) j.erase(hidden);
  }
  if (s.replica) {
    j["replica"] = {{"where", s.replica->where},
                    {"lag_seconds", s.replica->lag_seconds < 0 ? Json(nullptr) : Json(s.replica->lag_seconds)},
                    {"serving", s.replica->serving}};
  }
  return j;
}

Json ToJson(const std::vector<PageSummary>& pages) {
  Json list = Json::array();
  for (const auto& p : pages) {
    list.push_back({{"slug", p.slug}, {"title", p.title}, {"type", p.type}, {"path", p.path},
                    {"visibility", p.is_private ? "private" : "public"}, {"updated_at", p.updated_at}});
  }
  return {{"pages", list}, {"count", pages.size()}};
}

Json ToJson(const std::vector<LinkRecord>& links) {
  Json list = Json::array();
  for (const auto& l : links) {
    list.push_back({{"from", l.from_slug}, {"to", l.to_slug}, {"type", l.type}, {"context", l.context}});
  }
  return list;
}

Json ToJson(const std::vector<TimelineEntry>& entries) {
  Json list = Json::array();
  for (const auto& t : entries) {
    list.push_back({{"date", t.date}, {"summary", t.summary}, {"source", t.source}, {"line", t.line}});
  }
  return list;
}

Json ToJson(const PutReport& r) {
  Json j = {{"slug", r.slug}, {"path", r.path}, {"created", r.created}, {"changed", r.changed}, {"warnings", r.warnings}};
  if (!r.commit.empty()) j["commit"] = r.commit;
  return j;
}

Json ToJson(const BrainStatus& s) {
  Json j = ToJson(s.stats);
  if (!s.root.empty()) {
    j["root"] = s.root;
    j["source_root"] = s.source_root;
    j["database"] = s.database;
  }
  j["synced_commit"] = s.synced_commit;
  Json problems = Json::array();
  for (const auto& e : s.recent_problems) {
    problems.push_back({{"at", e.at}, {"path", e.path}, {"action", e.action}, {"message", e.message}});
  }
  j["recent_problems"] = problems;
  Json failures = Json::array();
  for (const auto& x : s.sync_failures) failures.push_back({{"path", x.path}, {"reason", x.reason}, {"at", x.at}});
  j["sync_failures"] = failures;
  Json quarantined = Json::array();
  for (const auto& q : s.quarantined) {
    quarantined.push_back({{"path", q.path}, {"rule", q.rule}, {"line", q.line}, {"at", q.at}});
  }
  j["quarantined"] = quarantined;
  j["last_sync_error"] = s.last_sync_error.empty() ? Json(nullptr) : Json(s.last_sync_error);
  const EmbeddingStatus& e = s.embedding;
  j["embedding"] = {{"provider", e.provider}, {"model", e.model}, {"recorded_model", e.recorded_model},
                    {"dims", e.recorded_dims}, {"chunks", e.chunks}, {"embedded", e.current}, {"stale", e.stale}};
  return j;
}

Json ErrorJson(const Status& st) {
  return {{"error", {{"code", StatusCodeName(st.code())}, {"message", st.message()}}}};
}

std::string Dump(const Json& j, int indent) { return j.dump(indent, ' ', false, Json::error_handler_t::replace); }

}  // namespace engram::ops
