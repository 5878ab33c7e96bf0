#include "derived_rows_dump.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <vector>

#include "store/postings_codec.h"
#include "store/varint.h"

namespace engram::testing {

namespace {

class Db {
 public:
  explicit Db(const std::filesystem::path& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << "cannot open " << path;
    }
  }
  ~Db() { sqlite3_close(db_); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  // Runs sql and calls row(stmt) for each row.
  template <typename Fn>
  void Each(const std::string& sql, Fn&& row) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db_);
      return;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) row(st);
    if (rc != SQLITE_DONE) ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db_);
    sqlite3_finalize(st);
  }

 private:
  sqlite3* db_ = nullptr;
};

std::string Text(sqlite3_stmt* st, int col) {
  const unsigned char* t = sqlite3_column_text(st, col);
  return t == nullptr ? "<null>" : std::string(reinterpret_cast<const char*>(t));
}

std::string_view Blob(sqlite3_stmt* st, int col) {
  const void* b = sqlite3_column_blob(st, col);
  return b == nullptr ? std::string_view()
                      : std::string_view(static_cast<const char*>(b), static_cast<size_t>(sqlite3_column_bytes(st, col)));
}

// The varint id lists stored with chunks and pages (store::EncodeIds); a
// damaged one dumps as a marker that differs from every valid list.
std::vector<int64_t> Ids(std::string_view blob) {
  std::vector<int64_t> out;
  if (!store::DecodeIds(blob, &out)) return {-1};
  return out;
}

std::string Joined(std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::string Escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\\') out += "\\\\";
    else out += c;
  }
  return out;
}

}  // namespace

DerivedDump DumpDerivedRows(const std::filesystem::path& path) {
  Db db(path);
  std::map<int64_t, std::string> term_of, slug_of, chunk_name;
  db.Each("SELECT id, term FROM terms", [&](sqlite3_stmt* st) { term_of[sqlite3_column_int64(st, 0)] = Text(st, 1); });
  db.Each("SELECT p.id, s.name || ':' || p.slug FROM pages p JOIN sources s ON s.id = p.source_id",
          [&](sqlite3_stmt* st) { slug_of[sqlite3_column_int64(st, 0)] = Text(st, 1); });
  auto term = [&](int64_t id) {
    auto it = term_of.find(id);
    return it == term_of.end() ? "<missing term " + std::to_string(id) + ">" : it->second;
  };
  auto slug = [&](int64_t id) {
    auto it = slug_of.find(id);
    return it == slug_of.end() ? "<missing page " + std::to_string(id) + ">" : it->second;
  };
  auto terms = [&](std::string_view blob) {
    std::string out;
    for (int64_t id : Ids(blob)) {
      if (!out.empty()) out += ' ';
      out += term(id);  // appended: GCC 12 warns (-Wrestrict) on "x" + std::string
    }
    return out;
  };

  DerivedDump dump;
  std::vector<std::string> lines;
  db.Each("SELECT id, path, type, title, frontmatter, compiled_truth, timeline, content, content_hash, visibility, "
          "title_terms, title_length, path_key, name_key FROM pages",
          [&](sqlite3_stmt* st) {
            std::string line = slug(sqlite3_column_int64(st, 0));
            for (int c = 1; c <= 9; ++c) line.append("\t").append(Escaped(Text(st, c)));
            line.append("\t[").append(terms(Blob(st, 10))).append("]\t");
            line.append(std::to_string(sqlite3_column_int64(st, 11)));
            line.append("\t").append(Escaped(Text(st, 12))).append("\t").append(Escaped(Text(st, 13)));
            lines.push_back(line);
          });
  dump["pages"] = Joined(std::move(lines));
  lines.clear();

  db.Each("SELECT id, page_id, ordinal, source, text, token_count, line_start, line_end, terms, term_length "
          "FROM chunks",
          [&](sqlite3_stmt* st) {
            std::string name = slug(sqlite3_column_int64(st, 1)) + "#" + std::to_string(sqlite3_column_int64(st, 2));
            chunk_name[sqlite3_column_int64(st, 0)] = name;
            lines.push_back(name + "\t" + Text(st, 3) + "\t" + Escaped(Text(st, 4)) + "\t" + Text(st, 5) + "\t" +
                            Text(st, 6) + "-" + Text(st, 7) + "\t[" + terms(Blob(st, 8)) + "]\t" + Text(st, 9));
          });
  dump["chunks"] = Joined(std::move(lines));
  lines.clear();

  for (bool titles : {false, true}) {
    db.Each(titles ? "SELECT term_id, data FROM title_postings" : "SELECT term_id, data FROM postings",
            [&](sqlite3_stmt* st) {
              std::string t = term(sqlite3_column_int64(st, 0));
              std::string_view blob = Blob(st, 1);
              std::vector<store::Posting> list;
              if (!store::DecodePostings(blob, &list).ok()) {
                lines.push_back(t + "\t<damaged list>");
                return;
              }
              if (list.empty()) lines.push_back(t + "\t<empty list stored>");
              if (store::EncodePostings(list) != blob) lines.push_back(t + "\t<list not in canonical encoding>");
              for (const store::Posting& p : list) {
                std::string doc;
                if (titles) {
                  doc = slug(p.doc);
                } else {
                  auto it = chunk_name.find(p.doc);
                  doc = it == chunk_name.end() ? "<missing chunk " + std::to_string(p.doc) + ">" : it->second;
                }
                lines.push_back(t + "\t" + doc + "\t" + slug(p.page) + "\t" + std::to_string(p.tf) + "\t" +
                                std::to_string(p.dl));
              }
            });
    dump[titles ? "title_postings" : "postings"] = Joined(std::move(lines));
    lines.clear();
  }

  db.Each("SELECT chunks, chunk_tokens, titles, title_tokens FROM corpus_stats", [&](sqlite3_stmt* st) {
    lines.push_back(Text(st, 0) + " " + Text(st, 1) + " " + Text(st, 2) + " " + Text(st, 3));
  });
  dump["corpus_stats"] = Joined(std::move(lines));
  lines.clear();

  db.Each("SELECT from_page, to_slug, to_name, type, label, context FROM links", [&](sqlite3_stmt* st) {
    lines.push_back(slug(sqlite3_column_int64(st, 0)) + "\t" + Text(st, 1) + "\t" + Text(st, 2) + "\t" +
                    Text(st, 3) + "\t" + Escaped(Text(st, 4)) + "\t" + Escaped(Text(st, 5)));
  });
  dump["links"] = Joined(std::move(lines));
  lines.clear();
  db.Each("SELECT page_id, tag FROM tags",
          [&](sqlite3_stmt* st) { lines.push_back(slug(sqlite3_column_int64(st, 0)) + "\t" + Text(st, 1)); });
  dump["tags"] = Joined(std::move(lines));
  lines.clear();
  db.Each("SELECT page_id, alias FROM aliases",
          [&](sqlite3_stmt* st) { lines.push_back(slug(sqlite3_column_int64(st, 0)) + "\t" + Text(st, 1)); });
  dump["aliases"] = Joined(std::move(lines));
  lines.clear();
  db.Each("SELECT page_id, date, summary, summary_hash, source, line FROM timeline_entries", [&](sqlite3_stmt* st) {
    lines.push_back(slug(sqlite3_column_int64(st, 0)) + "\t" + Text(st, 1) + "\t" + Escaped(Text(st, 2)) + "\t" +
                    Text(st, 3) + "\t" + Escaped(Text(st, 4)) + "\t" + Text(st, 5));
  });
  dump["timeline_entries"] = Joined(std::move(lines));
  return dump;
}

}  // namespace engram::testing
