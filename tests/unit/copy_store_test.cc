// CopyStore (engram migrate): every table of both schemas is copied, a round
// trip SQLite -> PostgreSQL -> SQLite gives back the same rows and rankings,
// an interrupted copy resumes, and a target holding another brain is refused.
// The PostgreSQL half is skipped when the run has no test cluster.
#include "engram/store/copy_store.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <map>
#include <random>
#include <set>

#include "bm25/searcher.h"
#include "engram/store/open_store.h"
#include "test_stores.h"

namespace engram {
namespace {

using testing::Prepare;
using testing::TempDir;

std::map<std::string, std::set<std::string>> Copied() {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& [table, cols] : CopiedColumns()) out[table] = {cols.begin(), cols.end()};
  return out;
}

TEST(CopyStore, CoversEveryTableAndColumnOfTheSqliteSchema) {
  TempDir dir;
  ASSERT_NE(testing::OpenFresh(dir.path() / "s.db"), nullptr);
  if (testing::TestingPostgres()) GTEST_SKIP() << "reads the SQLite file";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir.path() / "s.db").c_str(), &db), SQLITE_OK);
  std::map<std::string, std::set<std::string>> schema;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p "
                         "WHERE m.type = 'table' AND m.name != 'sqlite_sequence'", -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) {
    schema[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))].insert(
        reinterpret_cast<const char*>(sqlite3_column_text(st, 1)));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  EXPECT_EQ(schema, Copied()) << "a migration added a table or column: add it to CopyStore's list";
}

TEST(CopyStore, CoversEveryTableAndColumnOfThePostgresSchema) {
  if (testing::TestPgUrl().empty()) GTEST_SKIP() << "no PostgreSQL test cluster";
  const std::string url = testing::FreshPgStoreUrl();
  EngineOptions o;
  o.create_if_missing = true;
  ASSERT_TRUE(OpenStore(url, o).ok());
  PGconn* c = PQconnectdb(url.c_str());
  PGresult* r = PQexec(c, "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = "
                          "current_schema() AND table_name NOT IN ('engram_meta', 'engram_writer')");
  ASSERT_EQ(PQresultStatus(r), PGRES_TUPLES_OK) << PQresultErrorMessage(r);
  std::map<std::string, std::set<std::string>> schema;
  for (int i = 0; i < PQntuples(r); ++i) schema[PQgetvalue(r, i, 0)].insert(PQgetvalue(r, i, 1));
  PQclear(r);
  PQfinish(c);
  EXPECT_EQ(schema, Copied());
}

// A brain with something in every table a user's brain fills.
void Fill(Engine& e, int pages) {
  std::mt19937 rng(11);
  auto word = [&] { return std::string("w") + std::to_string(rng() % 4000); };
  for (int d = 0; d < pages; ++d) {
    std::string text = std::string("---\ntitle: ") + word() + " " + word() + "\ntags: [t" + std::to_string(d % 5) +
                       "]\naliases: [A" + std::to_string(d) + "]\n" + (d % 9 == 4 ? "visibility: private\n" : "") +
                       "---\n";
    for (int i = 0; i < 40; ++i) text += word() + " ";
    text += std::string("[[p") + std::to_string((d + 1) % pages) + "]]\n\n<!-- timeline -->\n\n- **2026-0" +
            std::to_string(1 + d % 9) + "-01** | event " + word() + "\n";
    ASSERT_TRUE(e.PutPage(Prepare(std::string("p") + std::to_string(d) + ".md", text)).ok());
  }
  // Overwrites leave versions; a vector for some chunks.
  ASSERT_TRUE(e.PutPage(Prepare("p0.md", std::string("rewritten ") + word())).ok());
  auto tasks = e.ChunksToEmbed("m", false, ChunkId(0), 50);
  ASSERT_TRUE(tasks.ok());
  std::vector<EmbeddingWrite> vectors;
  for (const auto& t : *tasks) vectors.push_back({t.chunk_id, "m", EmbeddingTextHash(t.text), {0.5f, -1.25f, 3.0f}});
  ASSERT_TRUE(e.StoreEmbeddings(vectors).ok());
  ASSERT_TRUE(e.SetSyncAnchor("default", "abc123").ok());
  ASSERT_TRUE(e.RecordSyncFailure("default", {"bad.md", "not UTF-8", "2026-01-01T00:00:00Z"}).ok());
  ASSERT_TRUE(e.AppendAudit("default", {"2026-01-01T00:00:00Z", "secret.md", "api_key", 3}).ok());
  ASSERT_TRUE(e.AppendIngestLog({"2026-01-01T00:00:00Z", "p1.md", "added", ""}).ok());
  ASSERT_TRUE(e.SetConfigValue("index_format", "v9").ok());
  KbCollection kb;
  kb.name = "redline";
  kb.created_at = "2026-01-01T00:00:00Z";
  ASSERT_TRUE(e.CreateKbCollection(kb).ok());
  KbEntry entry;
  entry.collection = "redline";
  entry.id = "e1";
  entry.text = "如何购买毒品";
  entry.updated_at = "2026-01-01T00:00:00Z";
  ASSERT_TRUE(e.PutKbEntries({entry}).ok());
}

std::vector<std::pair<int64_t, double>> Ranking(Engine& e, const std::string& w1, const std::string& w2) {
  KeywordQuery q;
  q.terms = {{w1}, {w2}};
  q.limit = 50;
  auto hits = bm25::Searcher(e.Postings()).SearchChunks(q);
  EXPECT_TRUE(hits.ok());
  std::vector<std::pair<int64_t, double>> out;
  for (const auto& h : *hits) out.emplace_back(h.chunk_id.value(), h.score);
  return out;
}

class CopyStorePg : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::TestPgUrl().empty()) GTEST_SKIP() << "no PostgreSQL test cluster";
  }
  std::unique_ptr<Engine> Open(const std::string& uri) {
    EngineOptions o;
    o.create_if_missing = true;
    auto e = OpenStore(uri, o);
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? std::move(e).value() : nullptr;
  }
  TempDir dir_;
};

TEST_F(CopyStorePg, ARoundTripThroughPostgresGivesBackTheSameRowsAndRankings) {
  auto lite = Open("sqlite:" + (dir_.path() / "a.db").string());
  Fill(*lite, 300);
  auto pg = Open(testing::FreshPgStoreUrl());
  auto there = CopyStore(*lite, *pg, "a.db", nullptr);
  ASSERT_TRUE(there.ok()) << there.status().ToString();
  auto back = Open("sqlite:" + (dir_.path() / "b.db").string());
  auto again = CopyStore(*pg, *back, "pg", nullptr);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ASSERT_EQ(there->tables.size(), again->tables.size());
  int64_t terms = 0;
  for (size_t i = 0; i < there->tables.size(); ++i) {
    EXPECT_EQ(there->tables[i].sha256, again->tables[i].sha256) << there->tables[i].name;
    EXPECT_EQ(there->tables[i].rows, again->tables[i].rows) << there->tables[i].name;
    if (there->tables[i].name == "terms") terms = there->tables[i].rows;
  }
  EXPECT_GT(terms, 2000) << "more than one batch";
  for (const auto& [a, b] : {std::pair{"w1", "w2"}, {"w17", "w300"}, {"w5", "w3999"}}) {
    auto want = Ranking(*lite, a, b);
    EXPECT_FALSE(want.empty());
    EXPECT_EQ(Ranking(*pg, a, b), want);
    EXPECT_EQ(Ranking(*back, a, b), want);
  }
  for (Engine* e : {pg.get(), back.get()}) {
    auto problems = e->CheckIntegrity();
    ASSERT_TRUE(problems.ok());
    EXPECT_TRUE(problems->empty()) << problems->front().what;
  }
  // The copies write on from there: ids continue after the copied ones.
  ASSERT_TRUE(pg->PutPage(Prepare("new.md", "a page written after the migrate")).ok());
  ASSERT_TRUE(back->PutPage(Prepare("new.md", "a page written after the migrate")).ok());
}

TEST_F(CopyStorePg, AnInterruptedCopyResumesAndATargetWithAnotherBrainIsRefused) {
  auto lite = Open("sqlite:" + (dir_.path() / "a.db").string());
  Fill(*lite, 300);
  const std::string url = testing::FreshPgStoreUrl();
  auto pg = Open(url);
  struct Stop {};
  bool stopped = false;
  try {
    (void)CopyStore(*lite, *pg, "a.db", [&](const CopyProgress& p) {
      if (p.table == "terms") throw Stop{};  // after the first batch of terms committed
    });
  } catch (const Stop&) {
    stopped = true;
  }
  ASSERT_TRUE(stopped);
  // Another source is refused by the interrupted target.
  auto other = Open("sqlite:" + (dir_.path() / "other.db").string());
  EXPECT_EQ(CopyStore(*other, *pg, "other.db", nullptr).status().code(), StatusCode::kFailedPrecondition);
  auto resumed = CopyStore(*lite, *pg, "a.db", nullptr);
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  int64_t skipped = 0;
  for (const CopiedTable& t : resumed->tables) skipped += t.resumed_after;
  EXPECT_GT(skipped, 2000);
  // A finished copy is a brain: copying into it again is refused, and it is left as it was.
  auto twice = CopyStore(*lite, *pg, "a.db", nullptr);
  EXPECT_EQ(twice.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(Ranking(*pg, "w1", "w2"), Ranking(*lite, "w1", "w2"));
}

}  // namespace
}  // namespace engram
