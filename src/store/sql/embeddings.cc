// Chunk embeddings and the query-embedding cache.
#include <cstring>

#include "common/hash.h"
#include "store/sql/sql_engine.h"

namespace engram {

std::string ChunkEmbeddingText(std::string_view title, std::string_view text) {
  if (title.empty()) return std::string(text);
  std::string out(title);
  out += "\n\n";
  out += text;
  return out;
}

std::string EmbeddingTextHash(std::string_view text) { return common::Sha256Hex(text).substr(0, 32); }

namespace store::sql {

namespace {

constexpr int64_t kQueryCacheRows = 10000;

}  // namespace

Result<std::vector<EmbeddingTask>> SqlEngine::ChunksToEmbed(std::string_view model, bool all, ChunkId after_id,
                                                               size_t limit) {
  ENGRAM_ASSIGN_OR_RETURN(
      Stmt * q, S("SELECT c.id, p.title, c.text FROM chunks c JOIN pages p ON p.id = c.page_id "
                  "WHERE c.id > ?1 AND (?2 OR c.embedding IS NULL OR c.embedding_model IS DISTINCT FROM ?3) "
                  "ORDER BY c.id LIMIT ?4"));
  q->Bind(1, after_id.value()).Bind(2, int64_t{all ? 1 : 0}).Bind(3, model).Bind(4, static_cast<int64_t>(limit));
  std::vector<EmbeddingTask> out;
  while (q->Step()) out.push_back({ChunkId(q->Int(0)), ChunkEmbeddingText(q->Text(1), q->Text(2))});
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Status SqlEngine::StoreEmbeddings(const std::vector<EmbeddingWrite>& rows) {
  return Atomically([&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(
        Stmt * u, S("UPDATE chunks SET embedding = ?, embedding_model = ?, embedded_hash = ? WHERE id = ?"));
    // Sent without waiting (PostgreSQL's pipeline); the last one waits for them all, so a refused
    // row fails this call, not a later one.
    for (size_t i = 0; i < rows.size(); ++i) {
      const EmbeddingWrite& r = rows[i];
      u->BindBlob(1, FloatBytes(r.vector)).Bind(2, r.model).Bind(3, r.text_hash).Bind(4, r.chunk_id.value());
      ENGRAM_RETURN_IF_ERROR(i + 1 < rows.size() ? u->Send() : u->Run());
    }
    return Status::Ok();
  });
}

Result<EmbeddingCounts> SqlEngine::CountEmbeddings(std::string_view model, const ReadScope& scope) {
  EmbeddingCounts c;
  // A public reader counts the chunks of public pages (pages_private indexes the others).
  ENGRAM_ASSIGN_OR_RETURN(Stmt * total, S(scope.include_private ? "SELECT count(*) FROM chunks"
                                                                : "SELECT count(*) FROM chunks WHERE page_id NOT IN "
                                                                  "(SELECT id FROM pages WHERE visibility = 'private')"));
  if (total->Step()) c.chunks = total->Int(0);
  ENGRAM_RETURN_IF_ERROR(total->status());
  total->Reset();
  ENGRAM_ASSIGN_OR_RETURN(
      Stmt * cur, S(scope.include_private
                        ? "SELECT count(*) FROM chunks WHERE embedding_model = ? AND embedding IS NOT NULL"
                        : "SELECT count(*) FROM chunks WHERE embedding_model = ? AND embedding IS NOT NULL AND "
                          "page_id NOT IN (SELECT id FROM pages WHERE visibility = 'private')"));
  cur->Bind(1, model);
  if (cur->Step()) c.current = cur->Int(0);
  ENGRAM_RETURN_IF_ERROR(cur->status());
  cur->Reset();
  c.stale = c.chunks - c.current;
  return c;
}

Result<std::optional<std::vector<float>>> SqlEngine::CachedQueryVector(std::string_view model,
                                                                          std::string_view query) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT vector FROM query_cache WHERE model = ? AND query_hash = ?"));
  q->Bind(1, model).Bind(2, EmbeddingTextHash(query));
  std::optional<std::vector<float>> out;
  if (q->Step()) out = FloatsOf(q->Blob(0));
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  return out;
}

Status SqlEngine::CacheQueryVector(std::string_view model, std::string_view query, const std::vector<float>& v) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(D("INSERT INTO query_cache(model, query_hash, vector, used_at) "
                                        "VALUES (?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) "
                                        "ON CONFLICT (model, query_hash) DO UPDATE SET vector = excluded.vector, "
                                        "used_at = excluded.used_at",
                                        "INSERT INTO query_cache(model, query_hash, vector, used_at) "
                                        "VALUES (?, ?, ?, to_char(clock_timestamp() AT TIME ZONE 'UTC', "
                                        "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')) "
                                        "ON CONFLICT (model, query_hash) DO UPDATE SET vector = excluded.vector, "
                                        "used_at = excluded.used_at")));
  q->Bind(1, model).Bind(2, EmbeddingTextHash(query)).BindBlob(3, FloatBytes(v));
  ENGRAM_RETURN_IF_ERROR(q->Run());
  // Keep the cache bounded: drop the oldest rows past the limit.
  ENGRAM_ASSIGN_OR_RETURN(Stmt * trim, S(D("DELETE FROM query_cache WHERE (model, query_hash) IN (SELECT model, "
                                           "query_hash FROM query_cache ORDER BY used_at DESC LIMIT -1 OFFSET ?)",
                                           "DELETE FROM query_cache WHERE (model, query_hash) IN (SELECT model, "
                                           "query_hash FROM query_cache ORDER BY used_at DESC OFFSET ?)")));
  trim->Bind(1, kQueryCacheRows);
  return trim->Run();
}

namespace {

Result<std::vector<ChunkVector>> ReadVectors(Stmt* q) {
  std::vector<ChunkVector> out;
  while (q->Step()) out.push_back({ChunkId(q->Int(0)), FloatsOf(q->Blob(1))});
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  return out;
}

}  // namespace

Result<std::vector<ChunkVector>> SqlEngine::ChunkVectors(std::string_view model, ChunkId after_id, size_t limit) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id, embedding FROM chunks WHERE embedding_model = ? AND id > ? AND "
                                      "embedding IS NOT NULL ORDER BY id LIMIT ?"));
  q->Bind(1, model).Bind(2, after_id.value()).Bind(3, static_cast<int64_t>(limit));
  return ReadVectors(q);
}

Result<std::vector<ChunkVector>> SqlEngine::ChunkVectorsById(std::string_view model,
                                                               const std::vector<ChunkId>& ids) {
  std::vector<ChunkVector> out;
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id, embedding FROM chunks WHERE id = ? AND embedding_model = ? AND "
                                      "embedding IS NOT NULL"));
  for (const ChunkId id : ids) {
    q->Bind(1, id.value()).Bind(2, model);
    if (q->Step()) out.push_back({ChunkId(q->Int(0)), FloatsOf(q->Blob(1))});
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
  }
  return out;
}

namespace {

// The ids `sql` (a select over pages p, maybe joined) gives for the pages
// that pass the filter, ascending by `order`.
template <class IdT>
Result<std::vector<IdT>> FilteredIds(Connection* db, std::string sql, const ChunkFilter& f, const char* order) {
  std::vector<std::string> args;
  auto any_of = [&](const std::vector<std::string>& values, const char* column_test) {
    sql += " AND (FALSE";
    for (const auto& v : values) {
      sql += std::string(" OR ") + column_test;
      args.push_back(v);
    }
    sql += ")";
  };
  if (!f.include_private) sql += " AND p.visibility = 'public'";
  if (!f.types.empty()) any_of(f.types, "p.type = ?");
  if (!f.tags.empty()) any_of(f.tags, "EXISTS (SELECT 1 FROM tags t WHERE t.page_id = p.id AND t.tag = ?)");
  if (!f.source.empty()) {
    sql += " AND p.source_id = (SELECT id FROM sources WHERE name = ?)";
    args.push_back(f.source);
  }
  if (!f.folder.empty()) {
    sql += " AND substr(p.path, 1, length(?)) = ?";
    args.push_back(f.folder);
    args.push_back(f.folder);
  }
  if (!f.since.empty()) {
    sql += " AND p.updated_at >= ?";
    args.push_back(f.since);
  }
  if (!f.until.empty()) {
    sql += " AND substr(p.updated_at, 1, length(?)) <= ?";
    args.push_back(f.until);
    args.push_back(f.until);
  }
  sql += std::string(" ORDER BY ") + order;
  ENGRAM_ASSIGN_OR_RETURN(Stmt q, db->Prepare(sql, false));
  for (size_t i = 0; i < args.size(); ++i) q.Bind(static_cast<int>(i + 1), args[i]);
  std::vector<IdT> out;
  while (q.Step()) out.emplace_back(q.Int(0));
  ENGRAM_RETURN_IF_ERROR(q.status());
  return out;
}

}  // namespace

Result<std::vector<ChunkId>> SqlEngine::FilterChunks(const ChunkFilter& f) {
  return FilteredIds<ChunkId>(conn_.get(), "SELECT c.id FROM chunks c JOIN pages p ON p.id = c.page_id WHERE TRUE", f,
                              "c.id");
}

Result<std::vector<PageId>> SqlEngine::FilterPages(const ChunkFilter& f) {
  return FilteredIds<PageId>(conn_.get(), "SELECT p.id FROM pages p WHERE TRUE", f, "p.id");
}

Result<std::vector<ChunkId>> SqlEngine::PrivateChunkIds() {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(ENGRAM_FROM_PRIVATE_PAGES(
                                          "SELECT c.id FROM pages p",
                                          "JOIN chunks c ON c.page_id = p.id WHERE p.visibility = 'private' "
                                          "ORDER BY c.id")));
  std::vector<ChunkId> out;
  while (q->Step()) out.emplace_back(q->Int(0));
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

}  // namespace store::sql
}  // namespace engram
