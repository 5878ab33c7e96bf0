#include <iostream>
#include "output.h"

#include "common/utf8.h"

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
  for (const auto& q : r.quarantined) out << "  quarantined " << q.path << " (" << QuarantineWhere(q) << ")\n";
  out << SkipCounts(r.skipped_by_reason);
  if (r.rekeyed > 0) out << "  re-keyed " << r.rekeyed << " page(s): slugs follow new naming rules\n";
  if (r.embedded > 0) out << "  embedded " << r.embedded << " chunks\n";
  if (!r.embedding_note.empty()) out << "  embeddings: " << r.embedding_note << "\n";
  return out.str();
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
  for (const auto& q : r.quarantined) out << "  quarantined " << q.path << " (" << QuarantineWhere(q) << ")\n";
  out << SkipCounts(r.skipped_by_reason);
  if (r.rekeyed > 0) out << "  re-keyed " << r.rekeyed << " page(s): slugs follow new naming rules\n";
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
  out << "attachments:      " << s.attachments << "\n";
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

std::string FormatList(const std::vector<PageSummary>& pages) {
  size_t slug_width = 0, type_width = 0;
  for (const auto& p : pages) {
    slug_width = std::max(slug_width, common::DisplayWidth(p.slug));
    type_width = std::max(type_width, common::DisplayWidth(p.type));
  }
  slug_width = std::min<size_t>(slug_width, 60);
  std::string out;
  for (const auto& p : pages) {
    out += PadTo(p.slug, slug_width) + "  " + PadTo(p.type, type_width) + "  " + p.title +
           (p.is_private ? "  (private)" : "") + "\n";
  }
  out += std::to_string(pages.size()) + " page(s)\n";
  return out;
}

}  // namespace engram::cli
