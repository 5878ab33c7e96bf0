#include "engram/store/transaction.h"

#include "engram/engine.h"

namespace engram {

Result<Transaction> Engine::Begin() {
  ENGRAM_RETURN_IF_ERROR(BeginTransaction());
  return Transaction(this);
}

Status Transaction::Commit() {
  if (engine_ == nullptr) return Status::FailedPrecondition("the transaction has ended");
  Engine* engine = engine_;
  engine_ = nullptr;
  Status st = engine->CommitTransaction();
  if (!st.ok()) engine->RollbackTransaction();
  return st;
}

void Transaction::Rollback() {
  if (engine_ == nullptr) return;
  Engine* engine = engine_;
  engine_ = nullptr;
  engine->RollbackTransaction();
}

}  // namespace engram
