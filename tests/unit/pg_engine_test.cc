// What only the PostgreSQL engine does: the writer's lease and fencing, the
// refusal of foreign and newer databases, connection errors. (Everything the
// engines share runs against PostgreSQL as ctest's unit.postgres: the store
// suites with ENGRAM_TEST_STORE=postgres.) Skipped when the run has no cluster.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <chrono>
#include <string>
#include <thread>

#include "engram/engine.h"
#include "engram/store/open_store.h"
#include "store/postings_codec.h"
#include "test_stores.h"

namespace engram {
namespace {

using testing::FreshPgStoreUrl;
using testing::Prepare;

// Runs sql on its own connection; "" on success, else the error.
std::string Psql(const std::string& url, const std::string& sql) {
  PGconn* c = PQconnectdb(url.c_str());
  std::string err;
  if (PQstatus(c) != CONNECTION_OK) {
    err = PQerrorMessage(c);
  } else {
    PGresult* r = PQexec(c, sql.c_str());
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) err = PQresultErrorMessage(r);
    PQclear(r);
  }
  PQfinish(c);
  return err;
}

// The first value sql answers on its own connection, or "ERROR: ...".
std::string PsqlValue(const std::string& url, const std::string& sql) {
  PGconn* c = PQconnectdb(url.c_str());
  std::string out;
  if (PQstatus(c) != CONNECTION_OK) {
    out = std::string("ERROR: ") + PQerrorMessage(c);
  } else {
    PGresult* r = PQexec(c, sql.c_str());
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
      out = std::string("ERROR: ") + PQresultErrorMessage(r);
    } else if (PQntuples(r) > 0) {
      out = PQgetvalue(r, 0, 0);
    }
    PQclear(r);
  }
  PQfinish(c);
  return out;
}

class PgEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::TestPgUrl().empty()) GTEST_SKIP() << "no PostgreSQL test cluster (ENGRAM_TEST_PG_URL)";
    url_ = FreshPgStoreUrl();
  }
  std::unique_ptr<Engine> Open(int busy_timeout_ms = 5000, int lease_seconds = 30) {
    EngineOptions o;
    o.create_if_missing = true;
    o.busy_timeout_ms = busy_timeout_ms;
    o.lease_seconds = lease_seconds;
    auto e = OpenStore(url_, o);
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? std::move(e).value() : nullptr;
  }
  std::string url_;
};

TEST_F(PgEngine, ASecondWriterWaitsThenFailsNamingTheHolder) {
  auto a = Open();
  auto b = Open(300);
  auto txn = a->Begin();
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  ASSERT_TRUE(a->PutPage(Prepare("a.md", "written by a")).ok());
  auto second = b->Begin();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(second.status().message().find("pid " + std::to_string(::getpid())), std::string::npos)
      << second.status().message();
  // Readers never wait: b reads while a's transaction is open, and sees the state before it.
  auto before = b->GetPage(ReadScope::All("default"), "a");
  EXPECT_EQ(before.status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(txn->Commit().ok());
  // Once a has committed, b writes.
  auto later = b->Begin();
  ASSERT_TRUE(later.ok()) << later.status().ToString();
  ASSERT_TRUE(b->PutPage(Prepare("b.md", "written by b")).ok());
  ASSERT_TRUE(later->Commit().ok());
  EXPECT_TRUE(a->GetPage(ReadScope::All("default"), "b").ok());
}

TEST_F(PgEngine, AWriterThatLostItsLeaseNeverCommits) {
  auto a = Open();
  ASSERT_TRUE(a->PutPage(Prepare("kept.md", "before")).ok());
  auto txn = a->Begin();
  ASSERT_TRUE(txn.ok());
  ASSERT_TRUE(a->PutPage(Prepare("lost.md", "never lands")).ok());
  ASSERT_TRUE(a->PutPage(Prepare("kept.md", "after")).ok());
  // The lease lapses and another writer takes it (a new token): a paused
  // process, a network partition.
  ASSERT_EQ(Psql(url_, "UPDATE engram_writer SET token = token + 1, holder = 'other', host = 'elsewhere', "
                       "pid = 1, expires_at = clock_timestamp() + interval '1 minute'"),
            "");
  Status st = txn->Commit();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("lease"), std::string::npos) << st.message();
  EXPECT_EQ(a->GetPage(ReadScope::All("default"), "lost").status().code(), StatusCode::kNotFound);
  auto kept = a->GetPage(ReadScope::All("default"), "kept");
  ASSERT_TRUE(kept.ok());
  EXPECT_NE(kept->content.find("before"), std::string::npos);
  auto problems = a->CheckIntegrity();
  ASSERT_TRUE(problems.ok());
  EXPECT_TRUE(problems->empty());
}

TEST_F(PgEngine, AnotherProgramsDatabaseIsRefusedAndLeftAlone) {
  ASSERT_EQ(Psql(url_, "CREATE TABLE invoices (id int); INSERT INTO invoices VALUES (7)"), "");
  EngineOptions o;
  o.create_if_missing = true;
  auto e = OpenStore(url_, o);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kCorruption);
  EXPECT_NE(e.status().message().find("another program"), std::string::npos) << e.status().message();
  EXPECT_EQ(Psql(url_, "DO $$ BEGIN IF (SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()) <> 1 "
                       "THEN RAISE EXCEPTION 'modified'; END IF; END $$"),
            "");
}

TEST_F(PgEngine, ANewerSchemaIsRefused) {
  ASSERT_NE(Open(), nullptr);
  ASSERT_EQ(Psql(url_, "UPDATE engram_meta SET value = '999' WHERE key = 'schema_version'"), "");
  EngineOptions o;
  auto e = OpenStore(url_, o);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(e.status().message().find("newer"), std::string::npos) << e.status().message();
}

TEST_F(PgEngine, AnUnreachableServerIsNamedWithoutThePassword) {
  EngineOptions o;
  auto e = OpenStore("postgres://someone:s3cr3t-pw@127.0.0.1:1/brain", o);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(e.status().message().find("127.0.0.1:1/brain"), std::string::npos) << e.status().message();
  EXPECT_EQ(e.status().message().find("s3cr3t"), std::string::npos) << e.status().message();
}

TEST_F(PgEngine, AMissingBrainIsNotFoundUnlessCreating) {
  EngineOptions o;
  auto e = OpenStore(url_, o);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kNotFound);
  EXPECT_NE(e.status().message().find("engram init --postgres"), std::string::npos) << e.status().message();
}

TEST_F(PgEngine, AWriteOfOneServerIsReadByAnotherConnection) {
  auto a = Open();
  auto b = Open();
  ASSERT_TRUE(b->Stats(ReadScope::All("default")).ok());
  ASSERT_TRUE(a->PutPage(Prepare("notes/shared.md", "zebra crossing rules")).ok());
  auto page = b->GetPage(ReadScope::All("default"), "notes/shared");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  auto stats = b->Stats(ReadScope::All("default"));
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->pages, 1);
  EXPECT_GT(stats->db_bytes, 0);
}

// Inside a batch, a page's rows are sent without waiting for each answer
// (the pipeline). A statement of the first page that the server refuses
// (text that is not UTF-8) fails that page alone: its savepoint takes back
// its rows, its corpus statistics and its advance of the generation, and the
// next page's change is logged at a generation a reader has not seen.
TEST_F(PgEngine, AQueuedStatementThatFailsFailsItsOwnPageOnly) {
  auto e = Open();
  auto reader = Open();
  ASSERT_NE(e, nullptr);
  ASSERT_NE(reader, nullptr);
  auto txn = e->Begin();
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  PageWrite bad = Prepare("bad.md", "---\ntags: [x]\n---\nsome words here");
  bad.page.tags.push_back("not \xff utf-8");
  Status failed = e->PutPage(bad).status();
  ASSERT_FALSE(failed.ok()) << "PostgreSQL refuses text that is not UTF-8";
  EXPECT_NE(failed.message().find("bad"), std::string::npos) << failed.ToString();
  EXPECT_NE(failed.message().find("tags"), std::string::npos) << failed.ToString();
  auto good = e->PutPage(Prepare("good.md", "other words"));
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  ASSERT_TRUE(txn->Commit().ok());

  EXPECT_GE(reader->Generation().value(), 1);
  auto pages = reader->ChangesSince(ChangeStream::kPages, 0);
  ASSERT_TRUE(pages.ok()) << pages.status().ToString();
  ASSERT_TRUE(pages->has_value());
  EXPECT_EQ(**pages, (std::vector<int64_t>{good->value()}));
  auto chunks = reader->Postings().Statistics(PostingField::kChunks);
  ASSERT_TRUE(chunks.ok());
  EXPECT_EQ(chunks->docs, 1) << "the failed page's chunk is not counted";
  auto problems = reader->CheckIntegrity();
  ASSERT_TRUE(problems.ok()) << problems.status().ToString();
  EXPECT_TRUE(problems->empty());
}

// A long batch stops looking rows up one by one (after its first pages it
// reads every term and page name once, and writes without waiting): terms
// and pages that existed before it, pages written twice in it, renamed in
// it, and deleted in it all land as one page at a time would have them.
TEST_F(PgEngine, ALongBatchWritesWhatExistedBeforeItAsOnePageAtATimeWould) {
  auto before = Open();
  ASSERT_NE(before, nullptr);
  ASSERT_TRUE(before->PutPage(Prepare("old.md", "# Old\n\nalpha beta zeta")).ok());
  ASSERT_TRUE(before->PutPage(Prepare("gone.md", "# Gone\n\nalpha")).ok());
  auto e = Open();  // knows no term and no page yet
  ASSERT_NE(e, nullptr);
  auto txn = e->Begin();
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  for (int i = 0; i < 40; ++i) {
    // zeta: stored before the batch, and first seen by it when it reads every term
    const std::string text = "alpha beta gamma" + std::to_string(i % 5) + (i >= 16 ? " zeta" : "");
    auto id = e->PutPage(Prepare("p" + std::to_string(i) + ".md", text));
    ASSERT_TRUE(id.ok()) << i << ": " << id.status().ToString();
  }
  ASSERT_TRUE(e->PutPage(Prepare("old.md", "# Old\n\nalpha rewritten")).ok());
  ASSERT_TRUE(e->PutPage(Prepare("p3.md", "written twice delta")).ok());
  ASSERT_TRUE(e->RenamePage("default", "p4", "p4-renamed", "p4-renamed.md").ok());
  ASSERT_TRUE(e->PutPage(Prepare("p4-renamed.md", "renamed then written")).ok());
  ASSERT_TRUE(e->DeletePage("default", "gone").ok());
  ASSERT_TRUE(e->PutPage(Prepare("gone.md", "# Gone\n\nback again")).ok());
  for (int i = 40; i < 60; ++i) {
    ASSERT_TRUE(e->PutPage(Prepare("p" + std::to_string(i) + ".md", "alpha epsilon")).ok()) << i;
  }
  ASSERT_TRUE(txn->Commit().ok());

  auto reader = Open();
  auto problems = reader->CheckIntegrity();
  ASSERT_TRUE(problems.ok()) << problems.status().ToString();
  EXPECT_TRUE(problems->empty()) << (problems->empty() ? "" : problems->front().what);
  auto stats = reader->Stats(ReadScope::All("default"));
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->pages, 62);  // p0..p59 with p4 renamed, old, gone
  auto alpha = reader->Postings().FindTerm("alpha");
  ASSERT_TRUE(alpha.ok() && alpha->has_value());
  auto list = reader->Postings().ReadPostingList(PostingField::kChunks, **alpha);
  ASSERT_TRUE(list.ok());
  auto info = store::ReadPostingInfo(**list);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->count, 59) << "p0..p59 minus p3 and p4 (rewritten without it), plus old";
}

TEST_F(PgEngine, AWriteLongerThanTheLeaseKeepsItByItsHeartbeat) {
  auto writer = Open(5000, /*lease_seconds=*/3);
  ASSERT_NE(writer, nullptr);
  auto txn = writer->Begin();
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  ASSERT_TRUE(writer->PutPage(Prepare("long.md", "# Long\n\nalpha")).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(4500));  // past the lease: only renewals keep it
  auto other = Open(/*busy_timeout_ms=*/200, 3);
  ASSERT_NE(other, nullptr);
  auto second = other->Begin();
  EXPECT_FALSE(second.ok()) << "the lease expired although its writer was alive";
  EXPECT_TRUE(txn->Commit().ok());
}

TEST_F(PgEngine, ALongBatchLeavesThePlannerStatisticsOfWhatItWrote) {
  // Until they are taken, a search's prepared look-ups keep plans made for empty tables.
  const std::string reltuples = "SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass('pages')";
  auto e = Open();
  ASSERT_NE(e, nullptr);
  ASSERT_TRUE(e->PutPage(Prepare("one.md", "# One\n\nalpha")).ok());
  EXPECT_EQ(PsqlValue(url_, reltuples), "-1") << "a one-page write takes no statistics";
  auto txn = e->Begin();
  ASSERT_TRUE(txn.ok()) << txn.status().ToString();
  for (int i = 0; i < 150; ++i) {
    ASSERT_TRUE(e->PutPage(Prepare("p" + std::to_string(i) + ".md", "alpha beta " + std::to_string(i))).ok()) << i;
  }
  ASSERT_TRUE(txn->Commit().ok());
  EXPECT_EQ(PsqlValue(url_, reltuples), "151");
  EXPECT_NE(PsqlValue(url_, "SELECT last_analyze FROM pg_stat_user_tables WHERE relid = to_regclass('chunks')"), "");
}

}  // namespace
}  // namespace engram
