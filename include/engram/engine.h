// The storage engine contract. Pages, their derived rows (chunks, postings,
// links, tags, aliases, timeline entries, versions) and the posting lists
// keyword search reads (engram/posting_store.h; BM25 itself is src/bm25).
//
// Implementations: SQLite (embedded default). PostgreSQL will follow behind
// the same interface. Nothing here names a storage library's types.
//
// Threading: an Engine object is used by one thread at a time. Open one per
// thread; readers in other processes or threads never wait for a writer.
// Atomicity: PutPage and DeletePage each commit all of a page's rows (full-
// text postings included) together or not at all. BeginBatch/CommitBatch
// group many page writes into one transaction for bulk import; a failed page
// inside a batch is rolled back alone.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <unordered_set>
#include <vector>

#include "engram/page.h"
#include "engram/posting_store.h"
#include "engram/search.h"
#include "engram/status.h"

namespace engram {

// Analysed terms of one field: term -> frequency, plus the field length.
struct TermVector {
  std::vector<std::pair<std::string, uint32_t>> terms;  // distinct terms with their counts
  uint32_t length = 0;                                  // number of tokens
};

struct ChunkWrite {
  int ordinal = 0;
  std::string source;  // "compiled_truth" or "timeline"
  std::string text;
  int token_count = 0;
  int line_start = 0;  // 1-based file lines
  int line_end = 0;
  TermVector terms;
};

struct PageWrite {
  std::string source = "default";
  Page page;                // parsed page (slug, title, type, links, ...)
  std::string content;      // the Markdown file as stored
  std::string content_hash; // sha256 of content
  std::vector<ChunkWrite> chunks;
  TermVector title_terms;   // analysed title + aliases
  // The note's date, ISO 8601 ("2024-05-01" or "2024-05-01T10:00:00Z"): its
  // frontmatter's (Page::date) when it has one, else its file's (the last
  // commit that changed it, its modification time). Empty: the time of this
  // write, unless the page already holds exactly this content, whose date
  // then stays (re-indexing is no modification).
  std::string date;
};

struct StoredPage {
  int64_t id = 0;
  std::string source;
  std::string slug;
  std::string path;
  std::string type;
  std::string title;
  std::string frontmatter_json;
  std::string compiled_truth;
  std::string timeline;
  std::string content;
  std::string content_hash;
  bool is_private = false;
  // The note's dates (PageWrite::date): updated_at is its date, created_at
  // its frontmatter `created` (else `date`), else the earliest date it had.
  std::string created_at;
  std::string updated_at;
  std::string indexed_at;  // when engram last wrote the page's rows
  std::vector<std::string> tags;
  std::vector<std::string> aliases;
};

struct PageSummary {
  std::string slug;
  std::string path;
  std::string type;
  std::string title;
  bool is_private = false;
  std::string updated_at;  // the note's date (StoredPage)
};

// The names of a page: what look-ups by name compare (ops/page_names.h).
struct PageNames {
  std::string slug;
  std::string path;
  std::string title;
  std::vector<std::string> aliases;
  bool is_private = false;
};

struct ListFilter {
  std::string source = "default";
  std::string type;       // empty: any
  std::string tag;        // empty: any
  size_t limit = 100;
  bool include_private = true;
};

// A file known to the store: used by import to find new/changed/removed files.
struct SourceFile {
  std::string path;
  std::string slug;
  std::string content_hash;
};

struct ChunkRecord {
  int64_t chunk_id = 0;
  int64_t page_id = 0;
  std::string slug;
  std::string title;
  std::string type;
  std::string path;
  std::string chunk_source;
  std::string text;
  int line_start = 0;
  int line_end = 0;
  bool is_private = false;
  std::string updated_at;  // the page's: the note's date (StoredPage)
};

struct BrainStats {
  int64_t pages = 0;
  int64_t private_pages = 0;
  int64_t chunks = 0;
  int64_t links = 0;        // links between pages (attachments not counted)
  int64_t attachments = 0;  // links and embeds of attachments: images, PDFs, ...
  int64_t tags = 0;
  int64_t aliases = 0;
  int64_t timeline_entries = 0;
  int64_t versions = 0;
  int64_t terms = 0;
  std::map<std::string, int64_t> pages_by_type;
  int64_t db_bytes = 0;
  int schema_version = 0;
};

struct IngestLogEntry {
  std::string at;
  std::string path;
  std::string action;   // "add", "update", "delete", "skip", "warn", "error"
  std::string message;
};

struct LinkRecord {
  std::string from_slug;
  std::string to_slug;
  std::string type;
  std::string context;
};

// A file that a sync could not index; retried by the next sync.
struct SyncFailure {
  std::string path;
  std::string reason;
  std::string at;
};

// A quarantined file: which rule kept it out, never its content.
struct AuditEntry {
  std::string at;
  std::string path;
  std::string rule;
  int line = 0;  // 1-based line of the hit in the file; 0 when its path or name hit
};

// A way in which the database disagrees with itself.
struct IntegrityProblem {
  std::string what;  // human-readable description
  std::string path;  // the page's file when one page is concerned ("" otherwise)
};

// A page's derived rows in a canonical form free of ids (terms by name,
// chunks by ordinal, rows sorted), one text per structure: "page" (the
// derived columns of the page row, title terms included), "chunks",
// "chunk postings", "title postings" (decoded from the posting lists),
// "links", "tags", "aliases", "timeline". Two stores hold the same derived
// rows for a page exactly when these compare equal.
using DerivedRows = std::map<std::string, std::string>;

struct EngineOptions {
  bool create_if_missing = false;
  int busy_timeout_ms = 5000;
};

// Embeddings are stored per chunk with the model that made them and a hash
// of the text they were computed from (ChunkEmbeddingText). A chunk without
// an embedding of the brain's model is stale. Rewriting a page keeps the
// embedding of every chunk whose text (and page title) did not change.
struct EmbeddingTask {
  int64_t chunk_id = 0;
  std::string text;  // ChunkEmbeddingText(title, chunk text)
};
struct EmbeddingWrite {
  int64_t chunk_id = 0;
  std::string model;
  std::string text_hash;  // EmbeddingTextHash(text)
  std::vector<float> vector;
};
struct EmbeddingCounts {
  int64_t chunks = 0;
  int64_t current = 0;  // embedded by the given model
  int64_t stale = 0;    // not embedded, or by another model
};
// A chunk's stored vector.
struct ChunkVector {
  int64_t chunk_id = 0;
  std::vector<float> vector;
};

// What is embedded for a chunk: the page title, a blank line, the chunk text.
std::string ChunkEmbeddingText(std::string_view title, std::string_view text);
std::string EmbeddingTextHash(std::string_view text);

class Engine {
 public:
  virtual ~Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Opens (or with create_if_missing, creates) an SQLite brain database.
  // Corruption when the file is not SQLite or is another program's database;
  // such a file is never modified.
  static Result<std::unique_ptr<Engine>> OpenSqlite(const std::filesystem::path& db_path,
                                                    const EngineOptions& options);

  // Inserts or replaces a page (matched on source + slug). An overwrite keeps
  // the page id and snapshots the previous content as a version.
  virtual Result<int64_t> PutPage(const PageWrite& write) = 0;
  // Removes a page and everything derived from it. NotFound if absent.
  virtual Status DeletePage(std::string_view source, std::string_view slug) = 0;
  virtual Result<StoredPage> GetPage(std::string_view source, std::string_view slug) = 0;
  virtual Result<std::vector<PageSummary>> ListPages(const ListFilter& filter) = 0;
  virtual Result<std::vector<SourceFile>> ListSourceFiles(std::string_view source) = 0;
  // One file of a source by path or by slug (indexed lookups); nothing when absent.
  virtual Result<std::optional<SourceFile>> FindSourceFile(std::string_view source, std::string_view path) = 0;
  virtual Result<std::optional<SourceFile>> FindSourceFileBySlug(std::string_view source, std::string_view slug) = 0;

  // The folder a source's Markdown lives in ("" = the brain root).
  virtual Result<std::string> SourceRoot(std::string_view source) = 0;
  virtual Status SetSourceRoot(std::string_view source, std::string_view root) = 0;

  // The last synced commit of a source ("" before the first sync). Set it
  // inside the batch that applies that commit's changes, so both commit together.
  virtual Result<std::string> SyncAnchor(std::string_view source) = 0;
  virtual Status SetSyncAnchor(std::string_view source, std::string_view anchor) = 0;
  // Gives a page a new slug and path, keeping its id, versions and chunks.
  // Links from other pages stay as their files write them (a rebuild of the
  // same files stores the same). NotFound if old_slug is absent,
  // AlreadyExists if new_slug is taken.
  virtual Status RenamePage(std::string_view source, std::string_view old_slug, std::string_view new_slug,
                            std::string_view new_path) = 0;
  // Small named values kept with the data (e.g. the scope a source was synced with).
  virtual Result<std::string> GetConfigValue(std::string_view key) = 0;  // "" when unset
  virtual Status SetConfigValue(std::string_view key, std::string_view value) = 0;
  virtual Status AppendAudit(std::string_view source, const AuditEntry& entry) = 0;
  virtual Result<std::vector<AuditEntry>> Audit(size_t limit) = 0;  // newest first
  virtual Status RecordSyncFailure(std::string_view source, const SyncFailure& failure) = 0;
  virtual Status ClearSyncFailure(std::string_view source, std::string_view path) = 0;
  virtual Result<std::vector<SyncFailure>> SyncFailures(std::string_view source) = 0;

  // Checks the database against itself: SQLite's own check, rows whose page
  // is gone, chunk and title posting lists that disagree with the chunks'
  // and pages' term lists (terms, docs, lengths), corpus statistics against
  // the sums over rows, and the vector log (its triggers, a log entry for
  // every stored vector, none left visible for a vanished chunk, no vector
  // of text that changed since it was embedded). Problems about one page
  // name its path: writing the page again fixes them.
  virtual Result<std::vector<IntegrityProblem>> CheckIntegrity() = 0;
  // Removes what CheckIntegrity finds left over: rows of deleted pages,
  // postings of vanished chunks and pages, damaged lists; recomputes the
  // corpus statistics; restores the vector log (triggers, missing entries)
  // and drops vectors of changed text. Pages whose own rows disagree are
  // fixed by writing them again.
  virtual Status Repair() = 0;
  // The derived rows of the named pages of a source (absent pages are left
  // out), for comparison with a rebuild written to a scratch store.
  virtual Result<std::map<std::string, DerivedRows>> PageDerivedRows(std::string_view source,
                                                                     const std::vector<std::string>& slugs) = 0;

  virtual Status BeginBatch() = 0;
  virtual Status CommitBatch() = 0;
  // Ends any read transaction that a statement stepped but not yet reset
  // keeps open, so that the next read sees the latest commit and the next
  // write does not start from a stale snapshot (SQLite's "database is
  // locked"). Long-lived callers (server workers) call it between requests;
  // every write transaction calls it first.
  virtual void FinishReads() = 0;
  virtual void RollbackBatch() = 0;

  // The engine's posting lists and collection statistics, which the bm25
  // module scores (the engine itself neither scores nor prunes). Owned by
  // the engine, valid as long as it, used from the engine's thread.
  virtual PostingStore& Postings() = 0;
  // A page's aliases (frontmatter `aliases`), in name order.
  virtual Result<std::vector<std::string>> PageAliases(int64_t page_id) = 0;
  // Pages whose title or an alias equals name (ASCII case-insensitive).
  virtual Result<std::vector<int64_t>> PagesNamed(std::string_view name, bool include_private) = 0;
  // Slug, path, title and aliases of every page of a source (private ones
  // with include_private), in slug order: one scan of pages and aliases.
  virtual Result<std::vector<PageNames>> AllPageNames(std::string_view source, bool include_private) = 0;
  virtual Result<std::vector<ChunkRecord>> GetChunks(const std::vector<int64_t>& chunk_ids) = 0;
  // The chunk(s) of a page, in order.
  virtual Result<std::vector<ChunkRecord>> GetPageChunks(int64_t page_id) = 0;

  virtual Result<std::vector<LinkRecord>> Backlinks(std::string_view source, std::string_view slug) = 0;
  virtual Result<std::vector<TimelineEntry>> Timeline(std::string_view source, std::string_view slug) = 0;

  // Chunks (id > after_id, ascending) without an embedding of model, or all
  // chunks when all is set; at most limit.
  virtual Result<std::vector<EmbeddingTask>> ChunksToEmbed(std::string_view model, bool all, int64_t after_id,
                                                           size_t limit) = 0;
  // Stores vectors (one transaction); chunks deleted meanwhile are skipped.
  virtual Status StoreEmbeddings(const std::vector<EmbeddingWrite>& rows) = 0;
  virtual Result<EmbeddingCounts> CountEmbeddings(std::string_view model) = 0;
  // The query-embedding cache (model, query text) -> vector.
  virtual Result<std::optional<std::vector<float>>> CachedQueryVector(std::string_view model,
                                                                      std::string_view query) = 0;
  virtual Status CacheQueryVector(std::string_view model, std::string_view query, const std::vector<float>& v) = 0;

  // Every change to a chunk's vector (stored, replaced, or gone with its
  // chunk) advances the vector generation and is logged, so that a vector
  // index built at generation g can catch up with the changes after g.
  virtual Result<int64_t> VectorGeneration() = 0;
  // Chunk ids whose vector changed after generation since (deduplicated,
  // ascending); nothing when the log no longer reaches back that far.
  virtual Result<std::optional<std::vector<int64_t>>> VectorChangesSince(int64_t since) = 0;
  // Keeps the log's last keep entries (an index older than that rebuilds).
  virtual Status TrimVectorLog(int64_t keep) = 0;
  // Vectors of model, for chunks with id > after_id (ascending, at most
  // limit), or for the given ids (those without a vector of model are absent).
  virtual Result<std::vector<ChunkVector>> ChunkVectors(std::string_view model, int64_t after_id, size_t limit) = 0;
  virtual Result<std::vector<ChunkVector>> ChunkVectorsById(std::string_view model,
                                                            const std::vector<int64_t>& ids) = 0;
  // Ids of the chunks whose page passes the filter, ascending.
  virtual Result<std::vector<int64_t>> FilterChunks(const ChunkFilter& filter) = 0;
  // Ids of the pages that pass the filter, ascending.
  virtual Result<std::vector<int64_t>> FilterPages(const ChunkFilter& filter) = 0;
  // Inbound links of each page (pages without any are absent); links from
  // private pages count only with include_private.
  virtual Result<std::map<int64_t, int64_t>> BacklinkCounts(const std::vector<int64_t>& page_ids,
                                                            bool include_private) = 0;
  // Ids of the chunks of private pages, ascending (what a remote caller's
  // vector arm must neither return nor sample).
  virtual Result<std::vector<int64_t>> PrivateChunkIds() = 0;

  virtual Result<BrainStats> Stats() = 0;
  virtual Status AppendIngestLog(const IngestLogEntry& entry) = 0;
  virtual Result<std::vector<IngestLogEntry>> RecentIngestLog(size_t limit) = 0;

 protected:
  Engine() = default;
};

}  // namespace engram
