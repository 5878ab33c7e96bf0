#include <iostream>
#include "output.h"

#include "common/utf8.h"

#include <cstdio>
#include <sstream>

namespace engram::cli {

using Json = nlohmann::json;

std::string StringField(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

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

std::string QuarantineWhere(const ImportIssue& q) {
  return "rule " + q.reason + (q.line > 0 ? ", line " + std::to_string(q.line) : std::string(", path or name"));
}

std::string SkipCounts(const std::map<std::string, int64_t>& by_reason) {
  if (by_reason.empty()) return "";
  std::string out = "  not indexed, by reason:";
  bool first = true;
  for (const auto& [reason, n] : by_reason) {
    out += (first ? " " : "; ") + reason + " " + std::to_string(n);
    first = false;
  }
  return out + "\n";
}

namespace {

// "%.Nf" of a number.
std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// "  skipped …", "  warning …" and "  quarantined …" lines of an import or sync.
void IssueLines(const Json& r, std::ostringstream& out) {
  for (const auto& s : r["skipped"]) out << "  skipped " << StringField(s, "path") << ": " << StringField(s, "reason") << "\n";
  for (const auto& w : r["warnings"]) out << "  warning " << StringField(w, "path") << ": " << StringField(w, "warning") << "\n";
  for (const auto& q : r["quarantined"]) {
    ImportIssue issue{StringField(q, "path"), StringField(q, "rule"), q.value("line", 0)};
    out << "  quarantined " << issue.path << " (" << QuarantineWhere(issue) << ")\n";
  }
  out << SkipCounts(r["skipped_by_reason"].get<std::map<std::string, int64_t>>());
  if (const int64_t n = r["rekeyed"].get<int64_t>(); n > 0) {
    out << "  re-keyed " << n << " page(s): slugs follow new naming rules\n";
  }
  if (r["embedded"].get<int64_t>() > 0) out << "  embedded " << r["embedded"].get<int64_t>() << " chunks\n";
  if (!StringField(r, "embedding_note").empty()) out << "  embeddings: " << StringField(r, "embedding_note") << "\n";
}

}  // namespace

std::string FormatSync(const Json& r) {
  std::ostringstream out;
  const std::string from = StringField(r, "from");
  out << "Synced " << (from.empty() ? std::string("(nothing)") : from.substr(0, 12)) << " -> "
      << StringField(r, "to").substr(0, 12) << " [" << StringField(r, "mode") << "]: " << r["added"].get<int64_t>() << " added, "
      << r["updated"].get<int64_t>() << " updated, " << r["renamed"].get<int64_t>() << " renamed, "
      << r["deleted"].get<int64_t>() << " deleted, " << r["failed"].size() << " failed ("
      << Fixed(r["seconds"].get<double>(), 2) << " s)" << (r["worktree"].get<bool>() ? ", work tree changes applied" : "")
      << "\n";
  for (const auto& f : r["failed"]) {
    out << "  failed " << StringField(f, "path") << ": " << StringField(f, "reason") << " (retried by the next sync)\n";
  }
  IssueLines(r, out);
  return out.str();
}

std::string FormatSync(const SyncReport& r) { return FormatSync(ToJson(r)); }

namespace {

// The "explain:" line of one hit.
void ExplainLine(const Json& h, bool keyword, std::ostringstream& out) {
  const Json& e = h["explain"];
  if (!keyword) {
    out << "   explain:";
    for (const auto& a : e["arms"]) {
      if (a["rank"].get<int>() < 0) continue;
      out << " " << StringField(a, "arm") << " #" << a["rank"].get<int>() << " (" << Fixed(a["rrf"].get<double>(), 4) << ")";
    }
    out << "; rrf " << Fixed(e["rrf"].get<double>(), 3);
    if (e["compiled_truth_boost"].get<double>() != 1) out << " x" << e["compiled_truth_boost"].get<double>() << " compiled truth";
    if (!e["cosine"].is_null()) {
      out << "; cosine " << Fixed(e["cosine"].get<double>(), 3) << " (share " << Fixed(e["cosine_share"].get<double>(), 2)
          << ")";
    }
    if (e["backlinks"].get<int64_t>() > 0) {
      out << "; " << e["backlinks"].get<int64_t>() << " backlinks x" << Fixed(e["backlink_factor"].get<double>(), 3);
    }
    out << "\n";
    return;
  }
  out << "   explain: chunk bm25 " << Fixed(e["chunk_bm25"].get<double>(), 3) << " (rank " << e["chunk_rank"].get<int>()
      << ")";
  out << ", title bm25 " << Fixed(e["title_bm25"].get<double>(), 3) << " (rank " << e["title_rank"].get<int>() << ")";
  if (e["name_match"].get<bool>()) out << ", exact title/alias match";
  out << "; terms:";
  for (const auto& t : e["terms"]) out << " " << t.get<std::string>();
  out << "\n";
}

}  // namespace

std::string FormatSearch(const Json& r, bool explain) {
  std::ostringstream out;
  const Json& results = r["results"];
  const Json& meta = r["meta"];
  if (r.contains("answer")) {  // the graph's answer to an entity question, before the text
    const Json& a = r["answer"];
    out << "From the graph (" << StringField(a, "kind") << ", as of " << StringField(a, "as_of") << "):\n";
    for (const Json& it : a["items"]) {
      out << "  " << (it["slug"].is_string() ? it["slug"].get<std::string>() + " | " : "") << StringField(it, "title");
      const std::string from = StringField(it, "valid_from"), until = StringField(it, "valid_until");
      if (StringField(it, "predicate") == "timeline") out << "  (" << from << ")";
      else if (!from.empty() || !until.empty()) out << "  [" << from << ".." << until << "]";
      if (it.contains("in_conflict")) out << "  (in conflict)";
      if (it.contains("source")) {
        out << "  — " << StringField(it["source"], "path") << ":" << it["source"]["line"].get<int64_t>();
      }
      out << "\n";
    }
    if (a.contains("note")) out << "  " << StringField(a, "note") << "\n";
    out << "\n";
  }
  if (results.empty()) {
    out << "No results for \"" << StringField(r, "query") << "\".\n";
    return out.str();
  }
  int n = 0;
  for (const Json& h : results) {
    out << ++n << ". " << StringField(h, "title") << "  [" << StringField(h, "type") << "]  " << StringField(h, "slug")
        << "  score " << Fixed(h["score"].get<double>(), 3) << "\n";
    out << "   " << StringField(h, "path") << ":" << h["line_start"].get<int64_t>() << "-" << h["line_end"].get<int64_t>() << " ("
        << StringField(h, "chunk_source") << ")";
    if (h.contains("chunk_dates") && !h["chunk_dates"].empty()) {
      const Json& d = h["chunk_dates"];
      out << "  dated " << d.front().get<std::string>()
          << (d.size() > 1 ? " to " + d.back().get<std::string>() : std::string());
    }
    out << "\n   " << Snippet(StringField(h, "text"), 220) << "\n";
    if (h.contains("timeline")) {
      for (const auto& t : h["timeline"]) {
        out << "   - " << StringField(t, "date") << " | " << Snippet(StringField(t, "summary"), 120) << "\n";
      }
    }
    if (explain && h.contains("explain")) ExplainLine(h, StringField(meta, "mode") == "keyword", out);
  }
  const std::string intent = StringField(meta, "intent");
  out << results.size() << " result(s), " << StringField(meta, "mode") << " mode"
      << (intent.empty() ? std::string() : ", intent " + intent) << ", " << Fixed(meta["took_ms"].get<double>(), 2)
      << " ms\n";
  for (const auto& [arm, c] : meta["confidence"].items()) {
    const double conf = c.get<double>();
    out << "confidence: " << arm << " arm " << Fixed(conf, 2) << (conf == 0 ? " (no better than chance: left out)" : "")
        << "\n";
  }
  for (const auto& note : meta["notes"]) out << "note: " << note.get<std::string>() << "\n";
  return out.str();
}

std::string FormatImport(const Json& r) {
  std::ostringstream out;
  out << "Imported " << StringField(r, "root") << ": " << r["scanned"].get<int64_t>() << " file(s) scanned, "
      << r["added"].get<int64_t>() << " added, " << r["updated"].get<int64_t>() << " updated, "
      << r["unchanged"].get<int64_t>() << " unchanged, " << r["removed"].get<int64_t>() << " removed, "
      << r["skipped"].size() << " skipped (" << Fixed(r["seconds"].get<double>(), 2) << " s)\n";
  IssueLines(r, out);
  return out.str();
}

std::string FormatImport(const ImportReport& r) { return FormatImport(ToJson(r)); }

std::string FormatStats(const Json& s) {
  std::ostringstream out;
  out << "pages:            " << s["pages"].get<int64_t>() << " (" << s["private_pages"].get<int64_t>() << " private)\n";
  out << "  by type:       ";
  for (const auto& [type, n] : s["pages_by_type"].items()) out << " " << type << "=" << n.get<int64_t>();
  out << "\n";
  out << "chunks:           " << s["chunks"].get<int64_t>() << "\n";
  out << "links:            " << s["links"].get<int64_t>() << "\n";
  out << "attachments:      " << s["attachments"].get<int64_t>() << "\n";
  out << "tags:             " << s["tags"].get<int64_t>() << "\n";
  out << "aliases:          " << s["aliases"].get<int64_t>() << "\n";
  out << "timeline entries: " << s["timeline_entries"].get<int64_t>() << "\n";
  out << "page versions:    " << s["versions"].get<int64_t>() << "\n";
  out << "index terms:      " << s["terms"].get<int64_t>() << "\n";
  out << "database:         " << (s["db_bytes"].get<int64_t>() + 1023) / 1024 << " KiB (schema v"
      << s["schema_version"].get<int64_t>() << ")\n";
  if (s.contains("server")) out << "engine:           " << s["server"].get<std::string>() << "\n";
  if (s.contains("replica")) {
    const auto& r = s["replica"];
    out << "read replica:     " << r["where"].get<std::string>();
    if (r["lag_seconds"].is_null()) out << " (unreachable: reads go to the primary)\n";
    else out << " (" << r["lag_seconds"].get<double>() << " s behind" << (r["serving"].get<bool>() ? "" : "; not serving now")
             << ")\n";
  }
  return out.str();
}

int Fail(const Status& st, bool json) {
  if (json) {
    std::cout << engram::ops::Dump(Json{{"error", {{"code", StatusCodeName(st.code())}, {"message", st.message()}}}}, 2) << "\n";
  }
  std::cerr << "engram: " << st.message() << "\n";
  return ExitCodeFor(st);
}

namespace {

// s padded with spaces to `columns` terminal columns (never cut).
std::string PadTo(const std::string& s, size_t columns) {
  const size_t width = common::DisplayWidth(s);
  return width >= columns ? s : s + std::string(columns - width, ' ');
}

}  // namespace

std::string FormatList(const Json& list) {
  const Json& pages = list["pages"];
  size_t slug_width = 0, type_width = 0;
  for (const auto& p : pages) {
    slug_width = std::max(slug_width, common::DisplayWidth(StringField(p, "slug")));
    type_width = std::max(type_width, common::DisplayWidth(StringField(p, "type")));
  }
  slug_width = std::min<size_t>(slug_width, 60);
  std::string out;
  for (const auto& p : pages) {
    out += PadTo(StringField(p, "slug"), slug_width);
    out += "  ";
    out += PadTo(StringField(p, "type"), type_width);
    out += "  ";
    out += StringField(p, "title");
    out += StringField(p, "visibility") == "private" ? "  (private)\n" : "\n";
  }
  out += std::to_string(pages.size()) + " page(s)\n";
  return out;
}

void ProgressBar(const char* what, int64_t done, int64_t total, std::chrono::steady_clock::time_point start) {
  if (total <= 0) return;
  const int width = 30;
  int filled = static_cast<int>(width * done / total);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double rate = secs > 0 ? static_cast<double>(done) / secs : 0;
  double eta = rate > 0 ? static_cast<double>(total - done) / rate : 0;
  std::fprintf(stderr, "\r[%s] %s%s %lld/%lld  %.1f/s  ETA %.0f s   ", what, std::string(filled, '#').c_str(),
               std::string(width - filled, '-').c_str(), static_cast<long long>(done), static_cast<long long>(total),
               rate, eta);
  if (done >= total) std::fprintf(stderr, "\n");
}

void PrintPut(const nlohmann::json& r) {
  std::cout << (r["created"].get<bool>() ? "Created " : "Updated ") << r["slug"].get<std::string>() << " ("
            << r["path"].get<std::string>() << ")";
  if (r.contains("commit")) std::cout << ", committed " << r["commit"].get<std::string>().substr(0, 12);
  std::cout << "\n";
  for (const auto& w : r["warnings"]) std::cerr << "warning: " << w.get<std::string>() << "\n";
}

void PrintEdit(const nlohmann::json& r) {
  if (!r["changed"].get<bool>()) {
    std::cout << r["slug"].get<std::string>() << " already says so; nothing written\n";
    return;
  }
  PrintPut(r);
}

}  // namespace engram::cli
