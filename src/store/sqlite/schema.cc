#include "store/sqlite/schema.h"

#include <algorithm>
#include <array>
#include <string>

#include "store/postings_codec.h"
#include "store/sqlite/db.h"

namespace engram::store::sqlite {

namespace {

// Migration N is kMigrations[N-1]. Never edit a released migration: append.
constexpr std::array<const char*, 16> kMigrations = {
    // 1: the foundation schema.
    R"sql(
CREATE TABLE sources (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  root TEXT NOT NULL DEFAULT '',
  sync_anchor TEXT,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now'))
);
INSERT INTO sources(name) VALUES ('default');

CREATE TABLE pages (
  id INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL REFERENCES sources(id),
  slug TEXT NOT NULL,
  path TEXT NOT NULL,
  type TEXT NOT NULL,
  title TEXT NOT NULL,
  frontmatter TEXT NOT NULL DEFAULT '{}',
  compiled_truth TEXT NOT NULL DEFAULT '',
  timeline TEXT NOT NULL DEFAULT '',
  content TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  visibility TEXT NOT NULL DEFAULT 'public' CHECK (visibility IN ('public', 'private')),
  title_terms BLOB,
  title_length INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (source_id, slug)
);
CREATE INDEX pages_type ON pages(type);
CREATE INDEX pages_private ON pages(id) WHERE visibility = 'private';
CREATE INDEX pages_title ON pages(title COLLATE NOCASE);
CREATE INDEX pages_path ON pages(source_id, path);

-- AUTOINCREMENT: chunk ids only grow, so new postings append in order.
CREATE TABLE chunks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('compiled_truth', 'timeline')),
  text TEXT NOT NULL,
  token_count INTEGER NOT NULL,
  line_start INTEGER NOT NULL,
  line_end INTEGER NOT NULL,
  terms BLOB,
  term_length INTEGER NOT NULL DEFAULT 0,
  embedding BLOB,
  embedding_model TEXT,
  embedded_hash TEXT,
  UNIQUE (page_id, ordinal)
);

-- Full-text index: a term dictionary and one posting list per term (see
-- store/postings_codec.h), rewritten in the same transaction as the pages
-- it describes. Document frequency is the length of the list.
CREATE TABLE terms (
  id INTEGER PRIMARY KEY,
  term TEXT NOT NULL UNIQUE
);
CREATE TABLE postings (
  term_id INTEGER PRIMARY KEY,
  data BLOB NOT NULL
);
CREATE TABLE title_postings (
  term_id INTEGER PRIMARY KEY,
  data BLOB NOT NULL
);
CREATE TABLE corpus_stats (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  chunks INTEGER NOT NULL,
  chunk_tokens INTEGER NOT NULL,
  titles INTEGER NOT NULL,
  title_tokens INTEGER NOT NULL
);
INSERT INTO corpus_stats VALUES (1, 0, 0, 0, 0);

CREATE TABLE links (
  id INTEGER PRIMARY KEY,
  from_page INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  to_slug TEXT NOT NULL,
  type TEXT NOT NULL,
  label TEXT NOT NULL DEFAULT '',
  context TEXT NOT NULL DEFAULT ''
);
CREATE INDEX links_from ON links(from_page);
CREATE INDEX links_to ON links(to_slug);

CREATE TABLE tags (
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  tag TEXT NOT NULL,
  PRIMARY KEY (page_id, tag)
) WITHOUT ROWID;
CREATE INDEX tags_tag ON tags(tag);

CREATE TABLE aliases (
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  alias TEXT NOT NULL,
  PRIMARY KEY (page_id, alias)
) WITHOUT ROWID;
CREATE INDEX aliases_alias ON aliases(alias COLLATE NOCASE);

CREATE TABLE timeline_entries (
  id INTEGER PRIMARY KEY,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  date TEXT NOT NULL,
  summary TEXT NOT NULL,
  summary_hash TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT '',
  line INTEGER NOT NULL,
  UNIQUE (page_id, date, summary_hash, source)
);
CREATE INDEX timeline_date ON timeline_entries(date);

-- Snapshots taken before every overwrite; kept when the page is deleted.
CREATE TABLE page_versions (
  id INTEGER PRIMARY KEY,
  page_id INTEGER NOT NULL,
  source_id INTEGER NOT NULL,
  slug TEXT NOT NULL,
  content TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX page_versions_page ON page_versions(page_id);

CREATE TABLE ingest_log (
  id INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  path TEXT NOT NULL,
  action TEXT NOT NULL,
  message TEXT NOT NULL DEFAULT ''
);

CREATE TABLE config (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
)sql",
    // 2: files a git sync could not index, retried by the next sync.
    R"sql(
CREATE TABLE sync_failures (
  source_id INTEGER NOT NULL REFERENCES sources(id),
  path TEXT NOT NULL,
  reason TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (source_id, path)
) WITHOUT ROWID;
)sql",
    // 3: the quarantine audit: which file was kept out by which rule, when.
    // Never the content.
    R"sql(
CREATE TABLE quarantine_audit (
  id INTEGER PRIMARY KEY,
  source_id INTEGER NOT NULL REFERENCES sources(id),
  at TEXT NOT NULL,
  path TEXT NOT NULL,
  rule TEXT NOT NULL
);
)sql",
    // 4: list a source's files (path, slug, hash) from an index instead of the
    // wide page rows: a sync of 10,000 pages read ~20 MB for it.
    R"sql(
DROP INDEX pages_path;
CREATE INDEX pages_files ON pages(source_id, path, slug, content_hash);
)sql",
    // 5: the query-embedding cache, and finding stale chunks without a scan
    // of the vectors.
    R"sql(
CREATE TABLE query_cache (
  model TEXT NOT NULL,
  query_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  used_at TEXT NOT NULL,
  PRIMARY KEY (model, query_hash)
) WITHOUT ROWID;
CREATE INDEX chunks_embedding_model ON chunks(embedding_model, id);
)sql",
    // 6: the vector log: every change to a chunk's vector appends the chunk
    // id; the largest seq ever issued is the vector generation that index
    // files record (sqlite_sequence keeps it across trims).
    R"sql(
CREATE TABLE vector_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  chunk_id INTEGER NOT NULL
);
CREATE TRIGGER chunks_vector_insert AFTER INSERT ON chunks WHEN NEW.embedding IS NOT NULL
BEGIN INSERT INTO vector_log(chunk_id) VALUES (NEW.id); END;
CREATE TRIGGER chunks_vector_update AFTER UPDATE OF embedding, embedding_model ON chunks
BEGIN INSERT INTO vector_log(chunk_id) VALUES (NEW.id); END;
CREATE TRIGGER chunks_vector_delete AFTER DELETE ON chunks WHEN OLD.embedding IS NOT NULL
BEGIN INSERT INTO vector_log(chunk_id) VALUES (OLD.id); END;
)sql",
    // 7: links are resolved when read, the way Obsidian resolves them (exact
    // path, relative path, file name): pages are found by the slug of their
    // path and by its last part, links by the last part of their target. The
    // keys of existing rows are taken from the slugs; `check` finds the few
    // pages whose slug is not their path's, and --repair rewrites them.
    R"sql(
ALTER TABLE pages ADD COLUMN path_key TEXT NOT NULL DEFAULT '';
ALTER TABLE pages ADD COLUMN name_key TEXT NOT NULL DEFAULT '';
ALTER TABLE links ADD COLUMN to_name TEXT NOT NULL DEFAULT '';
UPDATE pages SET path_key = slug, name_key = replace(slug, rtrim(slug, replace(slug, '/', '')), '');
UPDATE links SET to_name = replace(to_slug, rtrim(to_slug, replace(to_slug, '/', '')), '')
  WHERE type != 'attachment';
CREATE INDEX pages_path_key ON pages(source_id, path_key);
CREATE INDEX pages_name_key ON pages(source_id, name_key);
CREATE INDEX links_to_name ON links(to_name);
)sql",
    // 8: the line of a quarantine hit (0: the path or name), so `status` and
    // `get` can say where without the content.
    R"sql(
ALTER TABLE quarantine_audit ADD COLUMN line INTEGER NOT NULL DEFAULT 0;
)sql",
    // 9: updated_at and created_at are the note's dates (its frontmatter's,
    // its last commit's, its file's), no longer when engram indexed it;
    // that time moves to indexed_at. Existing rows keep the index time as
    // their date until the next sync or import dates them (sync/page_indexer.h).
    R"sql(
ALTER TABLE pages ADD COLUMN indexed_at TEXT NOT NULL DEFAULT '';
UPDATE pages SET indexed_at = updated_at;
)sql",
    // 10: the change log (engram/store/change_log.h) replaces the vector
    // log: one counter row, the store's generation, that every logged change
    // advances inside its transaction (commit order on any engine, which an
    // AUTOINCREMENT or a sequence is not), and entries by stream. The vector
    // log's entries move over with their seq as generation and the counter
    // starts at its last seq, so existing index files catch up as before;
    // trimmed_through is where the log stops reaching back.
    R"sql(
CREATE TABLE store_generation (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  value INTEGER NOT NULL,
  trimmed_through INTEGER NOT NULL
);
INSERT INTO store_generation(id, value, trimmed_through) VALUES (1,
  coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'vector_log'), 0),
  coalesce((SELECT min(seq) - 1 FROM vector_log),
           (SELECT seq FROM sqlite_sequence WHERE name = 'vector_log'), 0));
CREATE TABLE change_log (
  generation INTEGER NOT NULL,
  stream INTEGER NOT NULL,
  key INTEGER NOT NULL
);
CREATE INDEX change_log_stream ON change_log(stream, generation);
CREATE INDEX change_log_generation ON change_log(generation);
INSERT INTO change_log(generation, stream, key) SELECT seq, 1, chunk_id FROM vector_log;
DROP TRIGGER chunks_vector_insert;
DROP TRIGGER chunks_vector_update;
DROP TRIGGER chunks_vector_delete;
DROP TABLE vector_log;
CREATE TRIGGER chunks_vector_insert AFTER INSERT ON chunks WHEN NEW.embedding IS NOT NULL
BEGIN )sql" ENGRAM_LOG_CHANGE_SQL("1", "NEW.id") R"sql( END;
CREATE TRIGGER chunks_vector_update AFTER UPDATE OF embedding, embedding_model ON chunks
BEGIN )sql" ENGRAM_LOG_CHANGE_SQL("1", "NEW.id") R"sql( END;
CREATE TRIGGER chunks_vector_delete AFTER DELETE ON chunks WHEN OLD.embedding IS NOT NULL
BEGIN )sql" ENGRAM_LOG_CHANGE_SQL("1", "OLD.id") R"sql( END;
)sql",
    // 11: posting lists in the packed layout (store/postings_codec.h). Every
    // list still in a varint layout is rewritten once, by the function
    // Migrate registers; a damaged one is left as it is for check to report.
    // (Lists are read in any layout: this is for speed, not correctness.)
    R"sql(
UPDATE postings SET data = engram_repack_postings(data) WHERE substr(data, 1, 2) != x'0003';
UPDATE title_postings SET data = engram_repack_postings(data) WHERE substr(data, 1, 2) != x'0003';
)sql",
    // 12: knowledge collections and their entries (engram/store/kb_store.h).
    // An entry's key is its row id (never reused: AUTOINCREMENT), which the
    // change log carries (stream 2); fields are "name:type" joined by ','.
    R"sql(
CREATE TABLE kb_collections (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  fields TEXT NOT NULL DEFAULT '',
  embedder TEXT NOT NULL DEFAULT '',
  dimension INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  created_by TEXT NOT NULL DEFAULT ''
);
CREATE TABLE kb_entries (
  key INTEGER PRIMARY KEY AUTOINCREMENT,
  collection_id INTEGER NOT NULL REFERENCES kb_collections(id),
  id TEXT NOT NULL,
  text TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT '',
  meta TEXT NOT NULL DEFAULT '{}',
  updated_at TEXT NOT NULL,
  updated_by TEXT NOT NULL DEFAULT '',
  UNIQUE (collection_id, id)
);
)sql",
    // 13: governed knowledge entries (the original's red_line_knowledge
    // table) and the audit log of every governance change.
    R"sql(
CREATE TABLE kb_governed (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  uniq_id TEXT NOT NULL,
  business_scene TEXT NOT NULL,
  question TEXT NOT NULL,
  answer TEXT NOT NULL DEFAULT '',
  metadata TEXT NOT NULL DEFAULT '{}',
  class_name TEXT NOT NULL DEFAULT '',
  class_no TEXT NOT NULL DEFAULT '',
  source TEXT NOT NULL DEFAULT '',
  type TEXT NOT NULL DEFAULT '',
  desc TEXT NOT NULL DEFAULT '',
  version INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('online', 'offline')),
  editor TEXT NOT NULL DEFAULT '', editor_id TEXT NOT NULL DEFAULT '',
  auditor TEXT NOT NULL DEFAULT '', auditor_id TEXT NOT NULL DEFAULT '',
  releaser TEXT NOT NULL DEFAULT '', releaser_id TEXT NOT NULL DEFAULT '',
  create_time TEXT NOT NULL,
  update_time TEXT NOT NULL,
  collection TEXT NOT NULL,
  latest INTEGER NOT NULL DEFAULT 1,
  UNIQUE (uniq_id, business_scene, version)
);
CREATE INDEX kb_governed_latest ON kb_governed(uniq_id, business_scene, latest);
CREATE TABLE kb_audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  at TEXT NOT NULL,
  who TEXT NOT NULL,
  action TEXT NOT NULL,
  governed_id INTEGER NOT NULL,
  before TEXT NOT NULL DEFAULT '',
  after TEXT NOT NULL DEFAULT ''
);
CREATE INDEX kb_audit_governed ON kb_audit(governed_id);
)sql",
    // 14: a knowledge entry's embedding (float32s; NULL in a lexical
    // collection), and the folder of Markdown pages a collection is kept
    // from ('' = its entries are written to it).
    R"sql(
ALTER TABLE kb_entries ADD COLUMN vector BLOB;
ALTER TABLE kb_collections ADD COLUMN folder TEXT NOT NULL DEFAULT '';
)sql",
    // 15: the facts pages state (engram/page.h PageFact), stored as written
    // like links: a subject or entity value by its link target and that
    // target's file-name key; which page each names, which fact closes
    // which and which disagree are decided when they are read (src/graph).
    // Existing pages get theirs at the next import or sync (the index rules
    // changed, ops/index_format.cc).
    R"sql(
CREATE TABLE facts (
  id INTEGER PRIMARY KEY,
  page_id INTEGER NOT NULL REFERENCES pages(id) ON DELETE CASCADE,
  subject TEXT NOT NULL DEFAULT '',
  subject_name TEXT NOT NULL DEFAULT '',
  predicate TEXT NOT NULL,
  value TEXT NOT NULL,
  value_is_link INTEGER NOT NULL DEFAULT 0,
  value_name TEXT NOT NULL DEFAULT '',
  valid_from TEXT NOT NULL DEFAULT '',
  valid_until TEXT NOT NULL DEFAULT '',
  line INTEGER NOT NULL,
  origin TEXT NOT NULL
);
CREATE INDEX facts_page ON facts(page_id);
CREATE INDEX facts_subject_name ON facts(subject_name) WHERE subject != '';
CREATE INDEX facts_value_name ON facts(value_name) WHERE value_is_link = 1;
CREATE INDEX facts_predicate ON facts(predicate);
)sql",
    // 16: the write journal (engram/store/journal_store.h): a write of
    // Markdown files recorded, with each file's bytes before and after,
    // before its first file changes.
    R"sql(
CREATE TABLE write_journal (
  id INTEGER PRIMARY KEY,
  operation TEXT NOT NULL,
  args TEXT NOT NULL DEFAULT '{}',
  report TEXT NOT NULL DEFAULT '{}',
  started_at TEXT NOT NULL,
  owner TEXT NOT NULL DEFAULT ''
);
CREATE TABLE write_journal_files (
  journal_id INTEGER NOT NULL REFERENCES write_journal(id),
  seq INTEGER NOT NULL,
  path TEXT NOT NULL,
  before BLOB,
  after BLOB,
  done INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (journal_id, seq)
);
)sql",
};

// engram_repack_postings(blob): the list in the packed layout (migration 11);
// anything that is not a readable list comes back unchanged.
void RepackPostingsSql(sqlite3_context* ctx, int, sqlite3_value** argv) {
  sqlite3_value* v = argv[0];
  if (sqlite3_value_type(v) != SQLITE_BLOB) {
    sqlite3_result_value(ctx, v);
    return;
  }
  const std::string_view blob(static_cast<const char*>(sqlite3_value_blob(v)),
                              static_cast<size_t>(sqlite3_value_bytes(v)));
  auto packed = RepackPostings(blob);
  if (!packed.ok()) {
    sqlite3_result_value(ctx, v);
    return;
  }
  sqlite3_result_blob64(ctx, packed->data(), packed->size(), SQLITE_TRANSIENT);
}

}  // namespace

int LatestSchemaVersion() { return static_cast<int>(kMigrations.size()); }

Status Migrate(sqlite3* db, int up_to) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt version, Prepare(db, "PRAGMA user_version"));
  int current = version.Step() ? static_cast<int>(version.Int(0)) : 0;
  ENGRAM_RETURN_IF_ERROR(version.status());
  version.Reset();  // an active statement would lock the schema against DROP in a migration
  if (current > LatestSchemaVersion()) {
    return Status::FailedPrecondition("database schema version " + std::to_string(current) +
                                      " is newer than this engram (" + std::to_string(LatestSchemaVersion()) +
                                      "); upgrade engram");
  }
  if (sqlite3_create_function_v2(db, "engram_repack_postings", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr,
                                 RepackPostingsSql, nullptr, nullptr, nullptr) != SQLITE_OK) {
    return Status::Internal(std::string("registering engram_repack_postings: ") + sqlite3_errmsg(db));
  }
  for (int v = current + 1; v <= std::min(up_to, LatestSchemaVersion()); ++v) {
    std::string sql = std::string("BEGIN IMMEDIATE;\n") + kMigrations[v - 1] +
                      "\nPRAGMA application_id = " + std::to_string(kApplicationId) +
                      ";\nPRAGMA user_version = " + std::to_string(v) + ";\nCOMMIT;";
    Status st = Exec(db, sql);
    if (!st.ok()) {
      (void)Exec(db, "ROLLBACK");
      return st.WithContext("applying schema migration " + std::to_string(v));
    }
  }
  return Status::Ok();
}

}  // namespace engram::store::sqlite
