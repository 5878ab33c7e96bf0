// A write transaction on an engine, as an object.
//
//   ENGRAM_ASSIGN_OR_RETURN(Transaction txn, engine.Begin());
//   ENGRAM_RETURN_IF_ERROR(engine.PutPage(a));
//   ENGRAM_RETURN_IF_ERROR(engine.SetSyncAnchor(source, head));
//   return txn.Commit();
//
// Everything written through the engine between Begin() and Commit() lands
// together or not at all: a Transaction destroyed before Commit() — an early
// return, an error, an exception unwinding — rolls back. Inside one, each
// PutPage / DeletePage / RenamePage is its own savepoint: a page whose write
// fails is rolled back alone and the transaction goes on (import and sync
// record the failure and continue). Readers in other connections or
// processes see the state before Begin() until Commit() returns.
//
// One transaction at a time per engine (Begin() on an engine that has one
// open is FailedPrecondition). A Transaction can be moved, not copied, and
// must not outlive its engine. Commit() after Commit() or Rollback() is
// FailedPrecondition; Rollback() on an ended transaction does nothing.
#pragma once

#include "engram/status.h"

namespace engram {

class Engine;

class [[nodiscard]] Transaction {
 public:
  Transaction(Transaction&& other) noexcept : engine_(other.engine_) { other.engine_ = nullptr; }
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction() { Rollback(); }

  // Makes every write since Begin() durable and visible. On an error nothing
  // of the transaction lands and it is ended.
  Status Commit();
  // Drops every write since Begin().
  void Rollback();
  // Until Commit() or Rollback().
  bool open() const { return engine_ != nullptr; }

 private:
  friend class Engine;
  explicit Transaction(Engine* engine) : engine_(engine) {}

  Engine* engine_;
};

}  // namespace engram
