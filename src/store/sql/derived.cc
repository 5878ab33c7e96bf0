// PageDerivedRows: a page's derived rows without ids, so that `engram check`
// can compare them with a rebuild of the page written to a scratch store.
#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>

#include "store/sql/sql_engine.h"

namespace engram::store::sql {

namespace {

// Field separators and line ends inside values would make two different row
// sets print alike.
std::string Escaped(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\\') out += "\\\\";
    else out.push_back(c);
  }
  return out;
}

std::string SortedLines(std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// One PageDerivedRows call: the pages' rows as lines, term names read once,
// and which posting lists the pages use (read afterwards, each list once).
class DerivedDump {
 public:
  using Statements = std::function<Result<Stmt*>(const char*)>;
  explicit DerivedDump(Statements s) : s_(std::move(s)) {}

  // The page row, its chunks (with their term lists by name) and its links,
  // tags, aliases and timeline; nothing when source has no page slug.
  Status AddPage(int64_t source_id, const std::string& slug, std::map<std::string, DerivedRows>* out);
  // The term ids whose lists the added pages use (titles or chunks).
  const std::unordered_map<int64_t, std::set<std::string>>& Wanted(bool titles) const {
    return titles ? title_terms_ : chunk_terms_;
  }
  // One posting list of a wanted term, as lines of the pages it names.
  Status TakeList(bool titles, int64_t term, std::string_view blob);
  void Finish(std::map<std::string, DerivedRows>* out);

 private:
  struct Owner {
    std::string slug;
    int64_t page_id = 0;
    int64_t ordinal = -1;
  };
  Result<std::string> TermName(int64_t id);
  Result<std::string> TermList(std::string_view blob);
  Result<std::string> ChunkRows(int64_t page_id, const std::string& slug);
  Status FactRows(int64_t page_id, DerivedRows* rows);

  Statements s_;
  std::unordered_map<int64_t, std::string> term_names_;
  std::unordered_map<int64_t, Owner> chunk_owner_;  // chunk id -> its page and ordinal
  std::unordered_map<int64_t, std::string> page_slug_;
  std::unordered_map<int64_t, std::set<std::string>> chunk_terms_, title_terms_;  // lists to read -> pages using them
  std::map<std::string, std::vector<std::string>> chunk_postings_, title_postings_;  // slug -> lines
};

Result<std::string> DerivedDump::TermName(int64_t id) {
  auto it = term_names_.find(id);
  if (it != term_names_.end()) return it->second;
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, s_("SELECT term FROM terms WHERE id = ?"));
  q->Bind(1, id);
  std::string name = q->Step() ? q->Text(0) : "<missing term " + std::to_string(id) + ">";
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  term_names_.emplace(id, name);
  return name;
}

Result<std::string> DerivedDump::TermList(std::string_view blob) {
  std::string s;
  std::vector<int64_t> ids;
  if (!store::DecodeIds(blob, &ids)) return std::string("<damaged term list>");
  for (int64_t id : ids) {
    ENGRAM_ASSIGN_OR_RETURN(std::string name, TermName(id));
    if (!s.empty()) s += ' ';
    s += name;
  }
  return s;
}

Status DerivedDump::AddPage(int64_t source_id, const std::string& slug, std::map<std::string, DerivedRows>* out) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, s_("SELECT id, path, type, title, frontmatter, compiled_truth, timeline, content, "
                                       "content_hash, visibility, title_terms, title_length, path_key, name_key FROM pages "
                                       "WHERE source_id = ? AND slug = ?"));
  q->Bind(1, source_id).Bind(2, slug);
  if (!q->Step()) return q->status();
  int64_t page_id = q->Int(0);
  std::string line = Escaped(slug);
  // Appended piece by piece: GCC 12 warns (-Wrestrict) on "\t" + std::string.
  for (int c = 1; c <= 9; ++c) line.append("\t").append(Escaped(q->Text(c)));
  std::string title_blob(q->Blob(10));
  line.append("\t").append(std::to_string(q->Int(11))).append("\t").append(Escaped(q->Text(12)));
  line.append("\t").append(Escaped(q->Text(13)));
  q->Reset();
  ENGRAM_ASSIGN_OR_RETURN(std::string titles, TermList(title_blob));
  line += "\t[" + titles + "]";
  DerivedRows& rows = (*out)[slug];
  rows["page"] = line + "\n";
  page_slug_[page_id] = slug;
  std::vector<int64_t> title_ids;
  (void)store::DecodeIds(title_blob, &title_ids);  // damaged: no ids, and the row says so
  for (int64_t t : title_ids) title_terms_[t].insert(slug);
  title_postings_[slug];
  chunk_postings_[slug];
  ENGRAM_ASSIGN_OR_RETURN(rows["chunks"], ChunkRows(page_id, slug));
  return FactRows(page_id, &rows);
}

Result<std::string> DerivedDump::ChunkRows(int64_t page_id, const std::string& slug) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * cq, s_("SELECT id, ordinal, source, text, token_count, line_start, line_end, terms, "
                                        "term_length FROM chunks WHERE page_id = ? ORDER BY ordinal"));
  cq->Bind(1, page_id);
  std::vector<std::pair<std::string, std::string>> chunk_rows;  // (row without terms, term blob)
  while (cq->Step()) {
    chunk_owner_[cq->Int(0)] = {slug, page_id, cq->Int(1)};
    std::string blob(cq->Blob(7));
    std::vector<int64_t> ids;
    (void)store::DecodeIds(blob, &ids);  // damaged: no ids, and the row says so
    for (int64_t t : ids) chunk_terms_[t].insert(slug);
    chunk_rows.emplace_back(cq->Text(1) + "\t" + cq->Text(2) + "\t" + Escaped(cq->Text(3)) + "\t" + cq->Text(4) +
                                "\t" + cq->Text(5) + "-" + cq->Text(6) + "\t" + cq->Text(8),
                            std::move(blob));
  }
  ENGRAM_RETURN_IF_ERROR(cq->status());
  cq->Reset();
  std::string chunks;
  for (const auto& [row, blob] : chunk_rows) {
    ENGRAM_ASSIGN_OR_RETURN(std::string names, TermList(blob));
    chunks += row + "\t[" + names + "]\n";  // in ordinal order
  }
  return chunks;
}

Status DerivedDump::FactRows(int64_t page_id, DerivedRows* rows) {
  static const char* const kRows[][2] = {
      {"links", "SELECT to_slug, to_name, type, label, context FROM links WHERE from_page = ?"},
      {"tags", "SELECT tag FROM tags WHERE page_id = ?"},
      {"aliases", "SELECT alias FROM aliases WHERE page_id = ?"},
      {"timeline", "SELECT date, summary, summary_hash, source, line FROM timeline_entries WHERE page_id = ?"},
      {"facts", "SELECT subject, subject_name, predicate, value, value_is_link, value_name, valid_from, valid_until, "
                "line, origin FROM facts WHERE page_id = ?"},
  };
  for (const auto& [name, sql] : kRows) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * rq, s_(sql));
    rq->Bind(1, page_id);
    std::vector<std::string> lines;
    while (rq->Step()) {
      std::string l;
      for (int c = 0; c < rq->ColumnCount(); ++c) {
        if (c) l += '\t';
        l += Escaped(rq->Text(c));
      }
      lines.push_back(std::move(l));
    }
    ENGRAM_RETURN_IF_ERROR(rq->status());
    rq->Reset();
    (*rows)[name] = SortedLines(std::move(lines));
  }
  return Status::Ok();
}

Status DerivedDump::TakeList(bool titles, int64_t term, std::string_view blob) {
  std::vector<Posting> list;
  ENGRAM_ASSIGN_OR_RETURN(std::string name, TermName(term));
  if (!DecodePostings(blob, &list).ok()) {
    // Damaged: every page that lists the term is affected.
    for (const std::string& slug : Wanted(titles).at(term)) {
      (titles ? title_postings_ : chunk_postings_)[slug].push_back(Escaped(name) + "\t<damaged list>");
    }
    return Status::Ok();
  }
  for (const Posting& p : list) {
    if (titles) {
      auto it = page_slug_.find(p.doc);
      if (it == page_slug_.end()) continue;
      std::string where = p.page == p.doc ? "" : "\t<page " + std::to_string(p.page) + ">";
      title_postings_[it->second].push_back(Escaped(name) + "\t" + std::to_string(p.tf) + "\t" +
                                            std::to_string(p.dl) + where);
    } else {
      auto it = chunk_owner_.find(p.doc);
      if (it == chunk_owner_.end()) continue;
      std::string where = p.page == it->second.page_id ? "" : "\t<page " + std::to_string(p.page) + ">";
      chunk_postings_[it->second.slug].push_back(std::to_string(it->second.ordinal) + "\t" + Escaped(name) + "\t" +
                                                 std::to_string(p.tf) + "\t" + std::to_string(p.dl) + where);
    }
  }
  return Status::Ok();
}

void DerivedDump::Finish(std::map<std::string, DerivedRows>* out) {
  for (auto& [slug, lines] : chunk_postings_) (*out)[slug]["chunk postings"] = SortedLines(std::move(lines));
  for (auto& [slug, lines] : title_postings_) (*out)[slug]["title postings"] = SortedLines(std::move(lines));
}

}  // namespace

Result<std::map<std::string, DerivedRows>> SqlEngine::PageDerivedRows(std::string_view source,
                                                                         const std::vector<std::string>& slugs) {
  FinishReads();
  std::map<std::string, DerivedRows> out;
  auto source_id = SourceId(source, false);
  if (!source_id.ok()) {
    if (source_id.status().code() == StatusCode::kNotFound) return out;
    return source_id.status();
  }
  DerivedDump dump([this](const char* sql) { return S(sql); });
  for (const std::string& slug : slugs) ENGRAM_RETURN_IF_ERROR(dump.AddPage(*source_id, slug, &out));
  // Each list is read once, whoever of the pages uses it: point reads for a
  // few pages, one pass over the table when most terms are needed anyway.
  ENGRAM_ASSIGN_OR_RETURN(Stmt * size, S("SELECT coalesce(max(id), 0) FROM terms"));
  int64_t all_terms = size->Step() ? size->Int(0) : 0;
  ENGRAM_RETURN_IF_ERROR(size->status());
  size->Reset();
  for (bool titles : {false, true}) {
    const auto& wanted = dump.Wanted(titles);
    if (wanted.empty()) continue;
    if (static_cast<int64_t>(wanted.size()) * 8 > all_terms) {
      ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(titles ? "SELECT term_id, data FROM title_postings"
                                                 : "SELECT term_id, data FROM postings"));
      while (q->Step()) {
        if (wanted.count(q->Int(0))) ENGRAM_RETURN_IF_ERROR(dump.TakeList(titles, q->Int(0), q->Blob(1)));
      }
      ENGRAM_RETURN_IF_ERROR(q->status());
      q->Reset();
      continue;
    }
    std::vector<int64_t> order;
    for (const auto& entry : wanted) order.push_back(entry.first);
    std::sort(order.begin(), order.end());
    std::string blob;
    for (int64_t t : order) {
      ENGRAM_RETURN_IF_ERROR(ReadPostingBlobCopy(t, titles, &blob));
      if (!blob.empty()) ENGRAM_RETURN_IF_ERROR(dump.TakeList(titles, t, blob));
    }
  }
  dump.Finish(&out);
  return out;
}

}  // namespace engram::store::sql
