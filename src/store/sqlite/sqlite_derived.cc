// PageDerivedRows: a page's derived rows without ids, so that `engram check`
// can compare them with a rebuild of the page written to a scratch store.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "store/sqlite/sqlite_engine.h"

namespace engram::store::sqlite {

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

}  // namespace

Result<std::map<std::string, DerivedRows>> SqliteEngine::PageDerivedRows(std::string_view source,
                                                                         const std::vector<std::string>& slugs) {
  FinishReads();
  std::map<std::string, DerivedRows> out;
  auto source_id = SourceId(source, false);
  if (!source_id.ok()) {
    if (source_id.status().code() == StatusCode::kNotFound) return out;
    return source_id.status();
  }

  std::unordered_map<int64_t, std::string> term_names;
  auto term_name = [&](int64_t id) -> Result<std::string> {
    auto it = term_names.find(id);
    if (it != term_names.end()) return it->second;
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT term FROM terms WHERE id = ?"));
    q->Bind(1, id);
    std::string name = q->Step() ? q->Text(0) : "<missing term " + std::to_string(id) + ">";
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
    term_names.emplace(id, name);
    return name;
  };
  auto term_list = [&](std::string_view blob) -> Result<std::string> {
    std::string s;
    std::vector<int64_t> ids;
    if (!store::DecodeIds(blob, &ids)) return std::string("<damaged term list>");
    for (int64_t id : ids) {
      ENGRAM_ASSIGN_OR_RETURN(std::string name, term_name(id));
      s += (s.empty() ? "" : " ") + name;
    }
    return s;
  };

  struct Owner {
    std::string slug;
    int64_t page_id = 0;
    int64_t ordinal = -1;  // -1 for the page's title
  };
  std::unordered_map<int64_t, Owner> chunk_owner;  // chunk id -> its page and ordinal
  std::unordered_map<int64_t, std::string> page_slug;
  std::unordered_map<int64_t, std::set<std::string>> chunk_terms, title_terms;  // lists to read -> pages using them
  std::map<std::string, std::vector<std::string>> chunk_postings, title_postings;  // slug -> lines

  for (const std::string& slug : slugs) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id, path, type, title, frontmatter, compiled_truth, timeline, content, "
                                        "content_hash, visibility, title_terms, title_length, path_key, name_key FROM pages "
                                        "WHERE source_id = ? AND slug = ?"));
    q->Bind(1, *source_id).Bind(2, slug);
    if (!q->Step()) {
      ENGRAM_RETURN_IF_ERROR(q->status());
      continue;
    }
    int64_t page_id = q->Int(0);
    std::string line = Escaped(slug);
    // Appended piece by piece: GCC 12 warns (-Wrestrict) on "\t" + std::string.
    for (int c = 1; c <= 9; ++c) line.append("\t").append(Escaped(q->Text(c)));
    std::string title_blob(q->Blob(10));
    line.append("\t").append(std::to_string(q->Int(11))).append("\t").append(Escaped(q->Text(12)));
    line.append("\t").append(Escaped(q->Text(13)));
    q->Reset();
    ENGRAM_ASSIGN_OR_RETURN(std::string titles, term_list(title_blob));
    line += "\t[" + titles + "]";
    DerivedRows& rows = out[slug];
    rows["page"] = line + "\n";
    page_slug[page_id] = slug;
    std::vector<int64_t> title_ids;
    (void)store::DecodeIds(title_blob, &title_ids);  // damaged: no ids, and the row says so
    for (int64_t t : title_ids) title_terms[t].insert(slug);
    title_postings[slug];
    chunk_postings[slug];

    std::vector<std::string> lines;
    ENGRAM_ASSIGN_OR_RETURN(Stmt * cq, S("SELECT id, ordinal, source, text, token_count, line_start, line_end, terms, "
                                         "term_length FROM chunks WHERE page_id = ? ORDER BY ordinal"));
    cq->Bind(1, page_id);
    std::vector<std::pair<std::string, std::string>> chunk_rows;  // (row without terms, term blob)
    while (cq->Step()) {
      chunk_owner[cq->Int(0)] = {slug, page_id, cq->Int(1)};
      std::string blob(cq->Blob(7));
      std::vector<int64_t> ids;
      (void)store::DecodeIds(blob, &ids);  // damaged: no ids, and the row says so
      for (int64_t t : ids) chunk_terms[t].insert(slug);
      chunk_rows.emplace_back(cq->Text(1) + "\t" + cq->Text(2) + "\t" + Escaped(cq->Text(3)) + "\t" + cq->Text(4) +
                                  "\t" + cq->Text(5) + "-" + cq->Text(6) + "\t" + cq->Text(8),
                              std::move(blob));
    }
    ENGRAM_RETURN_IF_ERROR(cq->status());
    cq->Reset();
    std::string chunks;
    for (const auto& [row, blob] : chunk_rows) {
      ENGRAM_ASSIGN_OR_RETURN(std::string names, term_list(blob));
      chunks += row + "\t[" + names + "]\n";  // in ordinal order
    }
    rows["chunks"] = chunks;

    static const char* const kRows[][2] = {
        {"links", "SELECT to_slug, to_name, type, label, context FROM links WHERE from_page = ?"},
        {"tags", "SELECT tag FROM tags WHERE page_id = ?"},
        {"aliases", "SELECT alias FROM aliases WHERE page_id = ?"},
        {"timeline", "SELECT date, summary, summary_hash, source, line FROM timeline_entries WHERE page_id = ?"},
    };
    for (const auto& [name, sql] : kRows) {
      ENGRAM_ASSIGN_OR_RETURN(Stmt * rq, S(sql));
      rq->Bind(1, page_id);
      lines.clear();
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
      rows[name] = SortedLines(std::move(lines));
    }
  }

  // Each list is read once, whoever of the pages uses it: point reads for a
  // few pages, one pass over the table when most terms are needed anyway.
  for (bool titles : {false, true}) {
    const auto& wanted = titles ? title_terms : chunk_terms;
    if (wanted.empty()) continue;
    auto take = [&](int64_t term, std::string_view blob) -> Status {
      std::vector<Posting> list;
      ENGRAM_ASSIGN_OR_RETURN(std::string name, term_name(term));
      Status decoded = DecodePostings(blob, &list);
      if (!decoded.ok()) {
        // Damaged: every page that lists the term is affected.
        for (const std::string& slug : wanted.at(term)) {
          (titles ? title_postings : chunk_postings)[slug].push_back(Escaped(name) + "\t<damaged list>");
        }
        return Status::Ok();
      }
      for (const Posting& p : list) {
        std::string slug, where;
        if (titles) {
          auto it = page_slug.find(p.doc);
          if (it == page_slug.end()) continue;
          slug = it->second;
          where = p.page == p.doc ? "" : "\t<page " + std::to_string(p.page) + ">";
          title_postings[slug].push_back(Escaped(name) + "\t" + std::to_string(p.tf) + "\t" +
                                         std::to_string(p.dl) + where);
        } else {
          auto it = chunk_owner.find(p.doc);
          if (it == chunk_owner.end()) continue;
          slug = it->second.slug;
          where = p.page == it->second.page_id ? "" : "\t<page " + std::to_string(p.page) + ">";
          chunk_postings[slug].push_back(std::to_string(it->second.ordinal) + "\t" + Escaped(name) + "\t" +
                                         std::to_string(p.tf) + "\t" + std::to_string(p.dl) + where);
        }
      }
      return Status::Ok();
    };
    ENGRAM_ASSIGN_OR_RETURN(Stmt * size, S("SELECT coalesce(max(id), 0) FROM terms"));
    int64_t all_terms = size->Step() ? size->Int(0) : 0;
    ENGRAM_RETURN_IF_ERROR(size->status());
    size->Reset();
    if (static_cast<int64_t>(wanted.size()) * 8 > all_terms) {
      ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(titles ? "SELECT term_id, data FROM title_postings"
                                                 : "SELECT term_id, data FROM postings"));
      while (q->Step()) {
        if (wanted.count(q->Int(0))) ENGRAM_RETURN_IF_ERROR(take(q->Int(0), q->Blob(1)));
      }
      ENGRAM_RETURN_IF_ERROR(q->status());
      q->Reset();
    } else {
      std::vector<int64_t> order;
      for (const auto& entry : wanted) order.push_back(entry.first);
      std::sort(order.begin(), order.end());
      std::string blob;
      for (int64_t t : order) {
        ENGRAM_RETURN_IF_ERROR(ReadPostingBlobCopy(t, titles, &blob));
        if (!blob.empty()) ENGRAM_RETURN_IF_ERROR(take(t, blob));
      }
    }
  }
  for (auto& [slug, lines] : chunk_postings) out[slug]["chunk postings"] = SortedLines(std::move(lines));
  for (auto& [slug, lines] : title_postings) out[slug]["title postings"] = SortedLines(std::move(lines));
  return out;
}

}  // namespace engram::store::sqlite
