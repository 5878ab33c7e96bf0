// The change-log contract: the one mechanism by which caches and indexes
// built beside the store (the vector index today; collections, graph rows
// and jobs later) catch up with what changed since they were built.
//
// Generations. The store keeps one counter, its generation. A write
// transaction that logs changes advances it (once for all it logs through
// LogChange and its page writes; the vector triggers advance it per vector)
// and every change carries the value it reached; the counter is a single
// row that the transaction updates, so
// a second writer waits on that row until the first commits (or the engine
// serialises writers, as SQLite does). Generations are therefore in commit
// order on every engine: once a reader sees generation g, every change with
// a generation <= g is committed and visible to it, and no change <= g can
// appear later. (A database sequence would not do: PostgreSQL hands out
// sequence values at call time, and a transaction that took 5 may commit
// after one that took 6.) A rolled-back transaction leaves the counter as
// it was.
//
// Catching up. Something built from the store records Generation() as of
// the state it read (read it first, in the same snapshot or before reading
// the data: re-applying a change is harmless, missing one is not). Later it
// asks ChangesSince(stream, g) for the keys that changed after g and
// re-reads those; when the log no longer reaches back to g (trimmed) the
// answer is nullopt and it rebuilds.
//
// Streams name what the keys are. Vector changes are logged by the engine
// itself whenever a chunk's vector is stored, replaced or gone with its
// chunk; other streams are logged by their writers with LogChange.
//
// Errors: IOError / Unavailable when the store cannot be read or written.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engram/status.h"

namespace engram {

// What a change log entry's key is. Numbered for storage: never renumber.
enum class ChangeStream : int {
  kVectors = 1,    // chunk ids whose vector (of any model) changed
  kKbEntries = 2,  // keys of knowledge entries written or gone (engram/store/kb_store.h)
  kPages = 3,      // ids of pages written, renamed or deleted
};

class ChangeLog {
 public:
  virtual ~ChangeLog() = default;

  // The store's generation: 0 for a new store, then the generation of the
  // last committed change. Cost: one row read.
  virtual Result<int64_t> Generation() = 0;
  // Keys of stream changed after generation since, deduplicated, ascending;
  // an empty list when since >= Generation(); nullopt when the log was
  // trimmed past since (the caller rebuilds). Cost: an index range scan over
  // the changes after since.
  virtual Result<std::optional<std::vector<int64_t>>> ChangesSince(ChangeStream stream, int64_t since) = 0;
  // Logs that key of stream changed: advances the generation (the first
  // time in a transaction) and records the change with it. Inside an open
  // Transaction the change lands (and the generation moves) at its
  // Commit(), or not at all; outside one it is committed at once. Cost: a
  // row write, and the generation's the first time.
  virtual Status LogChange(ChangeStream stream, int64_t key) = 0;
  // Forgets the changes of all but the last keep generations; a caller built
  // before them rebuilds. Cost: deletes the forgotten entries.
  virtual Status TrimChangeLog(int64_t keep) = 0;

 protected:
  ChangeLog() = default;
};

}  // namespace engram
