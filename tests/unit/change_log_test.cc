// The change log (engram/store/change_log.h): generations advance with each
// logged change inside its transaction, in commit order; a rolled-back
// change leaves no trace; a trimmed log says it cannot reach back; and a
// brain from before the change log keeps its vector log's entries and
// generation, so index files catch up as before.
#include "engram/store/change_log.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "engram/engine.h"
#include "engram/store/open_store.h"
#include "store/sqlite/schema.h"
#include "test_support.h"

namespace engram {
namespace {

using testing::TempDir;
using Keys = std::vector<int64_t>;

constexpr ChangeStream kVectors = ChangeStream::kVectors;

std::unique_ptr<Engine> OpenEngine(const TempDir& dir, bool create, int busy_timeout_ms = 5000) {
  EngineOptions o;
  o.create_if_missing = create;
  o.busy_timeout_ms = busy_timeout_ms;
  auto e = OpenSqliteStore(dir.path() / "engram.db", o);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? std::move(e).value() : nullptr;
}

std::optional<Keys> Since(Engine& e, int64_t g) {
  auto r = e.ChangesSince(kVectors, g);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::nullopt;
}

TEST(ChangeLog, EachChangeAdvancesTheGenerationAndIsReadBackByStream) {
  TempDir dir;
  auto e = OpenEngine(dir, true);
  EXPECT_EQ(e->Generation().value(), 0);
  EXPECT_EQ(Since(*e, 0), Keys{});
  ASSERT_TRUE(e->LogChange(kVectors, 7).ok());
  ASSERT_TRUE(e->LogChange(kVectors, 3).ok());
  ASSERT_TRUE(e->LogChange(kVectors, 7).ok());
  EXPECT_EQ(e->Generation().value(), 3);
  EXPECT_EQ(Since(*e, 0), (Keys{3, 7})) << "deduplicated, ascending";
  EXPECT_EQ(Since(*e, 1), (Keys{3, 7}));
  EXPECT_EQ(Since(*e, 2), (Keys{7}));
  EXPECT_EQ(Since(*e, 3), Keys{});
  EXPECT_EQ(Since(*e, 99), Keys{}) << "a caller ahead of the store has nothing to apply";
}

TEST(ChangeLog, ChangesLandWithTheirTransactionOrNotAtAll) {
  TempDir dir;
  auto e = OpenEngine(dir, true);
  auto reader = OpenEngine(dir, false);
  ASSERT_TRUE(e->LogChange(kVectors, 1).ok());
  {
    auto txn = e->Begin();
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE(e->LogChange(kVectors, 2).ok());
    EXPECT_EQ(reader->Generation().value(), 1) << "another connection sees the generation only at commit";
  }  // rolled back
  EXPECT_EQ(e->Generation().value(), 1);
  EXPECT_EQ(Since(*reader, 0), (Keys{1}));
  auto txn = e->Begin();
  ASSERT_TRUE(txn.ok());
  ASSERT_TRUE(e->LogChange(kVectors, 4).ok());
  ASSERT_TRUE(e->LogChange(kVectors, 5).ok());
  ASSERT_TRUE(txn->Commit().ok());
  EXPECT_EQ(reader->Generation().value(), 2) << "a transaction's changes share one generation";
  EXPECT_EQ(Since(*reader, 1), (Keys{4, 5}));
  EXPECT_EQ(Since(*reader, 2), (Keys{}));
}

// The generation is a row the writing transaction updates: a second writer
// cannot take a generation until the first commits, so generations follow
// commit order, and a reader that sees generation g has every change <= g.
TEST(ChangeLog, GenerationsFollowCommitOrderAcrossConnections) {
  TempDir dir;
  auto first = OpenEngine(dir, true);
  auto second = OpenEngine(dir, false, /*busy_timeout_ms=*/50);
  auto reader = OpenEngine(dir, false);
  auto txn = first->Begin();
  ASSERT_TRUE(txn.ok());
  ASSERT_TRUE(first->LogChange(kVectors, 10).ok());
  Status blocked = second->LogChange(kVectors, 20);
  EXPECT_FALSE(blocked.ok()) << "a second writer cannot take a generation while the first is open";
  EXPECT_EQ(reader->Generation().value(), 0);
  ASSERT_TRUE(txn->Commit().ok());
  ASSERT_TRUE(second->LogChange(kVectors, 20).ok());
  EXPECT_EQ(reader->Generation().value(), 2);
  EXPECT_EQ(Since(*reader, 0), (Keys{10, 20}));
  EXPECT_EQ(Since(*reader, 1), (Keys{20})) << "the later commit has the later generation";
}

TEST(ChangeLog, ATrimmedLogCannotReachBack) {
  TempDir dir;
  auto e = OpenEngine(dir, true);
  for (int64_t k = 1; k <= 5; ++k) ASSERT_TRUE(e->LogChange(kVectors, k).ok());
  ASSERT_TRUE(e->TrimChangeLog(2).ok());
  EXPECT_EQ(e->Generation().value(), 5) << "trimming never moves the generation";
  EXPECT_FALSE(Since(*e, 0).has_value());
  EXPECT_FALSE(Since(*e, 2).has_value());
  EXPECT_EQ(Since(*e, 3), (Keys{4, 5}));
  EXPECT_EQ(Since(*e, 5), Keys{});
  ASSERT_TRUE(e->TrimChangeLog(100).ok()) << "keeping more than there is trims nothing";
  EXPECT_EQ(Since(*e, 3), (Keys{4, 5}));
  ASSERT_TRUE(e->LogChange(kVectors, 9).ok());
  EXPECT_EQ(Since(*e, 5), (Keys{9}));
}

// Without its generation row a store would log nothing (the triggers'
// entries take their generation from it): check names it, repair puts it
// back above every entry.
TEST(ChangeLog, AMissingGenerationRowIsFoundAndRepaired) {
  TempDir dir;
  auto e = OpenEngine(dir, true);
  for (int64_t k = 1; k <= 3; ++k) ASSERT_TRUE(e->LogChange(kVectors, k).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir.path() / "engram.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DELETE FROM store_generation", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto problems = e->CheckIntegrity();
  ASSERT_TRUE(problems.ok());
  bool named = false;
  for (const auto& p : *problems) named |= p.what.find("generation row is missing") != std::string::npos;
  EXPECT_TRUE(named);
  ASSERT_TRUE(e->Repair().ok());
  EXPECT_EQ(e->Generation().value(), 4) << "one above every entry";
  EXPECT_TRUE(e->CheckIntegrity().value().empty());
  for (int64_t g : {0, 3}) {
    EXPECT_FALSE(Since(*e, g).has_value()) << "changes while the row was gone went unlogged: an index built at " << g
                                           << " rebuilds";
  }
  ASSERT_TRUE(e->LogChange(kVectors, 8).ok());
  EXPECT_EQ(Since(*e, 4), (Keys{8}));
}

// A brain made before the change log (schema 9: the vector log with an
// AUTOINCREMENT seq) keeps every entry under its seq as generation.
TEST(ChangeLog, TheVectorLogOfAnOlderBrainBecomesTheChangeLog) {
  for (bool trimmed : {false, true}) {
    TempDir dir;
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir.path() / "engram.db").c_str(), &db), SQLITE_OK);
    ASSERT_TRUE(store::sqlite::Migrate(db, 9).ok());
    std::string sql = "INSERT INTO vector_log(chunk_id) VALUES (5), (7), (5), (9);";
    if (trimmed) sql += "DELETE FROM vector_log WHERE seq <= 2;";
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    auto e = OpenEngine(dir, false);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->Generation().value(), 4);
    EXPECT_EQ(Since(*e, 2), (Keys{5, 9}));
    if (trimmed) {
      EXPECT_FALSE(Since(*e, 1).has_value()) << "the old log no longer reached back to 1";
    } else {
      EXPECT_EQ(Since(*e, 0), (Keys{5, 7, 9}));
    }
    ASSERT_TRUE(e->LogChange(kVectors, 11).ok());
    EXPECT_EQ(e->Generation().value(), 5) << "generations go on from the old log's last seq";
    auto problems = e->CheckIntegrity();
    ASSERT_TRUE(problems.ok());
    for (const auto& p : *problems) {  // (chunks 7 and 9 never existed: their entries are the check's business)
      EXPECT_EQ(p.what.find("trigger"), std::string::npos) << p.what;
      EXPECT_EQ(p.what.find("generation"), std::string::npos) << p.what;
    }
  }
}

}  // namespace
}  // namespace engram
