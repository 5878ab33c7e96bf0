// The storage engine: every store contract of one brain behind one object.
//
//   engram/store/page_store.h    pages and their derived rows
//   engram/posting_store.h       posting lists and collection statistics (BM25 reads them; src/bm25 scores)
//   engram/store/vector_store.h  embeddings, the query-vector cache
//   engram/store/change_log.h    commit-ordered generations: what caches and indexes catch up from
//   engram/store/sync_state.h    source roots, sync anchors, files that failed
//   engram/store/log_store.h     audit and ingest logs
//   engram/store/kb_store.h      knowledge collections and their entries
//   engram/store/config_store.h  small named values kept with the data
//   engram/store/journal_store.h writes of Markdown files recorded before their first file changes
//   engram/store/transaction.h   a write transaction as an object
//
// Code that needs one concern takes that contract, not the Engine. An
// engine is opened from a URI by engram/store/open_store.h; nothing here
// names a storage library or its types. Implementations: SQLite (embedded
// default, src/store/sqlite); PostgreSQL follows behind the same contracts.
//
// Threading: an Engine object is used by one thread at a time. Open one per
// thread; readers in other processes or threads never wait for a writer.
// Atomicity: outside a Transaction, PutPage and DeletePage each commit all
// of a page's rows (postings included) together or not at all; inside one,
// every write lands at its Commit() (a failed page rolled back alone).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engram/posting_store.h"
#include "engram/status.h"
#include "engram/store/change_log.h"
#include "engram/store/config_store.h"
#include "engram/store/journal_store.h"
#include "engram/store/kb_store.h"
#include "engram/store/log_store.h"
#include "engram/store/page_store.h"
#include "engram/store/sync_state.h"
#include "engram/store/transaction.h"
#include "engram/store/vector_store.h"

namespace engram {

// Where reads are served from, when a replica serves them.
struct ReplicaState {
  std::string where;         // host:port/db
  double lag_seconds = 0;    // how far its replay is behind the primary (0: in step)
  bool serving = false;      // false: reads go to the primary now (a write of this engine not yet replayed, or
                             // the replica unreachable)
};

struct BrainStats {
  bool scoped = false;  // counted for a reader without private pages: private_pages, versions, terms, db_bytes unknown
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
  std::string engine;  // "sqlite" or "postgres"
  std::string server;  // the engine's version, and for a server where it is ("PostgreSQL 15.8 at host:5432/db")
  std::optional<ReplicaState> replica;  // the read replica, when one is configured
};

// A way in which the database disagrees with itself.
struct IntegrityProblem {
  std::string what;  // human-readable description
  std::string path;  // the page's file when one page is concerned ("" otherwise)
};

struct EngineOptions {
  bool create_if_missing = false;
  int busy_timeout_ms = 5000;
  // A hot standby of the database that reads go to while nothing this
  // engine wrote is missing from it (PostgreSQL; "" = none).
  std::string read_uri;
  // PostgreSQL: how long the writer's lease lasts unless renewed; a write
  // transaction renews it every third of that.
  int lease_seconds = 30;
};


class Engine : public PageStore,
               public VectorStore,
               public ChangeLog,
               public SyncStateStore,
               public LogStore,
               public ConfigStore,
               public KbStore,
               public JournalStore {
 public:
  ~Engine() override = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Starts a write transaction (engram/store/transaction.h).
  // FailedPrecondition when one is open; Unavailable when another writer
  // holds the store past its busy time-out.
  Result<Transaction> Begin();

  // Checks the database against itself: the storage's own check, rows whose
  // page is gone, chunk and title posting lists that disagree with the
  // chunks' and pages' term lists (terms, docs, lengths), corpus statistics
  // against the sums over rows, and the change log's vector stream (its
  // triggers and generation, an entry for every stored vector, none left
  // visible for a vanished chunk, no vector of text that changed since it
  // was embedded). Problems about one page name its path: writing the page
  // again fixes them.
  virtual Result<std::vector<IntegrityProblem>> CheckIntegrity() = 0;
  // Removes what CheckIntegrity finds left over: rows of deleted pages,
  // postings of vanished chunks and pages, damaged lists; recomputes the
  // corpus statistics; restores the logging of vector changes (triggers,
  // generation, missing entries) and drops vectors of changed text. Pages
  // whose own rows disagree are fixed by writing them again.
  virtual Status Repair() = 0;
  // Ends any read transaction that a statement stepped but not yet reset
  // keeps open, so that the next read sees the latest commit and the next
  // write does not start from a stale snapshot (SQLite's "database is
  // locked"). Long-lived callers (server workers) call it between requests;
  // every write transaction calls it first.
  virtual void FinishReads() = 0;

  // The engine's posting lists and collection statistics, which the bm25
  // module scores (the engine itself neither scores nor prunes). Owned by
  // the engine, valid as long as it, used from the engine's thread.
  virtual PostingStore& Postings() = 0;
  // What the store holds, counted as scope sees it: for a reader without
  // private pages, only public pages and their chunks, links, tags, aliases,
  // timeline entries and versions, no private_pages, and neither the term
  // dictionary's size nor the database's (both count private text); the
  // same for a store that holds no private page at all.
  virtual Result<BrainStats> Stats(const ReadScope& scope) = 0;
  // The read replica and its lag; nothing when the engine reads from the
  // primary only.
  virtual Result<std::optional<ReplicaState>> ReadReplica() { return std::optional<ReplicaState>(); }

 protected:
  Engine() = default;

  // The transaction primitives Begin() and Transaction call: begin one write
  // transaction, commit it (on an error it is rolled back and ended), roll
  // it back (never fails; nothing when none is open).
  virtual Status BeginTransaction() = 0;
  virtual Status CommitTransaction() = 0;
  virtual void RollbackTransaction() = 0;

 private:
  friend class Transaction;
};

}  // namespace engram
