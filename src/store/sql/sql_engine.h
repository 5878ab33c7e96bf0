// The SQLite engine: WAL mode, one transaction per page write, postings for
// BM25 kept in the same database and the same transaction as the pages.
#pragma once

#include <filesystem>
#include <functional>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engram/engine.h"
#include "common/flat_string_map.h"
#include "store/postings_codec.h"
#include "store/varint.h"
#include "store/sql/statement.h"

namespace engram::store::sql {

// SQL true when the tag t.tag is the wanted tag (bound twice, or once as ?3)
// or below it: "#project" matches "Project" and "project/alpha". Case is
// ignored for ASCII letters (SQLite's NOCASE).
#define ENGRAM_TAG_MATCHES(p1, p2) \
  "(t.tag = " p1 " COLLATE NOCASE OR substr(t.tag, 1, length(" p2 ") + 1) = (" p2 " || '/') COLLATE NOCASE)"

// A term's whole posting list written (?1 term id, ?2 the encoded list), new or replacing the stored one.
inline constexpr const char kPutPostingsSql[] =
    "INSERT INTO postings(term_id, data) VALUES (?, ?) ON CONFLICT (term_id) DO UPDATE SET data = excluded.data";
inline constexpr const char kPutTitlePostingsSql[] =
    "INSERT INTO title_postings(term_id, data) VALUES (?, ?) ON CONFLICT (term_id) DO UPDATE SET data = excluded.data";
// PostgreSQL: the stored lists of many terms in one statement (an array of ids).
inline constexpr const char kReadPostingsByIdsSql[] =
    "SELECT term_id, data FROM postings WHERE term_id = ANY(?::bigint[])";
inline constexpr const char kReadTitlePostingsByIdsSql[] =
    "SELECT term_id, data FROM title_postings WHERE term_id = ANY(?::bigint[])";

// A statement over the private pages, `head` naming the pages table: SQLite starts from the partial index
// of private pages (without ANALYZE it would walk every page); PostgreSQL plans from its statistics. Both
// texts are literals, as S() needs (a member of SqlEngine: it uses D()).
#define ENGRAM_FROM_PRIVATE_PAGES(head, tail) D(head " INDEXED BY pages_private " tail, head " " tail)

// A tag as a filter names it: without '#' or a trailing '/'.
inline std::string WantedTag(std::string_view tag) {
  while (!tag.empty() && (tag.front() == '#' || tag.front() == ' ')) tag.remove_prefix(1);
  while (!tag.empty() && (tag.back() == '/' || tag.back() == ' ')) tag.remove_suffix(1);
  return std::string(tag);
}

// The engine is also its own PostingStore (sqlite_postings.cc): the lists
// live in the postings and title_postings tables, written in the page's
// transaction; the bm25 module scores them.
class SqlEngine final : public Engine, public PostingStore {
 public:
  // The engine over an open connection whose schema is migrated.
  explicit SqlEngine(std::unique_ptr<Connection> conn)
      : conn_(std::move(conn)), pg_(conn_->dialect() == Dialect::kPostgres) {}

  Result<PageId> PutPage(const PageWrite& write) override;

  Result<int64_t> BeginJournal(const JournalEntry& entry) override;
  Status MarkJournalFileDone(int64_t id, size_t index) override;
  Status EndJournal(int64_t id) override;
  Result<std::vector<JournalEntry>> OpenJournals() override;
  Status DeletePage(std::string_view source, std::string_view slug) override;
  using PageStore::GetPage;
  Result<StoredPage> GetPage(const ReadScope& scope, std::string_view slug) override;
  Result<std::vector<PageSummary>> ListPages(const ListFilter& filter) override;
  Result<std::vector<SourceFile>> ListSourceFiles(std::string_view source) override;
  Result<std::optional<SourceFile>> FindSourceFile(std::string_view source, std::string_view path) override;
  Result<std::optional<SourceFile>> FindSourceFileBySlug(std::string_view source, std::string_view slug) override;

  Result<std::string> SourceRoot(std::string_view source) override;
  Status SetSourceRoot(std::string_view source, std::string_view root) override;

  Result<std::string> SyncAnchor(std::string_view source) override;
  Status SetSyncAnchor(std::string_view source, std::string_view anchor) override;
  Status RenamePage(std::string_view source, std::string_view old_slug, std::string_view new_slug,
                    std::string_view new_path) override;
  Result<std::string> GetConfigValue(std::string_view key) override;
  Status SetConfigValue(std::string_view key, std::string_view value) override;
  Status AppendAudit(std::string_view source, const AuditEntry& entry) override;
  Result<std::vector<AuditEntry>> Audit(size_t limit) override;
  Status RecordSyncFailure(std::string_view source, const SyncFailure& failure) override;
  Status ClearSyncFailure(std::string_view source, std::string_view path) override;
  Result<std::vector<SyncFailure>> SyncFailures(std::string_view source) override;

  Result<std::vector<IntegrityProblem>> CheckIntegrity() override;
  Status Repair() override;
  Result<std::map<std::string, DerivedRows>> PageDerivedRows(std::string_view source,
                                                             const std::vector<std::string>& slugs) override;

  Status BeginTransaction() override;
  void FinishReads() override;
  Status CommitTransaction() override;
  void RollbackTransaction() override;

  PostingStore& Postings() override { return *this; }
  Result<std::optional<ReplicaState>> ReadReplica() override { return conn_->ReadReplica(); }
  // The connection (CopyStore reads and writes whole tables through it).
  Connection& connection() { return *conn_; }
  Result<std::vector<std::string>> PageAliases(PageId page_id) override;
  Result<std::vector<PageId>> PagesNamed(const ReadScope& scope, std::string_view name) override;
  Result<std::vector<PageNames>> AllPageNames(const ReadScope& scope) override;
  Result<std::vector<ChunkRecord>> GetChunks(const ReadScope& scope, const std::vector<ChunkId>& chunk_ids) override;
  Result<std::vector<ChunkRecord>> GetPageChunks(PageId page_id) override;

  Result<std::vector<LinkRecord>> Backlinks(const ReadScope& scope, std::string_view slug) override;
  Result<std::vector<TimelineEntry>> Timeline(std::string_view source, std::string_view slug) override;
  Result<std::vector<FactRecord>> Facts(const ReadScope& scope, std::optional<PageId> page, FactSide side) override;
  Result<std::vector<ResolvedLink>> ResolvedLinks(const ReadScope& scope, std::optional<PageId> from) override;
  Result<std::vector<LinkRow>> AllLinks(std::string_view source) override;
  Result<std::vector<PageNames>> PageNamesOf(const ReadScope& scope, const std::vector<PageId>& ids) override;
  Result<std::vector<LinkRow>> LinksFrom(const std::vector<PageId>& pages) override;
  std::string StoreIdentity() const override { return conn_->Identity(); }
  Result<std::map<int64_t, std::string>> LinkContexts(const std::vector<int64_t>& link_ids) override;
  Result<std::vector<DatedEntry>> TimelineBetween(const ReadScope& scope, std::string_view since,
                                                  std::string_view until, std::optional<PageId> page) override;

  Result<std::vector<EmbeddingTask>> ChunksToEmbed(std::string_view model, bool all, ChunkId after_id,
                                                   size_t limit) override;
  Status StoreEmbeddings(const std::vector<EmbeddingWrite>& rows) override;
  Result<EmbeddingCounts> CountEmbeddings(std::string_view model, const ReadScope& scope) override;
  Result<std::optional<std::vector<float>>> CachedQueryVector(std::string_view model, std::string_view query) override;
  Result<std::vector<ChunkVector>> ChunkVectors(std::string_view model, ChunkId after_id, size_t limit) override;
  Result<std::vector<ChunkVector>> ChunkVectorsById(std::string_view model, const std::vector<ChunkId>& ids) override;
  // ChangeLog (sqlite_change_log.cc).
  Result<int64_t> Generation() override;
  Result<std::optional<std::vector<int64_t>>> ChangesSince(ChangeStream stream, int64_t since) override;
  Status LogChange(ChangeStream stream, int64_t key) override;
  Status TrimChangeLog(int64_t keep) override;
  Result<std::vector<ChunkId>> FilterChunks(const ChunkFilter& filter) override;
  Result<std::vector<PageId>> FilterPages(const ChunkFilter& filter) override;
  Result<std::map<PageId, int64_t>> BacklinkCounts(const ReadScope& scope, const std::vector<PageId>& page_ids) override;
  Result<std::vector<ChunkId>> PrivateChunkIds() override;
  Status CacheQueryVector(std::string_view model, std::string_view query, const std::vector<float>& v) override;
  Result<BrainStats> Stats(const ReadScope& scope) override;
  Status AppendIngestLog(const IngestLogEntry& entry) override;
  Result<std::vector<IngestLogEntry>> RecentIngestLog(size_t limit) override;

  // PostingStore.
  Status CreateKbCollection(const KbCollection& collection) override;
  Result<std::vector<KbCollection>> KbCollections() override;
  Result<std::optional<KbCollection>> FindKbCollection(std::string_view name) override;
  Status DropKbCollection(std::string_view name) override;
  Result<std::vector<KbCollectionStats>> KbCollectionStatistics() override;
  Result<std::vector<int64_t>> PutKbEntries(const std::vector<KbEntry>& entries) override;
  Result<std::vector<std::string>> DeleteKbEntries(std::string_view collection,
                                                   const std::vector<std::string>& ids) override;
  Result<std::vector<KbEntry>> KbEntriesByKey(const std::vector<int64_t>& keys) override;
  Result<std::vector<KbEntry>> ScanKbEntries(std::string_view collection, int64_t after_key, size_t limit) override;
  Result<std::optional<KbEntry>> FindKbEntry(std::string_view collection, std::string_view id) override;
  Result<int64_t> InsertGoverned(const GovernedEntry& entry) override;
  Status UpdateGoverned(const GovernedEntry& entry) override;
  Result<std::optional<GovernedEntry>> GetGoverned(int64_t id) override;
  Result<std::optional<GovernedEntry>> LatestGoverned(std::string_view uniq_id,
                                                      std::string_view business_scene) override;
  Result<std::vector<GovernedEntry>> FindGoverned(std::string_view word, bool online_only, size_t limit) override;
  Result<std::vector<GovernedEntry>> ScanGoverned(int64_t after_id, size_t limit) override;
  Status AppendKbAudit(const KbAuditEntry& entry) override;
  Result<std::vector<KbAuditEntry>> KbAudit(int64_t governed_id, size_t limit) override;

  Result<std::optional<int64_t>> FindTerm(std::string_view term) override;
  Result<std::shared_ptr<const std::string>> ReadPostingList(PostingField field, int64_t term_id) override;
  Result<FieldStatistics> Statistics(PostingField field) override;
  Result<std::shared_ptr<const PrivateFieldStatistics>> PrivateStatistics(PostingField field) override;
  Result<std::vector<PageId>> PrivatePageIds() override;
  Result<std::vector<ChunkId>> PageChunkIds(PageId page_id) override;
  Result<std::vector<std::optional<int64_t>>> FindTerms(const std::vector<std::string>& terms) override;
  Result<std::vector<std::shared_ptr<const std::string>>> ReadPostingLists(
      PostingField field, const std::vector<int64_t>& term_ids) override;
  Result<std::vector<std::vector<ChunkId>>> PagesChunkIds(const std::vector<PageId>& page_ids) override;

 private:
  // The statement for this engine's dialect: SQLite's or PostgreSQL's text
  // where the two differ (both string literals: S() caches by address).
  const char* D(const char* sqlite, const char* postgres) const { return pg_ ? postgres : sqlite; }
  Status Exec(const std::string& sql) { return conn_->Exec(sql); }
  // The id an INSERT ... RETURNING id gave (the statement is run to its end).
  static Result<int64_t> InsertedId(Stmt* insert);
  // Returns a cached prepared statement for sql (a string literal).
  Result<Stmt*> S(const char* sql);
  // Resets every cached statement left stepped but not finished (a one-row
  // look-up). Called before each COMMIT: a statement still active then makes
  // SQLite keep the connection in a read transaction at the snapshot the
  // write began from, and while that read lock is held no checkpoint can copy
  // the transaction's frames back into the database. After a large batch the
  // WAL then stayed hundreds of MB, every page read of later searches went
  // through the WAL index instead of the memory map, and the WAL was never
  // reset while the connection lived.
  void ResetStatements();
  // COMMIT, after ResetStatements: the one way a transaction of this
  // connection ends well (Transaction, a page write of its own, Repair).
  Status Commit();

  // Runs fn as part of the open Transaction, or else in a transaction of its
  // own through the transaction primitives (committed when fn succeeds,
  // rolled back when it fails).
  Status Atomically(const std::function<Status()>& fn);
  // LogChange's rows, in whatever transaction is open.
  Status WriteChange(ChangeStream stream, int64_t key);
  // Runs fn inside a transaction (or a savepoint while a Transaction is open); on
  // failure everything fn wrote is rolled back.
  template <typename Fn>
  Status Transaction(Fn&& fn);

  // A knowledge collection's row id (sqlite_kb.cc): nothing / NotFound when there is none of that name.
  Result<std::optional<int64_t>> KbCollectionId(std::string_view name);
  Result<int64_t> RequireKbCollection(std::string_view name);
  Result<int64_t> SourceId(std::string_view name, bool create);
  Result<std::optional<SourceFile>> FindSourceFileWhere(const char* sql, std::string_view source,
                                                        std::string_view value);
  Result<int64_t> TermId(const std::string& term);
  // PostgreSQL: the ids of every term of write that this connection does not
  // know yet, found or inserted in one statement (TermId then answers from
  // memory); a round trip per term was most of a page's writing.
  Status ResolveTerms(const PageWrite& write);
  Result<int64_t> LookupTermId(const std::string& term);
  Status PutPageRows(const PageWrite& write, int64_t* page_id);
  // The steps of PutPageRows. Embeddings of an overwritten page's chunks, by
  // text hash: (vector, model), kept for chunks whose text stays.
  using KeptEmbeddings = std::map<std::string, std::pair<std::string, std::string>>;
  // Inserts or updates the page row (dates, a version of changed content,
  // the old derived rows removed); returns the page id.
  Result<int64_t> WritePageRow(const PageWrite& w, int64_t source_id, const std::string& title_blob,
                               KeptEmbeddings* kept_embeddings);
  // The chunk rows and their postings; returns the chunks' total length.
  Result<int64_t> WriteChunkRows(const PageWrite& w, int64_t page_id, const KeptEmbeddings& kept_embeddings);
  // Links, tags, aliases and timeline entries.
  Status WritePageFacts(const Page& page, int64_t page_id);
  // PostgreSQL (write_arrays.cc): the same rows, one statement per table
  // with the values as arrays; a statement per row cost the server more than
  // the rows did. The chunks' ids in the order of write.chunks.
  Result<std::vector<int64_t>> InsertChunksAsArrays(const PageWrite& write, int64_t page_id,
                                                    const std::vector<std::vector<int64_t>>& term_ids);
  Status WritePageFactsAsArrays(const Page& page, int64_t page_id);
  // PostgreSQL inside a write transaction (batch_.cc): rows written without
  // waiting for their answers. Ids come from blocks taken from the tables'
  // sequences; after the first pages of a batch, the source's page names and
  // every term are read once, so that a new page needs no look-up and a new
  // term is known to be new (the writer's lease keeps others from adding any).
  struct BatchState {
    int pages = 0;  // pages written in the transaction
    std::unordered_map<std::string, int64_t> sources;
    int64_t names_source = 0;              // the source whose page names `names` are (0: none read)
    std::unordered_set<std::string> names;
    bool terms_known = false;              // term_ids_ holds every stored term
    std::unordered_map<std::string, std::vector<int64_t>> reserved;  // table -> unused ids, descending
    std::unordered_map<std::string, int64_t> block;                  // table -> size of its last block
    std::unordered_map<std::string, int64_t> rows;                   // table -> rows it had (an estimate)
    void ForgetPageRows() {
      sources.clear();
      names_source = 0;
      names.clear();
    }
  };
  struct NewPageDates {
    std::string created, date, now, path_key, name_key;
  };
  Result<bool> KnownAbsent(int64_t source_id, const std::string& slug);
  // The batch is long enough to read table whole (LongEnoughToReadAll in batch.cc).
  Result<bool> LongEnoughToReadAll(const std::string& table);
  // The planner's estimate of table's rows (pg_class.reltuples): -1 while it was never analysed
  // (ANALYZE, VACUUM and CREATE INDEX set it).
  Result<int64_t> EstimatedRows(const std::string& table);
  Result<int64_t> ReservedId(const std::string& table);
  Result<int64_t> InsertPageWithReservedId(const PageWrite& w, int64_t source_id, const std::string& title_blob,
                                           const NewPageDates& dates);
  Result<bool> KnowAllTerms();
  Status InsertNewTerms(const std::vector<std::string>& terms);
  BatchState batch_;
  // PostgreSQL after a commit (batch.cc): the planner's statistics taken
  // again once the pages written since they were taken are a quarter of the
  // table. Until autovacuum's next round (a minute or more), a freshly
  // imported brain's prepared statements would keep plans made for an empty
  // table: 0.7 ms instead of 0.04 ms for a title look-up on SciFact.
  void AnalyseIfGrown(int pages_written);
  int64_t pages_since_analyse_ = 0;
  int64_t pages_before_analyse_ = 0;  // the count at which reltuples is read again
  // Every term with a chunk (or title) posting list: the lists to clean when
  // a doc's own term list is damaged and cannot name them.
  Result<std::vector<int64_t>> AllTermIds(bool titles);
  Status RemoveDerivedRows(int64_t page_id);
  Status AdjustStats(int64_t chunks, int64_t chunk_tokens, int64_t titles, int64_t title_tokens);

  // Links between pages are stored as written and resolved when read
  // (sqlite_links.cc, rules in text/page_links.h).
  struct InboundLink {
    int64_t from_id = 0;
    std::string from_slug;
    bool from_private = false;
    std::string to_slug, type, context;
    std::optional<int64_t> reaches;  // the page the link resolves to, if any
  };
  // Every page link that may reach the page with this slug and file-name key
  // (written as the slug, or ending in the name), with the page it reaches
  // among the pages scope sees.
  Result<std::vector<InboundLink>> InboundLinks(const ReadScope& scope, int64_t source_id, std::string_view slug,
                                                std::string_view name_key);
  // The page a link target (slug form) written in a page of from_folder
  // reaches: exact path, page slug, relative to from_folder, then file name.
  // public_only: among public pages alone — for a reader who may not see
  // private ones, a link resolves as it would were they absent (it may reach
  // another page, or none), never to a page the reader cannot see.
  Result<std::optional<int64_t>> ResolveLink(int64_t source_id, std::string_view target, std::string_view from_folder,
                                             bool public_only);
  // ResolveLink once per distinct (target, folder) within one read of one
  // scope; answers keeps them.
  struct LinkMemo {
    explicit LinkMemo(const ReadScope& scope) : public_only(!scope.include_private) {}
    bool public_only;
    std::map<std::pair<std::string, std::string>, std::optional<int64_t>> answers;
  };
  Result<std::optional<int64_t>> ResolveLinkOnce(int64_t source_id, const std::string& target,
                                                 const std::string& from_folder, LinkMemo* memo);
  struct VectorLogState;
  Result<VectorLogState> ReadVectorLogState();
  // The steps of CheckIntegrity. Totals are what the rows sum to, compared
  // with corpus_stats.
  struct IndexTotals {
    int64_t chunks = 0, chunk_tokens = 0, titles = 0, title_tokens = 0;
  };
  Status CheckTables(std::vector<IntegrityProblem>* problems);
  Status CheckPostings(std::vector<IntegrityProblem>* problems, IndexTotals* totals);
  Status CheckCorpusStats(const IndexTotals& totals, std::vector<IntegrityProblem>* problems);
  static void AddVectorLogProblems(const VectorLogState& vectors, std::vector<IntegrityProblem>* problems);

  // Posting-list changes not yet written: per term, postings to add and docs
  // to remove, for the open transaction (a single page, or a whole Transaction).
  // Inside a Transaction each page is a savepoint: undo_ records the list sizes
  // before each change so a failed page can be taken back out.
  // A removal applies to the stored list and to the adds made before it,
  // never to later ones: rewriting a page removes its title posting and adds
  // it back under the same doc (the page id), and that add must survive.
  struct Removal {
    int64_t doc = 0;
    uint32_t adds_before = 0;  // adds.size() when the doc was removed
  };
  struct TermDelta {
    std::vector<Posting> adds;
    std::vector<Removal> removes;
  };
  // Indexed by term id (ids are dense); touched lists the ids with changes.
  struct Deltas {
    std::vector<TermDelta> by_term;
    std::vector<int64_t> touched;
    TermDelta& operator[](int64_t term) {
      if (static_cast<size_t>(term) >= by_term.size()) by_term.resize(static_cast<size_t>(term) * 3 / 2 + 16);
      TermDelta& d = by_term[static_cast<size_t>(term)];
      if (d.adds.empty() && d.removes.empty()) touched.push_back(term);
      return d;
    }
    void clear() {
      for (int64_t t : touched) by_term[static_cast<size_t>(t)] = TermDelta();
      touched.clear();
    }
  };
  struct Undo {
    Deltas* deltas;
    int64_t term;
    uint32_t adds;
    uint32_t removes;
  };
  void AddPosting(Deltas* deltas, int64_t term, const Posting& p);
  void RemovePosting(Deltas* deltas, int64_t term, int64_t doc);
  void UndoPageDeltas();
  Status FlushPostings();
  Status FlushDeltas(Deltas* deltas, bool titles);
  // Decodes a term's list straight from SQLite's buffer (no copy).
  Status ReadPostings(int64_t term_id, bool titles, std::vector<Posting>* out);
  // The encoded list, copied out ("" when the term has none).
  Status ReadPostingBlobCopy(int64_t term_id, bool titles, std::string* out);

  // What private pages add to the corpus statistics (PostingStore::
  // PrivateStatistics), recomputed only after a commit.
  struct PrivateStats {
    std::shared_ptr<const PrivateFieldStatistics> chunks, titles;
    std::pair<int64_t, int64_t> key{-1, -1};  // (data_version, total_changes) computed at
  };
  Status RefreshPrivateStats();
  // Posting lists handed out by ReadPostingList, kept for the next query:
  // the lists of common terms are long, and reading one means assembling it
  // from overflow pages and copying it. Least recently used out past
  // kPostingCacheBytes; all of them dropped when the database changed (the
  // same key as PrivateStats). Per connection.
  static constexpr size_t kPostingCacheBytes = size_t{32} << 20;
  struct PostingCache {
    using Key = std::pair<int64_t, bool>;  // (term id, titles)
    struct KeyHash {
      size_t operator()(const Key& k) const { return std::hash<int64_t>()(k.first * 2 + (k.second ? 1 : 0)); }
    };
    std::list<std::pair<Key, std::shared_ptr<const std::string>>> lru;  // most recently used first
    std::unordered_map<Key, decltype(lru)::iterator, KeyHash> index;
    size_t bytes = 0;
    std::pair<int64_t, int64_t> key{-1, -1};
    // Each page's chunk ids (PageChunkIds), dropped with the lists: BM25 asks for them page by page, and
    // over a network a round trip per page cost more than the scoring.
    std::unordered_map<int64_t, std::vector<ChunkId>> page_chunks;
    std::optional<std::pair<FieldStatistics, FieldStatistics>> stats;  // (chunks, titles), read under the key
    // A kept list, made the most recently used; null when not kept.
    std::shared_ptr<const std::string> Find(const Key& k);
    // Keeps a list read from the store (not one past a quarter of the budget).
    void Keep(const Key& k, std::shared_ptr<const std::string> list);
    void Clear() {
      lru.clear();
      index.clear();
      bytes = 0;
      page_chunks.clear();
      stats.reset();
    }
  };
  // The database's change key (Connection::ChangeKey).
  Result<std::pair<int64_t, int64_t>> ChangeKey() { return conn_->ChangeKey(); }
  // Drops the kept lists when the change key moved.
  Status CheckPostingCache();
  void ClearDeltas();

  std::unique_ptr<Connection> conn_;
  const bool pg_;
  std::unordered_map<const char*, Stmt> stmts_;
  common::FlatStringMap<int64_t> term_ids_{1 << 14};  // term -> id (rolled-back ids erased)
  std::vector<std::string> pending_terms_;             // inserted in the open transaction
  int64_t first_new_term_id_ = 0;  // terms with this id or above have no stored list yet (0: unknown)
  bool in_transaction_ = false;
  Deltas pending_chunks_, pending_titles_;
  std::vector<Undo> undo_;
  // corpus_stats changes of the open write, written with the postings: a row
  // updated once per page kept every version of itself until the commit, and
  // each update walked them all.
  struct StatsDelta {
    int64_t chunks = 0, chunk_tokens = 0, titles = 0, title_tokens = 0;
  };
  StatsDelta pending_stats_;
  // The open write transaction has advanced store_generation already: its
  // changes are logged at that one generation (WriteChange).
  bool generation_advanced_ = false;

  PrivateStats private_stats_;
  PostingCache posting_cache_;
};

// The term ids stored with each chunk (and page title), as store::EncodeIds
// writes them, so that its postings can be found and removed when the chunk
// goes. Corruption naming `whose` ("chunk 12") when the blob is damaged.
Result<std::vector<int64_t>> TermIds(std::string_view blob, std::string_view whose);

}  // namespace engram::store::sql
