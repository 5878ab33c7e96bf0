// Knowledge collections and entries (engram/store/kb_store.h): the
// kb_collections and kb_entries tables of migration 12. Every entry write
// logs its key on the change log in the same transaction.
#include <algorithm>

#include "common/files.h"
#include "store/sql/sql_engine.h"

namespace engram::store::sql {

namespace {

std::string EncodeFields(const std::vector<KbField>& fields) {
  std::string out;
  for (const KbField& f : fields) {
    if (!out.empty()) out += ',';
    out += f.name + ':' + KbFieldTypeName(f.type);
  }
  return out;
}

std::vector<KbField> DecodeFields(std::string_view s) {
  std::vector<KbField> out;
  while (!s.empty()) {
    const size_t comma = s.find(',');
    std::string_view item = s.substr(0, comma);
    s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
    const size_t colon = item.rfind(':');
    if (colon == std::string_view::npos) continue;
    out.push_back({std::string(item.substr(0, colon)),
                   ParseKbFieldType(item.substr(colon + 1)).value_or(KbFieldType::kString)});
  }
  return out;
}

// Collection names and field names: what a URL, a CLI argument and a filter key carry without escaping.
bool IsPlainName(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

constexpr const char* kEntryColumns =
    "SELECT e.key, c.name, e.id, e.text, e.source, e.meta, e.updated_at, e.updated_by, e.vector FROM kb_entries e "
    "JOIN kb_collections c ON c.id = e.collection_id ";

// A collection row: name, fields, embedder, dimension, created_at, created_by, folder.
KbCollection CollectionOf(const Stmt& q) {
  return {q.Text(0), DecodeFields(q.Text(1)), q.Text(2), static_cast<int>(q.Int(3)), q.Text(4), q.Text(5), q.Text(6)};
}

KbEntry EntryOf(const Stmt& q) {
  return {q.Int(0), q.Text(1), q.Text(2), q.Text(3), q.Text(4), q.Text(5), q.Text(6), q.Text(7), FloatsOf(q.Blob(8))};
}

}  // namespace

Result<std::optional<int64_t>> SqlEngine::KbCollectionId(std::string_view name) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id FROM kb_collections WHERE name = ?"));
  q->Bind(1, name);
  std::optional<int64_t> id;
  if (q->Step()) id = q->Int(0);
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  return id;
}

Result<int64_t> SqlEngine::RequireKbCollection(std::string_view name) {
  ENGRAM_ASSIGN_OR_RETURN(std::optional<int64_t> id, KbCollectionId(name));
  if (!id) return Status::NotFound("no knowledge collection '" + std::string(name) + "'");
  return *id;
}

Status SqlEngine::CreateKbCollection(const KbCollection& c) {
  if (!IsPlainName(c.name)) {
    return Status::InvalidArgument("collection name '" + c.name +
                                   "': use 1-64 letters, digits, '_', '-' or '.'");
  }
  for (const KbField& f : c.fields) {
    if (!IsPlainName(f.name)) {
      return Status::InvalidArgument("field name '" + f.name + "': use 1-64 letters, digits, '_', '-' or '.'");
    }
  }
  return Atomically([&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(std::optional<int64_t> existing, KbCollectionId(c.name));
    if (existing) return Status::AlreadyExists("knowledge collection '" + c.name + "' exists");
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("INSERT INTO kb_collections(name, fields, embedder, dimension, created_at, "
                                        "created_by, folder) VALUES (?, ?, ?, ?, ?, ?, ?)"));
    q->Bind(1, c.name).Bind(2, EncodeFields(c.fields)).Bind(3, c.embedder).Bind(4, static_cast<int64_t>(c.dimension));
    q->Bind(5, c.created_at.empty() ? common::NowIso8601() : c.created_at).Bind(6, c.created_by).Bind(7, c.folder);
    return q->Run();
  });
}

Result<std::vector<KbCollection>> SqlEngine::KbCollections() {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT name, fields, embedder, dimension, created_at, created_by, folder "
                                      "FROM kb_collections ORDER BY name"));
  std::vector<KbCollection> out;
  while (q->Step()) out.push_back(CollectionOf(*q));
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Result<std::optional<KbCollection>> SqlEngine::FindKbCollection(std::string_view name) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT name, fields, embedder, dimension, created_at, created_by, folder "
                                      "FROM kb_collections WHERE name = ?"));
  q->Bind(1, name);
  std::optional<KbCollection> out;
  if (q->Step()) out = CollectionOf(*q);
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  return out;
}

Status SqlEngine::DropKbCollection(std::string_view name) {
  return Atomically([&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(int64_t id, RequireKbCollection(name));
    ENGRAM_ASSIGN_OR_RETURN(Stmt * keys, S("SELECT key FROM kb_entries WHERE collection_id = ?"));
    keys->Bind(1, id);
    std::vector<int64_t> gone;
    while (keys->Step()) gone.push_back(keys->Int(0));
    ENGRAM_RETURN_IF_ERROR(keys->status());
    for (int64_t key : gone) ENGRAM_RETURN_IF_ERROR(WriteChange(ChangeStream::kKbEntries, key));
    ENGRAM_ASSIGN_OR_RETURN(Stmt * entries, S("DELETE FROM kb_entries WHERE collection_id = ?"));
    ENGRAM_RETURN_IF_ERROR(entries->Bind(1, id).Run());
    ENGRAM_ASSIGN_OR_RETURN(Stmt * row, S("DELETE FROM kb_collections WHERE id = ?"));
    return row->Bind(1, id).Run();
  });
}

Result<std::vector<KbCollectionStats>> SqlEngine::KbCollectionStatistics() {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT c.name, (SELECT count(*) FROM kb_entries e WHERE e.collection_id = "
                                      "c.id) FROM kb_collections c ORDER BY c.name"));
  std::vector<KbCollectionStats> out;
  while (q->Step()) out.push_back({q->Text(0), q->Int(1)});
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Result<std::vector<int64_t>> SqlEngine::PutKbEntries(const std::vector<KbEntry>& entries) {
  std::vector<int64_t> keys;
  keys.reserve(entries.size());
  Status st = Atomically([&]() -> Status {
    std::string last_name;
    int64_t collection_id = 0;
    for (const KbEntry& e : entries) {
      if (collection_id == 0 || e.collection != last_name) {
        ENGRAM_ASSIGN_OR_RETURN(collection_id, RequireKbCollection(e.collection));
        last_name = e.collection;
      }
      // An upsert keeps the row (and so its key) of an existing id.
      ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("INSERT INTO kb_entries(collection_id, id, text, source, meta, updated_at, "
                                          "updated_by, vector) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                                          "ON CONFLICT(collection_id, id) DO UPDATE SET text = excluded.text, "
                                          "source = excluded.source, meta = excluded.meta, "
                                          "updated_at = excluded.updated_at, updated_by = excluded.updated_by, "
                                          "vector = excluded.vector RETURNING key"));
      q->Bind(1, collection_id).Bind(2, e.id).Bind(3, e.text).Bind(4, e.source).Bind(5, e.meta);
      q->Bind(6, e.updated_at.empty() ? common::NowIso8601() : e.updated_at).Bind(7, e.updated_by);
      if (e.vector.empty()) {
        q->BindNull(8);
      } else {
        q->BindBlob(8, FloatBytes(e.vector));
      }
      if (!q->Step()) {
        ENGRAM_RETURN_IF_ERROR(q->status());
        return Status::IOError("storing knowledge entry '" + e.id + "' returned no key");
      }
      const int64_t key = q->Int(0);
      q->Reset();
      keys.push_back(key);
      ENGRAM_RETURN_IF_ERROR(WriteChange(ChangeStream::kKbEntries, key));
    }
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return keys;
}

Result<std::vector<std::string>> SqlEngine::DeleteKbEntries(std::string_view collection,
                                                               const std::vector<std::string>& ids) {
  std::vector<std::string> deleted;
  Status st = Atomically([&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(int64_t collection_id, RequireKbCollection(collection));
    for (const std::string& id : ids) {
      ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("DELETE FROM kb_entries WHERE collection_id = ? AND id = ? RETURNING key"));
      q->Bind(1, collection_id).Bind(2, id);
      std::optional<int64_t> key;
      if (q->Step()) key = q->Int(0);
      ENGRAM_RETURN_IF_ERROR(q->status());
      q->Reset();
      if (!key) continue;
      deleted.push_back(id);
      ENGRAM_RETURN_IF_ERROR(WriteChange(ChangeStream::kKbEntries, *key));
    }
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return deleted;
}

Result<std::vector<KbEntry>> SqlEngine::KbEntriesByKey(const std::vector<int64_t>& keys) {
  static const std::string sql = std::string(kEntryColumns) + "WHERE e.key = ?";
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(sql.c_str()));
  std::vector<int64_t> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<KbEntry> out;
  for (int64_t key : sorted) {
    q->Bind(1, key);
    if (q->Step()) out.push_back(EntryOf(*q));
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
  }
  return out;
}

Result<std::vector<KbEntry>> SqlEngine::ScanKbEntries(std::string_view collection, int64_t after_key,
                                                         size_t limit) {
  static const std::string sql = std::string(kEntryColumns) + "WHERE c.name = ? AND e.key > ? ORDER BY e.key LIMIT ?";
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(sql.c_str()));
  q->Bind(1, collection).Bind(2, after_key).Bind(3, static_cast<int64_t>(limit));
  std::vector<KbEntry> out;
  while (q->Step()) out.push_back(EntryOf(*q));
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

Result<std::optional<KbEntry>> SqlEngine::FindKbEntry(std::string_view collection, std::string_view id) {
  static const std::string sql = std::string(kEntryColumns) + "WHERE c.name = ? AND e.id = ?";
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(sql.c_str()));
  q->Bind(1, collection).Bind(2, id);
  std::optional<KbEntry> out;
  if (q->Step()) out = EntryOf(*q);
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  return out;
}

}  // namespace engram::store::sql
