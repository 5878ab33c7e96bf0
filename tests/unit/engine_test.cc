#include "engram/engine.h"
#include "engram/store/open_store.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sqlite3.h>

#include <set>

#include "bm25/searcher.h"
#include "common/files.h"
#include "store/postings_codec.h"
#include "store/sql/link_queries.h"
#include "store/sqlite/schema.h"
#include "sync/page_indexer.h"
#include "test_stores.h"
#include "test_support.h"

namespace engram {
namespace {

using testing::TempDir;

using testing::Prepare;
using testing::OpenFresh;

// Counts rows with a raw SQLite connection, independent of the engine.
int64_t CountRows(const TempDir& dir, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2((dir.path() / "engram.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr);
  int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

// Postings (decoded from every term's list) whose doc is not a row of owner.
int64_t OrphanPostings(const TempDir& dir, const std::string& table, const std::string& owner) {
  sqlite3* db = nullptr;
  sqlite3_open_v2((dir.path() / "engram.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  std::set<int64_t> live;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, ("SELECT id FROM " + owner).c_str(), -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) live.insert(sqlite3_column_int64(st, 0));
  sqlite3_finalize(st);
  int64_t orphans = 0;
  sqlite3_prepare_v2(db, ("SELECT data FROM " + table).c_str(), -1, &st, nullptr);
  std::vector<store::Posting> list;
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::string_view blob(static_cast<const char*>(sqlite3_column_blob(st, 0)),
                          static_cast<size_t>(sqlite3_column_bytes(st, 0)));
    EXPECT_TRUE(store::DecodePostings(blob, &list).ok());
    EXPECT_FALSE(list.empty()) << "an empty posting list is deleted, not stored";
    for (const auto& p : list) orphans += live.count(p.doc) ? 0 : 1;
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return orphans;
}

// The chunk arm of keyword search over the engine's posting lists.
Result<std::vector<KeywordHit>> SearchChunks(Engine& e, const KeywordQuery& q) {
  return bm25::Searcher(e.Postings()).SearchChunks(q);
}

const char* kPage =
    "---\ntitle: Zhang San\ntags: [a, b]\naliases: [张三]\n---\n"
    "Zhang San founded [[companies/acme]] and works at [[companies/acme]].\n"
    "<!-- timeline -->\n- **2026-01-01** | Founded Acme\n- **2026-01-01** | Founded Acme\n";

TEST(SqliteEngine, PutThenGetReturnsEveryField) {
  TempDir dir;
  auto e = OpenFresh(dir);
  auto id = e->PutPage(Prepare("people/zhang-san.md", kPage));
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  auto p = e->GetPage("default", "people/zhang-san");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->id, *id);
  EXPECT_EQ(p->title, "Zhang San");
  EXPECT_EQ(p->type, "person");
  EXPECT_EQ(p->path, "people/zhang-san.md");
  EXPECT_EQ(p->tags, (std::vector<std::string>{"a", "b"}));
  // The file name is a name of the page (an alias when it is not the title).
  EXPECT_EQ(p->aliases, (std::vector<std::string>{"zhang-san", "张三"}));
  EXPECT_EQ(p->content, kPage);
  EXPECT_EQ(p->content_hash.size(), 64u);
  auto tl = e->Timeline("default", "people/zhang-san");
  ASSERT_TRUE(tl.ok());
  EXPECT_EQ(tl->size(), 1u) << "identical timeline entries are stored once";
  auto back = e->Backlinks(ReadScope::All("default"), "companies/acme");
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 1u);  // two links to one page in one sentence are one typed edge
  EXPECT_EQ((*back)[0].from_slug, "people/zhang-san");
  EXPECT_EQ(e->GetPage("default", "nope").status().code(), StatusCode::kNotFound);
}

// Regression: a long-lived connection (a server worker) that had looked a
// page up kept that statement's read snapshot; after another connection
// committed, its next write failed with "database is locked" and its reads
// did not see the commit.
TEST(SqliteEngine, ALongLivedConnectionNeitherReadsNorWritesFromAStaleSnapshot) {
  TempDir dir;
  auto a = OpenFresh(dir);
  ASSERT_TRUE(a->PutPage(Prepare("a.md", "alpha")).ok());
  EngineOptions o;
  auto b = OpenSqliteStore(dir.path() / "engram.db", o);
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE(a->GetPage("default", "a").ok());    // leaves a one-row statement stepped
  ASSERT_TRUE((*b)->PutPage(Prepare("b.md", "beta")).ok());
  auto w = a->PutPage(Prepare("c.md", "gamma"));     // a write starts from the latest commit
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_TRUE(a->GetPage("default", "a").ok());
  ASSERT_TRUE((*b)->PutPage(Prepare("d.md", "delta")).ok());
  a->FinishReads();
  EXPECT_TRUE(a->GetPage("default", "d").ok());     // and a read after FinishReads sees b's commit
}

// The rows of sql run on a connection of its own to the brain's database
// (each column as text; "" for NULL).
std::vector<std::vector<std::string>> RowsOnAnotherConnection(const TempDir& dir, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open((dir.path() / "engram.db").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::vector<std::vector<std::string>> rows;
  while (st != nullptr && sqlite3_step(st) == SQLITE_ROW) {
    rows.emplace_back();
    for (int c = 0; c < sqlite3_column_count(st); ++c) {
      const unsigned char* text = sqlite3_column_text(st, c);
      rows.back().push_back(text == nullptr ? "" : reinterpret_cast<const char*>(text));
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return rows;
}

// Checkpoints the WAL from a connection of its own; returns (frames in the
// WAL, frames copied into the database).
std::pair<int64_t, int64_t> CheckpointWal(const TempDir& dir) {
  auto rows = RowsOnAnotherConnection(dir, "PRAGMA wal_checkpoint(PASSIVE)");
  if (rows.size() != 1 || rows[0].size() != 3) return {-1, -1};
  return {std::stoll(rows[0][1]), std::stoll(rows[0][2])};
}

// Regression: a write left a one-row look-up stepped (the page's source, a
// known term) when it committed, so SQLite kept the writer in a read
// transaction at the snapshot the write began from, and no checkpoint could
// copy the write's frames into the database while the connection lived. The
// 100,000-page bench import left an 840 MB WAL that every later search read
// through.
TEST(SqliteEngine, ACommittedWriteLeavesNothingThatHoldsBackACheckpoint) {
  TempDir dir;
  auto e = OpenFresh(dir);
  ASSERT_TRUE(e->PutPage(Prepare("a.md", "alpha beta")).ok());
  ASSERT_TRUE(e->PutPage(Prepare("b.md", "beta gamma")).ok());  // finds the source and "beta"
  auto frames = CheckpointWal(dir);
  EXPECT_GT(frames.first, 0);
  EXPECT_EQ(frames.second, frames.first) << "a page written on its own";
  {
    auto txn = e->Begin();
    ASSERT_TRUE(txn.ok());
    ASSERT_TRUE(e->PutPage(Prepare("c.md", "gamma delta")).ok());
    ASSERT_TRUE(e->PutPage(Prepare("d.md", "delta alpha")).ok());
    ASSERT_TRUE(txn->Commit().ok());
  }
  frames = CheckpointWal(dir);
  EXPECT_GT(frames.first, 0);
  EXPECT_EQ(frames.second, frames.first) << "a batch";
}

// Rewrites every chunk posting list of the brain in the codec's first layout
// (128 postings per block), as a brain written before 2026-12-02 holds them.
void RewriteListsInFirstLayout(const TempDir& dir) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir.path() / "engram.db").c_str(), &db), SQLITE_OK);
  std::vector<std::pair<int64_t, std::string>> lists;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT term_id, data FROM postings", -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) {
    std::vector<store::Posting> list;
    std::string_view blob(static_cast<const char*>(sqlite3_column_blob(st, 1)),
                          static_cast<size_t>(sqlite3_column_bytes(st, 1)));
    ASSERT_TRUE(store::DecodePostings(blob, &list).ok());
    lists.emplace_back(sqlite3_column_int64(st, 0), store::EncodeVarintPostings(list, store::kPostingBlockV1));
  }
  sqlite3_finalize(st);
  sqlite3_prepare_v2(db, "UPDATE postings SET data = ? WHERE term_id = ?", -1, &st, nullptr);
  for (const auto& [term, blob] : lists) {
    sqlite3_bind_blob(st, 1, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, term);
    ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
}

// A brain of `pages` pages "common wordN" with i % `repeats` more "common"s,
// closed again; returns q's hits on it.
std::vector<KeywordHit> BuildCommonWordBrain(const TempDir& dir, int pages, int repeats, const KeywordQuery& q) {
  auto e = OpenFresh(dir);
  auto txn = e->Begin();
  EXPECT_TRUE(txn.ok());
  for (int i = 0; i < pages; ++i) {
    std::string text = "common word" + std::to_string(i % 10);
    for (int k = 0; k < i % repeats; ++k) text += " common";
    EXPECT_TRUE(e->PutPage(Prepare("p" + std::to_string(i) + ".md", text)).ok());
  }
  EXPECT_TRUE(txn->Commit().ok());
  return SearchChunks(*e, q).value();
}

void ExpectSameHits(const std::vector<KeywordHit>& got, const std::vector<KeywordHit>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].chunk_id, want[i].chunk_id) << i;
    EXPECT_EQ(got[i].score, want[i].score) << i;
  }
}

// A brain whose lists are in the first layout ranks as before and takes new
// pages (their lists merged and written in the current layout).
TEST(SqliteEngine, ListsOfTheFirstLayoutAreSearchedAndMerged) {
  TempDir dir;
  KeywordQuery q;
  q.terms = {{"common"}, {"word7"}};
  q.limit = 5;
  const std::vector<KeywordHit> before = BuildCommonWordBrain(dir, 300, 4, q);
  ASSERT_EQ(before.size(), 5u);
  RewriteListsInFirstLayout(dir);
  auto e = OpenSqliteStore(dir.path() / "engram.db", {});
  ASSERT_TRUE(e.ok());
  auto after = SearchChunks(**e, q);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  ExpectSameHits(*after, before);
  ASSERT_TRUE((*e)->PutPage(Prepare("new.md", "common word7 common common common")).ok());
  EXPECT_EQ(OrphanPostings(dir, "postings", "chunks"), 0);
  q.limit = 400;
  q.terms = {{"common"}};
  EXPECT_EQ(SearchChunks(**e, q)->size(), 301u);
}

// Schema migration 11 rewrites a brain's varint-layout lists in the packed
// layout once, ranking unchanged; a damaged list is left for check to report
// rather than failing the open.
TEST(SqliteEngine, MigrationElevenRepacksListsOfTheVarintLayouts) {
  TempDir dir;
  KeywordQuery q;
  q.terms = {{"common"}, {"word3"}};
  q.limit = 5;
  const std::vector<KeywordHit> before = BuildCommonWordBrain(dir, 200, 5, q);
  RewriteListsInFirstLayout(dir);
  auto count = [&](const std::string& sql) {
    auto rows = RowsOnAnotherConnection(dir, sql);
    return rows.size() == 1 && rows[0].size() == 1 ? std::stoll(rows[0][0]) : int64_t{-1};
  };
  const std::string kPacked = "SELECT count(*) FROM postings WHERE substr(data, 1, 2) = x'0003'";
  const int64_t lists = count("SELECT count(*) FROM postings");
  ASSERT_GT(lists, 10);
  ASSERT_EQ(count(kPacked), 0) << "the lists are in the first layout now";
  RowsOnAnotherConnection(dir, "UPDATE postings SET data = x'05ffff' "
                               "WHERE term_id = (SELECT max(term_id) FROM postings)");
  // Back to a version-10 brain: without the tables of later migrations.
  for (const char* sql : {"DROP TABLE kb_entries", "DROP TABLE kb_collections", "DROP TABLE kb_governed",
                          "DROP TABLE kb_audit", "DROP TABLE facts", "DROP TABLE write_journal_files",
                          "DROP TABLE write_journal", "PRAGMA user_version = 10"}) {
    RowsOnAnotherConnection(dir, sql);
  }
  ASSERT_EQ(count("PRAGMA user_version"), 10);
  auto e = OpenSqliteStore(dir.path() / "engram.db", {});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(count(kPacked), lists - 1) << "every readable list repacked";
  EXPECT_EQ(count("SELECT count(*) FROM postings WHERE data = x'05ffff'"), 1) << "the damaged one kept";
  auto after = SearchChunks(**e, q);
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  ExpectSameHits(*after, before);
}

// A process that keeps connections open, and opens more, reads only whole
// and consistent pages while another process rewrites pages in rounds (each
// with its own connection, as syncs do). (The regression test of the server
// bug found this way — a header read through a plain descriptor dropping
// the process's POSIX locks — is e2e.server's concurrent load during syncs.)
TEST(SqliteEngine, ReadersStayConsistentWhileAnotherProcessWritesAndMoreConnectionsOpen) {
  TempDir dir;
  auto a = OpenFresh(dir);
  for (int i = 0; i < 200; ++i) {
    std::string name = "p", text = "shared words and cancer cells ";
    name.append(std::to_string(i)).append(".md");
    ASSERT_TRUE(a->PutPage(Prepare(name, text.append(std::to_string(i)))).ok());
  }
  const auto db_path = dir.path() / "engram.db";
  pid_t child = fork();
  if (child == 0) {  // another process rewrites pages, opening and closing its connection each round (as syncs do)
    for (int round = 0; round < 15; ++round) {
      EngineOptions o;
      auto w = OpenSqliteStore(db_path, o);
      if (!w.ok()) _exit(2);
      auto txn = (*w)->Begin();
      if (!txn.ok()) _exit(3);
      for (int i = 0; i < 200; ++i) {
        std::string name = "p", text = "shared words and cancer cells revised ";
        name.append(std::to_string(i)).append(".md");
        auto page = sync::PreparePage(name, text.append(std::to_string(round * 1000 + i)), {});
        if (!page.ok() || !(*w)->PutPage(*page).ok()) _exit(4);
      }
      if (!txn->Commit().ok()) _exit(5);
    }
    _exit(0);
  }
  std::vector<std::unique_ptr<Engine>> opened;
  int errors = 0, reads = 0;
  std::string first_error;
  int status = 0;
  while (waitpid(child, &status, WNOHANG) == 0) {
    EngineOptions o;
    auto more = OpenSqliteStore(db_path, o);  // the pool grows while the writer writes
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (opened.size() < 16) opened.push_back(std::move(*more));
    for (auto* e : {a.get(), opened.back().get()}) {
      KeywordQuery q;
      q.terms = {{"cancer", 1.0f, false}, {"shared", 1.0f, false}};
      q.limit = 20;
      auto hits = SearchChunks(*e, q);
      e->FinishReads();
      ++reads;
      if (!hits.ok()) {
        ++errors;
        if (first_error.empty()) first_error = hits.status().ToString();
      }
    }
  }
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer exit " << WEXITSTATUS(status);
  EXPECT_GT(reads, 0);
  EXPECT_EQ(errors, 0) << first_error;
}

TEST(SqliteEngine, OverwriteKeepsTheIdAndSnapshotsTheOldContent) {
  TempDir dir;
  auto e = OpenFresh(dir);
  auto first = e->PutPage(Prepare("a.md", "first version about apples"));
  auto second = e->PutPage(Prepare("a.md", "second version about pears"));
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(CountRows(dir, "SELECT count(*) FROM page_versions WHERE content = 'first version about apples'"), 1);
  KeywordQuery q;
  q.terms = {{"appl"}};
  EXPECT_TRUE(SearchChunks(*e, q)->empty()) << "old terms are gone from the index";
  q.terms = {{"pear"}};
  EXPECT_EQ(SearchChunks(*e, q)->size(), 1u);
}

TEST(SqliteEngine, DeleteRemovesEveryDerivedRow) {
  TempDir dir;
  auto e = OpenFresh(dir);
  ASSERT_TRUE(e->PutPage(Prepare("people/zhang-san.md", kPage)).ok());
  ASSERT_TRUE(e->PutPage(Prepare("other.md", "unrelated words")).ok());
  ASSERT_TRUE(e->DeletePage("default", "people/zhang-san").ok());
  EXPECT_EQ(CountRows(dir, "SELECT count(*) FROM pages"), 1);
  EXPECT_EQ(CountRows(dir, "SELECT count(*) FROM chunks WHERE page_id NOT IN (SELECT id FROM pages)"), 0);
  EXPECT_EQ(OrphanPostings(dir, "postings", "chunks"), 0);
  EXPECT_EQ(OrphanPostings(dir, "title_postings", "pages"), 0);
  EXPECT_EQ(CountRows(dir, "SELECT count(*) FROM links"), 0);
  EXPECT_EQ(CountRows(dir, "SELECT count(*) FROM tags"), 0);
  EXPECT_EQ(CountRows(dir, "SELECT count(*) FROM aliases"), 0);
  EXPECT_EQ(CountRows(dir, "SELECT count(*) FROM timeline_entries"), 0);
  EXPECT_EQ(CountRows(dir, "SELECT chunks FROM corpus_stats"), CountRows(dir, "SELECT count(*) FROM chunks"));
  EXPECT_EQ(CountRows(dir, "SELECT chunk_tokens FROM corpus_stats"),
            CountRows(dir, "SELECT sum(term_length) FROM chunks"));
  EXPECT_EQ(e->DeletePage("default", "people/zhang-san").code(), StatusCode::kNotFound);
}

TEST(SqliteEngine, AFailedWriteLeavesNothingBehind) {
  TempDir dir;
  auto e = OpenFresh(dir);
  ASSERT_TRUE(e->PutPage(Prepare("a.md", "original text")).ok());
  PageWrite bad = Prepare("a.md", "replacement text with new words");
  bad.chunks.push_back(bad.chunks[0]);
  bad.chunks.back().source = static_cast<ChunkSource>(7);  // violates the CHECK constraint after other rows were written
  EXPECT_FALSE(e->PutPage(bad).ok());
  auto p = e->GetPage("default", "a");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->content, "original text");
  EXPECT_EQ(CountRows(dir, "SELECT count(*) FROM page_versions"), 0);
  KeywordQuery q;
  q.terms = {{"replac"}};
  EXPECT_TRUE(SearchChunks(*e, q)->empty());
  // The engine still works, and a term first seen in the failed write can be added later.
  ASSERT_TRUE(e->PutPage(Prepare("b.md", "replacement")).ok());
  EXPECT_EQ(SearchChunks(*e, q)->size(), 1u);
}

TEST(SqliteEngine, BatchRollsBackOnlyTheFailedPage) {
  TempDir dir;
  auto e = OpenFresh(dir);
  auto txn = e->Begin();
  ASSERT_TRUE(txn.ok());
  ASSERT_TRUE(e->PutPage(Prepare("a.md", "alpha")).ok());
  PageWrite bad = Prepare("b.md", "beta");
  bad.chunks[0].source = static_cast<ChunkSource>(7);
  EXPECT_FALSE(e->PutPage(bad).ok());
  ASSERT_TRUE(e->PutPage(Prepare("c.md", "gamma")).ok());
  ASSERT_TRUE(txn->Commit().ok());
  EXPECT_EQ(CountRows(dir, "SELECT count(*) FROM pages"), 2);
  KeywordQuery q;
  q.terms = {{"beta"}};
  EXPECT_TRUE(SearchChunks(*e, q)->empty()) << "the failed page's postings were taken back";
  q.terms = {{"alpha"}, {"gamma"}};
  EXPECT_EQ(SearchChunks(*e, q)->size(), 2u);
  EXPECT_EQ(OrphanPostings(dir, "postings", "chunks"), 0);
}

TEST(SqliteEngine, RefusesAFileThatIsNotSqlite) {
  TempDir dir;
  testing::WriteFile(dir.path() / "engram.db", "this is not a database at all, just some text....");
  auto e = OpenSqliteStore(dir.path() / "engram.db", {});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kCorruption);
  EXPECT_EQ(*common::ReadFile(dir.path() / "engram.db"), "this is not a database at all, just some text....");
}

TEST(SqliteEngine, RefusesAnotherProgramsDatabase) {
  TempDir dir;
  sqlite3* db = nullptr;
  sqlite3_open((dir.path() / "engram.db").c_str(), &db);
  sqlite3_exec(db, "CREATE TABLE theirs(x); INSERT INTO theirs VALUES (1);", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  auto e = OpenSqliteStore(dir.path() / "engram.db", {});
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("another program"), std::string::npos);
  EXPECT_EQ(CountRows(dir, "SELECT count(*) FROM sqlite_master"), 1);
}

TEST(SqliteEngine, MissingDatabaseIsNotFoundUnlessCreating) {
  TempDir dir;
  EXPECT_EQ(OpenSqliteStore(dir.path() / "engram.db", {}).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "engram.db"));
}

TEST(SqliteEngine, ReopeningKeepsDataAndSchema) {
  TempDir dir;
  { ASSERT_TRUE(OpenFresh(dir)->PutPage(Prepare("a.md", "kept")).ok()); }
  auto e = OpenSqliteStore(dir.path() / "engram.db", {});
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE((*e)->GetPage("default", "a").ok());
  EXPECT_EQ((*e)->Stats(ReadScope::All("default"))->schema_version, store::sqlite::LatestSchemaVersion());
}

TEST(SqliteEngine, RenameKeepsIdentityAndLeavesInboundLinksAsWritten) {
  TempDir dir;
  auto e = OpenFresh(dir);
  auto id = e->PutPage(Prepare("people/old.md", "Old name page"));
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(e->PutPage(Prepare("notes/ref.md", "see [[people/old]]")).ok());
  ASSERT_TRUE(e->PutPage(Prepare("people/taken.md", "x")).ok());
  EXPECT_EQ(e->RenamePage("default", "people/old", "people/taken", "people/taken.md").code(),
            StatusCode::kAlreadyExists);
  ASSERT_TRUE(e->RenamePage("default", "people/old", "people/new", "people/new.md").ok());
  auto p = e->GetPage("default", "people/new");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->id, *id);
  EXPECT_EQ(p->path, "people/new.md");
  EXPECT_EQ(e->GetPage("default", "people/old").status().code(), StatusCode::kNotFound);
  // The linking file still says [[people/old]], and so does a rebuild of it.
  EXPECT_TRUE(e->Backlinks(ReadScope::All("default"), "people/new")->empty());
  EXPECT_EQ(e->Backlinks(ReadScope::All("default"), "people/old")->size(), 1u);
  EXPECT_EQ(e->RenamePage("default", "people/old", "people/x", "x.md").code(), StatusCode::kNotFound);
}

TEST(SqliteEngine, SyncAnchorAndFailuresPersist) {
  TempDir dir;
  {
    auto e = OpenFresh(dir);
    EXPECT_EQ(*e->SyncAnchor("default"), "");
    ASSERT_TRUE(e->SetSyncAnchor("default", "abc123").ok());
    ASSERT_TRUE(e->RecordSyncFailure("default", {"a.md", "not valid UTF-8", "t"}).ok());
    ASSERT_TRUE(e->RecordSyncFailure("default", {"b.md", "too big", "t"}).ok());
    ASSERT_TRUE(e->ClearSyncFailure("default", "b.md").ok());
  }
  auto e = OpenSqliteStore(dir.path() / "engram.db", {});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(*(*e)->SyncAnchor("default"), "abc123");
  auto f = (*e)->SyncFailures("default");
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(f->size(), 1u);
  EXPECT_EQ((*f)[0].path, "a.md");
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

// Vectors are stored per chunk; a rewrite keeps those whose embedded text is
// unchanged and drops the others (they become stale); the query cache
// round-trips.
TEST(SqliteEngine, EmbeddingsSurviveOnlyUnchangedChunks) {
  TempDir dir;
  auto e = OpenFresh(dir);
  const std::string v1 = "---\ntitle: Hybrid\n---\nHybrid search fuses keyword and vector arms.\n<!-- timeline -->\n- **2024-01-01** | first note\n";
  ASSERT_TRUE(e->PutPage(Prepare("concepts/hybrid.md", v1)).ok());
  auto tasks = e->ChunksToEmbed("m1", false, ChunkId(), 100);
  ASSERT_TRUE(tasks.ok());
  ASSERT_EQ(tasks->size(), 2u);  // compiled truth and timeline
  EXPECT_EQ((*tasks)[0].text.rfind("Hybrid\n\n", 0), 0u) << "the title leads the embedded text";
  std::vector<EmbeddingWrite> rows;
  for (const auto& t : *tasks) {
    rows.push_back({t.chunk_id, "m1", EmbeddingTextHash(t.text), {1.0f, static_cast<float>(t.chunk_id.value())}});
  }
  ASSERT_TRUE(e->StoreEmbeddings(rows).ok());
  auto counts = e->CountEmbeddings("m1", ReadScope::All("default"));
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->current, 2);
  EXPECT_EQ(counts->stale, 0);
  EXPECT_EQ(e->CountEmbeddings("m2", ReadScope::All("default"))->stale, 2);  // another model's vectors do not count
  EXPECT_TRUE(e->ChunksToEmbed("m1", false, ChunkId(), 100)->empty());
  EXPECT_EQ(e->ChunksToEmbed("m1", true, ChunkId(), 100)->size(), 2u);

  // Only the timeline changes: the compiled-truth vector is kept.
  const std::string v2 = "---\ntitle: Hybrid\n---\nHybrid search fuses keyword and vector arms.\n<!-- timeline -->\n- **2024-02-02** | another note\n";
  ASSERT_TRUE(e->PutPage(Prepare("concepts/hybrid.md", v2)).ok());
  counts = e->CountEmbeddings("m1", ReadScope::All("default"));
  EXPECT_EQ(counts->current, 1);
  EXPECT_EQ(counts->stale, 1);
  auto stale = e->ChunksToEmbed("m1", false, ChunkId(), 100);
  ASSERT_EQ(stale->size(), 1u);
  EXPECT_NE((*stale)[0].text.find("another note"), std::string::npos);

  // A new title changes every chunk's embedded text.
  ASSERT_TRUE(e->PutPage(Prepare("concepts/hybrid.md", "---\ntitle: Fusion\n---\n" + v2.substr(v2.find("Hybrid search")))).ok());
  EXPECT_EQ(e->CountEmbeddings("m1", ReadScope::All("default"))->current, 0);

  EXPECT_FALSE(e->CachedQueryVector("m1", "q")->has_value());
  ASSERT_TRUE(e->CacheQueryVector("m1", "q", {0.5f, -2.0f}).ok());
  auto cached = e->CachedQueryVector("m1", "q");
  ASSERT_TRUE(cached.ok() && cached->has_value());
  EXPECT_EQ(**cached, (std::vector<float>{0.5f, -2.0f}));
  EXPECT_FALSE(e->CachedQueryVector("m2", "q")->has_value());
}

// The vector log: storing, carrying over and deleting vectors advance the
// generation and log the chunk ids; a trimmed log says it cannot reach back.
// Plus the filters and backlink counts of hybrid search.
TEST(SqliteEngine, VectorLogFiltersAndBacklinks) {
  TempDir dir;
  auto e = OpenFresh(dir);
  EXPECT_EQ(*e->Generation(), 0);
  ASSERT_TRUE(e->PutPage(Prepare("concepts/hybrid.md", "---\ntitle: Hybrid\ntags: [search]\n---\nFusion of arms.\n")).ok());
  ASSERT_TRUE(e->PutPage(Prepare("people/ann.md", "---\ntitle: Ann\nvisibility: private\n---\nSee [[concepts/hybrid]].\n")).ok());
  auto tasks = e->ChunksToEmbed("m", false, ChunkId(), 100);
  ASSERT_EQ(tasks->size(), 2u);
  std::vector<EmbeddingWrite> rows;
  for (const auto& t : *tasks) rows.push_back({t.chunk_id, "m", EmbeddingTextHash(t.text), {0.6f, 0.8f}});
  ASSERT_TRUE(e->StoreEmbeddings(rows).ok());
  const int64_t g1 = *e->Generation();
  EXPECT_EQ(g1, 4);  // two pages written, two vectors stored
  auto pages = e->ChangesSince(ChangeStream::kPages, 0);
  ASSERT_TRUE(pages.ok() && pages->has_value());
  EXPECT_EQ((*pages)->size(), 2u);
  auto changes = e->ChangesSince(ChangeStream::kVectors, 0);
  ASSERT_TRUE(changes.ok() && changes->has_value());
  EXPECT_EQ(**changes, (std::vector<int64_t>{(*tasks)[0].chunk_id.value(), (*tasks)[1].chunk_id.value()}));
  EXPECT_TRUE((*e->ChangesSince(ChangeStream::kVectors, g1))->empty());
  auto vectors = e->ChunkVectors("m", ChunkId(), 10);
  ASSERT_EQ(vectors->size(), 2u);
  EXPECT_EQ((*vectors)[0].vector, (std::vector<float>{0.6f, 0.8f}));
  EXPECT_TRUE(e->ChunkVectors("other", ChunkId(), 10)->empty());
  EXPECT_EQ(e->ChunkVectorsById("m", {(*tasks)[1].chunk_id, ChunkId(999)})->size(), 1u);
  // Deleting a page logs its chunk's vector as gone.
  ASSERT_TRUE(e->DeletePage("default", "people/ann").ok());
  EXPECT_GT(*e->Generation(), g1);
  changes = e->ChangesSince(ChangeStream::kVectors, g1);
  ASSERT_TRUE(changes->has_value());
  EXPECT_EQ((*changes)->size(), 1u);
  EXPECT_TRUE(e->ChunkVectorsById("m", ToIds<ChunkId>(**changes))->empty());
  // The delete logged the page too.
  EXPECT_EQ((*e->ChangesSince(ChangeStream::kPages, g1))->size(), 1u);
  // Trimmed: generation 0 can no longer catch up, the latest still can
  // (the delete made two changes: the vector gone and the page).
  ASSERT_TRUE(e->TrimChangeLog(2).ok());
  EXPECT_FALSE(e->ChangesSince(ChangeStream::kVectors, 0)->has_value());
  EXPECT_TRUE(e->ChangesSince(ChangeStream::kVectors, g1)->has_value());
  // Filters.
  ASSERT_TRUE(e->PutPage(Prepare("people/bob.md", "---\ntitle: Bob\nvisibility: private\n---\nBob on [[concepts/hybrid]].\n")).ok());
  ChunkFilter f;
  EXPECT_EQ(e->FilterChunks(f)->size(), 1u);  // Bob is private
  f.include_private = true;
  EXPECT_EQ(e->FilterChunks(f)->size(), 2u);
  f.types = {"person"};
  EXPECT_EQ(e->FilterChunks(f)->size(), 1u);
  f.types.clear();
  f.tags = {"search"};
  EXPECT_EQ(e->FilterChunks(f)->size(), 1u);
  f.tags.clear();
  f.folder = "people/";
  EXPECT_EQ(e->FilterChunks(f)->size(), 1u);
  f.folder = "peop";  // a prefix of the path, as given
  EXPECT_EQ(e->FilterChunks(f)->size(), 1u);
  f.folder.clear();
  f.since = "2999-01-01";
  EXPECT_TRUE(e->FilterChunks(f)->empty());
  f.since.clear();
  f.until = "2000-01-01";
  EXPECT_TRUE(e->FilterChunks(f)->empty());
  // Backlinks: Bob links to the hybrid page.
  auto page = e->GetPage("default", "concepts/hybrid");
  ASSERT_TRUE(page.ok());
  auto counts = e->BacklinkCounts(ReadScope::All("default"), {page->id});
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->at(page->id), 1);
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

// The query plan of one statement, as EXPLAIN QUERY PLAN gives it (details joined by " | ").
std::string QueryPlan(const TempDir& dir, const std::string& sql) {
  std::string plan;
  for (const auto& row : RowsOnAnotherConnection(dir, "EXPLAIN QUERY PLAN " + sql)) plan += row.at(3) + " | ";
  return plan;
}

// Regression: without ANALYZE statistics SQLite chose the index that gives
// the ORDER BY, walking every page of the source for each link look-up; on a
// 50,000-page brain each hybrid search's backlink counts took ~1.4 s.
TEST(SqliteEngine, LinkResolutionStartsFromAnIndexOnWhatItLooksFor) {
  TempDir dir;
  auto e = OpenFresh(dir);
  ASSERT_TRUE(e->PutPage(Prepare("notes/a.md", "See [[notes/b]] and [[c]].")).ok());
  ASSERT_TRUE(e->PutPage(Prepare("notes/b.md", "Back to [[notes/a]].")).ok());
  const std::string inbound = QueryPlan(dir, store::sql::kInboundLinksSql);
  EXPECT_NE(inbound.find("links_to "), std::string::npos) << inbound;
  EXPECT_NE(inbound.find("links_to_name"), std::string::npos) << inbound;
  EXPECT_NE(inbound.find("INTEGER PRIMARY KEY"), std::string::npos) << inbound;
  EXPECT_EQ(inbound.find("SCAN"), std::string::npos) << inbound;
  EXPECT_EQ(inbound.find("sqlite_autoindex_pages_1"), std::string::npos) << inbound;
  for (const char* sql : {store::sql::kPageByPathKeySql, store::sql::kPublicPageByPathKeySql}) {
    const std::string by_path = QueryPlan(dir, sql);
    EXPECT_NE(by_path.find("pages_path_key (source_id=? AND path_key=?)"), std::string::npos) << by_path;
    EXPECT_EQ(by_path.find("SCAN"), std::string::npos) << by_path;
  }
}

}  // namespace
}  // namespace engram
