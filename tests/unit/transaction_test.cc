// Transactions as objects (engram/store/transaction.h) and opening a store
// from a URI (engram/store/open_store.h). What a transaction wrote is
// checked through a second engine on the same file, as another process
// would read it.
#include "engram/store/transaction.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "engram/engine.h"
#include "engram/store/open_store.h"
#include "sync/page_indexer.h"
#include "test_stores.h"
#include "test_support.h"

namespace engram {
namespace {

using testing::TempDir;

using testing::Prepare;

class TransactionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions o;
    o.create_if_missing = true;
    auto e = OpenStore("sqlite:" + (dir_.path() / "engram.db").string(), o);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
    auto r = OpenSqliteStore(dir_.path() / "engram.db", {});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    reader_ = std::move(r).value();
  }
  // Pages another connection sees.
  size_t VisiblePages() {
    ListFilter f;
    auto pages = reader_->ListPages(f);
    EXPECT_TRUE(pages.ok()) << pages.status().ToString();
    return pages.ok() ? pages->size() : 0;
  }

  TempDir dir_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Engine> reader_;
};

TEST_F(TransactionTest, CommitMakesEveryWriteVisibleTogether) {
  {
    auto txn = engine_->Begin();
    ASSERT_TRUE(txn.ok()) << txn.status().ToString();
    ASSERT_TRUE(engine_->PutPage(Prepare("a.md", "alpha")).ok());
    ASSERT_TRUE(engine_->PutPage(Prepare("b.md", "beta")).ok());
    ASSERT_TRUE(engine_->SetSyncAnchor("default", "abc").ok());
    EXPECT_EQ(VisiblePages(), 0u) << "nothing is visible before Commit";
    EXPECT_TRUE(txn->open());
    ASSERT_TRUE(txn->Commit().ok());
    EXPECT_FALSE(txn->open());
  }
  EXPECT_EQ(VisiblePages(), 2u);
  EXPECT_EQ(reader_->SyncAnchor("default").value(), "abc");
}

TEST_F(TransactionTest, DestroyedUncommittedRollsBack) {
  {
    auto txn = engine_->Begin();
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE(engine_->PutPage(Prepare("a.md", "alpha")).ok());
    ASSERT_TRUE(engine_->SetSyncAnchor("default", "abc").ok());
  }  // an early return
  EXPECT_EQ(VisiblePages(), 0u);
  EXPECT_EQ(reader_->SyncAnchor("default").value(), "");
  EXPECT_EQ(engine_->ListPages(ListFilter{}).value().size(), 0u) << "the writer's own view rolled back too";
  auto again = engine_->Begin();
  EXPECT_TRUE(again.ok()) << "the engine takes a new transaction: " << again.status().ToString();
}

TEST_F(TransactionTest, AnExceptionUnwindingRollsBack) {
  auto write_then_throw = [&] {
    auto txn = engine_->Begin();
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE(engine_->PutPage(Prepare("a.md", "alpha")).ok());
    throw std::runtime_error("a parser gave up");
  };
  EXPECT_THROW(write_then_throw(), std::runtime_error);
  EXPECT_EQ(VisiblePages(), 0u);
  ASSERT_TRUE(engine_->PutPage(Prepare("b.md", "beta")).ok()) << "a write after it is its own transaction";
  EXPECT_EQ(VisiblePages(), 1u);
}

TEST_F(TransactionTest, OneAtATimeAndEndedOnlyOnce) {
  auto txn = engine_->Begin();
  ASSERT_TRUE(txn.ok());
  auto second = engine_->Begin();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
  ASSERT_TRUE(txn->Commit().ok());
  Status twice = txn->Commit();
  EXPECT_EQ(twice.code(), StatusCode::kFailedPrecondition) << twice.ToString();
  txn->Rollback();  // nothing: already ended
  EXPECT_TRUE(engine_->Begin().ok());
}

TEST_F(TransactionTest, AMovedTransactionIsEndedOnceByItsNewOwner) {
  auto txn = engine_->Begin();
  ASSERT_TRUE(txn.ok());
  ASSERT_TRUE(engine_->PutPage(Prepare("a.md", "alpha")).ok());
  Transaction moved(std::move(*txn));
  EXPECT_FALSE(txn->open()) << "the moved-from object no longer owns it";
  txn->Rollback();  // must not touch the moved transaction
  ASSERT_TRUE(moved.open());
  ASSERT_TRUE(moved.Commit().ok());
  EXPECT_EQ(VisiblePages(), 1u);
}

TEST_F(TransactionTest, AFailedPageInsideIsRolledBackAlone) {
  auto txn = engine_->Begin();
  ASSERT_TRUE(txn.ok());
  ASSERT_TRUE(engine_->PutPage(Prepare("a.md", "alpha")).ok());
  PageWrite bad = Prepare("b.md", "beta");
  bad.chunks[0].source = static_cast<ChunkSource>(7);
  EXPECT_FALSE(engine_->PutPage(bad).ok());
  ASSERT_TRUE(engine_->PutPage(Prepare("c.md", "gamma")).ok());
  ASSERT_TRUE(txn->Commit().ok());
  EXPECT_EQ(VisiblePages(), 2u);
}

TEST(OpenStore, RefusesAUriWithoutAKnownScheme) {
  TempDir dir;
  EngineOptions o;
  o.create_if_missing = true;
  std::string file_uri = "file:";
  file_uri.append((dir.path() / "x.db").string());
  const std::vector<std::string> uris = {"", "engram.db", "mysql://localhost/brain", "postgres:/one-slash", "sqlite:", "SQLITE:x.db", file_uri};
  for (const std::string& uri : uris) {
    auto e = OpenStore(uri, o);
    ASSERT_FALSE(e.ok()) << uri;
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument) << uri;
    EXPECT_NE(e.status().message().find("sqlite:"), std::string::npos) << e.status().message();
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "x.db")) << "nothing was created";
}

TEST(OpenStore, OpensSqliteFilesAndMemory) {
  TempDir dir;
  EngineOptions o;
  auto missing = OpenStore("sqlite:" + (dir.path() / "none.db").string(), o);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  o.create_if_missing = true;
  auto mem = OpenStore("sqlite::memory:", o);
  ASSERT_TRUE(mem.ok()) << mem.status().ToString();
  ASSERT_TRUE((*mem)->PutPage(Prepare("a.md", "alpha")).ok());
  EXPECT_EQ((*mem)->ListPages(ListFilter{}).value().size(), 1u);
}

}  // namespace
}  // namespace engram
