// Reads that keyword search needs besides the posting lists: names and
// aliases of pages, and chunk rows for the hits.
#include "store/sql/sql_engine.h"

namespace engram::store::sql {

Result<std::vector<std::string>> SqlEngine::PageAliases(PageId page_id) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT alias FROM aliases WHERE page_id = ?1 ORDER BY alias"));
  q->Bind(1, page_id.value());
  std::vector<std::string> out;
  while (q->Step()) out.push_back(q->Text(0));
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Result<std::vector<PageId>> SqlEngine::PagesNamed(const ReadScope& scope, std::string_view name) {
  ENGRAM_ASSIGN_OR_RETURN(
      Stmt * q, S("SELECT p.id FROM pages p JOIN sources s ON s.id = p.source_id "
                  "WHERE p.title = ?1 COLLATE NOCASE AND (?2 OR p.visibility = 'public') AND (?3 = '' OR s.name = ?3) "
                  "UNION SELECT a.page_id FROM aliases a JOIN pages p ON p.id = a.page_id JOIN sources s ON s.id = p.source_id "
                  "WHERE a.alias = ?1 COLLATE NOCASE AND (?2 OR p.visibility = 'public') AND (?3 = '' OR s.name = ?3) "
                  "ORDER BY 1"));
  q->Bind(1, name).Bind(2, int64_t{scope.include_private ? 1 : 0}).Bind(3, scope.source);
  std::vector<PageId> out;
  while (q->Step()) out.emplace_back(q->Int(0));
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Result<std::vector<PageNames>> SqlEngine::AllPageNames(const ReadScope& scope) {
  ENGRAM_ASSIGN_OR_RETURN(
      Stmt * q, S("SELECT p.slug, p.path, p.title, p.visibility, a.alias, p.type, p.id FROM pages p "
                  "JOIN sources s ON s.id = p.source_id LEFT JOIN aliases a ON a.page_id = p.id "
                  "WHERE s.name = ?1 AND (?2 OR p.visibility = 'public') ORDER BY p.slug, a.alias"));
  q->Bind(1, scope.source).Bind(2, int64_t{scope.include_private ? 1 : 0});
  std::vector<PageNames> out;
  while (q->Step()) {
    if (out.empty() || out.back().slug != q->Text(0)) {
      out.push_back({q->Text(0), q->Text(1), q->Text(2), {}, q->Text(3) == "private", q->Text(5), PageId(q->Int(6))});
    }
    if (!q->IsNull(4)) out.back().aliases.push_back(q->Text(4));
  }
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

namespace {
constexpr const char* kChunkColumns =
    "SELECT c.id, c.page_id, p.slug, p.title, p.type, p.path, c.source, c.text, c.line_start, c.line_end, "
    "p.visibility, p.updated_at FROM chunks c JOIN pages p ON p.id = c.page_id ";

ChunkRecord ReadChunk(const Stmt& q) {
  ChunkRecord r;
  r.chunk_id = ChunkId(q.Int(0));
  r.page_id = PageId(q.Int(1));
  r.slug = q.Text(2);
  r.title = q.Text(3);
  r.type = q.Text(4);
  r.path = q.Text(5);
  r.chunk_source = ParseChunkSource(q.Text(6)).value_or(ChunkSource::kCompiledTruth);  // the schema allows only the two
  r.text = q.Text(7);
  r.line_start = static_cast<int>(q.Int(8));
  r.line_end = static_cast<int>(q.Int(9));
  r.is_private = q.Text(10) == "private";
  r.updated_at = q.Text(11);
  return r;
}
}  // namespace

Result<std::vector<ChunkRecord>> SqlEngine::GetChunks(const ReadScope& scope, const std::vector<ChunkId>& chunk_ids) {
  static const std::string sql = std::string(kChunkColumns) +
                                 "JOIN sources s ON s.id = p.source_id WHERE c.id = ?1 AND (?2 OR p.visibility = 'public') "
                                 "AND (?3 = '' OR s.name = ?3)";
  std::vector<ChunkRecord> out;
  out.reserve(chunk_ids.size());
  if (pg_ && chunk_ids.size() > 1) {
    // One round trip for all of them, in the order asked.
    static const std::string pg_sql = std::string(kChunkColumns) +
                                      "JOIN sources s ON s.id = p.source_id WHERE c.id = ANY(?1::bigint[]) AND "
                                      "(?2 OR p.visibility = 'public') AND (?3 = '' OR s.name = ?3)";
    std::vector<int64_t> ids;
    ids.reserve(chunk_ids.size());
    for (const ChunkId id : chunk_ids) ids.push_back(id.value());
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(pg_sql.c_str()));
    q->Bind(1, IntArray(ids)).Bind(2, int64_t{scope.include_private ? 1 : 0}).Bind(3, scope.source);
    std::unordered_map<int64_t, ChunkRecord> found;
    while (q->Step()) {
      ChunkRecord r = ReadChunk(*q);
      found.emplace(r.chunk_id.value(), std::move(r));
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
    for (const ChunkId id : chunk_ids) {
      if (auto it = found.find(id.value()); it != found.end()) out.push_back(it->second);
    }
    return out;
  }
  for (const ChunkId id : chunk_ids) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(sql.c_str()));
    q->Bind(1, id.value()).Bind(2, int64_t{scope.include_private ? 1 : 0}).Bind(3, scope.source);
    if (q->Step()) out.push_back(ReadChunk(*q));
    ENGRAM_RETURN_IF_ERROR(q->status());
  }
  return out;
}

Result<std::vector<ChunkRecord>> SqlEngine::GetPageChunks(PageId page_id) {
  static const std::string sql = std::string(kChunkColumns) + "WHERE c.page_id = ? ORDER BY c.ordinal";
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(sql.c_str()));
  q->Bind(1, page_id.value());
  std::vector<ChunkRecord> out;
  while (q->Step()) out.push_back(ReadChunk(*q));
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

}  // namespace engram::store::sql
