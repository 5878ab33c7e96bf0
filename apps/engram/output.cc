#include <iostream>
#include "output.h"

#include <cstdio>
#include <sstream>

namespace engram::cli {

using Json = nlohmann::json;

std::string Snippet(const std::string& text, size_t max_bytes) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == '\t' || c == '\r' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  if (out.size() > max_bytes) {
    size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out.resize(cut);
    out += "…";
  }
  return out;
}

namespace {
Json Issues(const std::vector<ImportIssue>& issues, const char* key) {
  Json out = Json::array();
  for (const auto& i : issues) out.push_back({{"path", i.path}, {key, i.reason}});
  return out;
}
}  // namespace

Json ToJson(const SearchResponse& r, bool explain) {
  Json results = Json::array();
  for (const SearchHit& h : r.results) {
    Json j = {{"slug", h.slug},     {"title", h.title},         {"type", h.type}, {"chunk_id", h.chunk_id},
              {"date", h.date},
              {"score", h.score},   {"chunk_source", h.chunk_source}, {"text", h.text},
              {"path", h.path},     {"line_start", h.line_start}, {"line_end", h.line_end}};
    if (!h.timeline.empty()) {
      Json tl = Json::array();
      for (const auto& t : h.timeline) tl.push_back({{"date", t.date}, {"summary", t.summary}, {"source", t.source}});
      j["timeline"] = std::move(tl);
    }
    if (explain && r.mode == "keyword") {
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
           {{"mode", r.mode},
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
          {"skipped", skipped},       {"warnings", warnings}, {"quarantined", Issues(r.quarantined, "rule")},
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
          {"warnings", Issues(r.warnings, "warning")}, {"quarantined", Issues(r.quarantined, "rule")},
          {"worktree", r.worktree},
          {"seconds", r.seconds},
          {"embedded", r.embedded},
          {"embedding_stale", r.embedding_stale},
          {"embedding_note", r.embedding_note}};
}

std::string FormatSync(const SyncReport& r) {
  std::ostringstream out;
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.2f", r.seconds);
  out << "Synced " << (r.from.empty() ? std::string("(nothing)") : r.from.substr(0, 12)) << " -> "
      << r.to.substr(0, 12) << " [" << r.mode << "]: " << r.added << " added, " << r.updated << " updated, "
      << r.renamed << " renamed, " << r.deleted << " deleted, " << r.failed.size() << " failed (" << secs << " s)"
      << (r.worktree ? ", work tree changes applied" : "") << "\n";
  for (const auto& f : r.failed) out << "  failed " << f.path << ": " << f.reason << " (retried by the next sync)\n";
  for (const auto& s : r.skipped) out << "  skipped " << s.path << ": " << s.reason << "\n";
  for (const auto& w : r.warnings) out << "  warning " << w.path << ": " << w.reason << "\n";
  for (const auto& q : r.quarantined) out << "  quarantined " << q.path << " (rule " << q.reason << ")\n";
  if (r.embedded > 0) out << "  embedded " << r.embedded << " chunks\n";
  if (!r.embedding_note.empty()) out << "  embeddings: " << r.embedding_note << "\n";
  return out.str();
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
          {"updated_at", p.updated_at}};
}

Json ToJson(const BrainStats& s) {
  return {{"pages", s.pages},
          {"private_pages", s.private_pages},
          {"chunks", s.chunks},
          {"links", s.links},
          {"tags", s.tags},
          {"aliases", s.aliases},
          {"timeline_entries", s.timeline_entries},
          {"versions", s.versions},
          {"terms", s.terms},
          {"pages_by_type", s.pages_by_type},
          {"db_bytes", s.db_bytes},
          {"schema_version", s.schema_version}};
}

std::string FormatSearch(const SearchResponse& r, bool explain) {
  std::ostringstream out;
  if (r.results.empty()) {
    out << "No results for \"" << r.query << "\".\n";
    return out.str();
  }
  int n = 0;
  for (const SearchHit& h : r.results) {
    char score[32];
    std::snprintf(score, sizeof score, "%.3f", h.score);
    out << ++n << ". " << h.title << "  [" << h.type << "]  " << h.slug << "  score " << score << "\n";
    out << "   " << h.path << ":" << h.line_start << "-" << h.line_end << " (" << h.chunk_source << ")\n";
    out << "   " << Snippet(h.text, 220) << "\n";
    for (const auto& t : h.timeline) out << "   - " << t.date << " | " << Snippet(t.summary, 120) << "\n";
    if (explain && r.mode != "keyword") {
      out << "   explain:";
      for (const auto& a : h.explain.arms) {
        if (a.rank < 0) continue;
        std::snprintf(score, sizeof score, "%.4f", a.rrf);
        out << " " << a.name << " #" << a.rank << " (" << score << ")";
      }
      std::snprintf(score, sizeof score, "%.3f", h.explain.rrf);
      out << "; rrf " << score;
      if (h.explain.boost != 1) out << " x" << h.explain.boost << " compiled truth";
      if (h.explain.has_cosine) {
        std::snprintf(score, sizeof score, "%.3f", h.explain.cosine);
        out << "; cosine " << score;
        std::snprintf(score, sizeof score, "%.2f", h.explain.cosine_share);
        out << " (share " << score << ")";
      }
      if (h.explain.backlinks > 0) {
        std::snprintf(score, sizeof score, "%.3f", h.explain.backlink_factor);
        out << "; " << h.explain.backlinks << " backlinks x" << score;
      }
      out << "\n";
    } else if (explain) {
      std::snprintf(score, sizeof score, "%.3f", h.explain.chunk_score);
      out << "   explain: chunk bm25 " << score << " (rank " << h.explain.chunk_rank << ")";
      std::snprintf(score, sizeof score, "%.3f", h.explain.title_score);
      out << ", title bm25 " << score << " (rank " << h.explain.title_rank << ")";
      if (h.explain.name_match) out << ", exact title/alias match";
      out << "; terms:";
      for (const auto& t : h.explain.terms) out << " " << t;
      out << "\n";
    }
  }
  char took[32];
  std::snprintf(took, sizeof took, "%.2f", r.took_ms);
  out << r.results.size() << " result(s), " << r.mode << " mode"
      << (r.intent.empty() ? std::string() : ", intent " + r.intent) << ", " << took << " ms\n";
  for (const auto& [arm, c] : r.confidence) {
    char conf[32];
    std::snprintf(conf, sizeof conf, "%.2f", c);
    out << "confidence: " << arm << " arm " << conf << (c == 0 ? " (no better than chance: left out)" : "") << "\n";
  }
  for (const auto& note : r.notes) out << "note: " << note << "\n";
  return out.str();
}

std::string FormatImport(const ImportReport& r) {
  std::ostringstream out;
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.2f", r.seconds);
  out << "Imported " << r.root << ": " << r.scanned << " file(s) scanned, " << r.added << " added, " << r.updated
      << " updated, " << r.unchanged << " unchanged, " << r.removed << " removed, " << r.skipped.size()
      << " skipped (" << secs << " s)\n";
  for (const auto& s : r.skipped) out << "  skipped " << s.path << ": " << s.reason << "\n";
  for (const auto& w : r.warnings) out << "  warning " << w.path << ": " << w.reason << "\n";
  for (const auto& q : r.quarantined) out << "  quarantined " << q.path << " (rule " << q.reason << ")\n";
  if (r.embedded > 0) out << "  embedded " << r.embedded << " chunks\n";
  if (!r.embedding_note.empty()) out << "  embeddings: " << r.embedding_note << "\n";
  return out.str();
}

std::string FormatStats(const BrainStats& s) {
  std::ostringstream out;
  out << "pages:            " << s.pages << " (" << s.private_pages << " private)\n";
  out << "  by type:       ";
  for (const auto& [type, n] : s.pages_by_type) out << " " << type << "=" << n;
  out << "\n";
  out << "chunks:           " << s.chunks << "\n";
  out << "links:            " << s.links << "\n";
  out << "tags:             " << s.tags << "\n";
  out << "aliases:          " << s.aliases << "\n";
  out << "timeline entries: " << s.timeline_entries << "\n";
  out << "page versions:    " << s.versions << "\n";
  out << "index terms:      " << s.terms << "\n";
  out << "database:         " << (s.db_bytes + 1023) / 1024 << " KiB (schema v" << s.schema_version << ")\n";
  return out.str();
}

int Fail(const Status& st, bool json) {
  if (json) {
    std::cout << Json{{"error", {{"code", StatusCodeName(st.code())}, {"message", st.message()}}}}.dump(2) << "\n";
  }
  std::cerr << "engram: " << st.message() << "\n";
  return ExitCodeFor(st);
}

}  // namespace engram::cli
