// The index never drifts from the files: regressions for derived rows that
// went missing, and `check` comparing every derived structure with a rebuild.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>

#include "bm25/searcher.h"
#include "derived_rows_dump.h"
#include "engram/brain.h"
#include "engram/engine.h"
#include "engram/store/open_store.h"
#include "store/postings_codec.h"
#include "sync/page_indexer.h"
#include "test_stores.h"
#include "test_support.h"
#include "ops/sync_module.h"

namespace engram {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::WriteFile;

using testing::Prepare;
using testing::OpenFresh;

size_t TitleHits(Engine& e, const std::string& term) {
  KeywordQuery q;
  q.terms = {{term}};
  auto hits = bm25::Searcher(e.Postings()).SearchTitles(q);
  EXPECT_TRUE(hits.ok()) << hits.status().ToString();
  return hits.ok() ? hits->size() : 0;
}

const char* kTitled = "---\ntitle: Quokka Facts\n---\nThe body talks about marsupials.\n";
const char* kTitledEdited = "---\ntitle: Quokka Facts\n---\nThe body now talks about islands.\n";

// Issue 12 item 7: rewriting a page removed its title posting and added it
// back under the same doc (the page id); the flush dropped the add with the
// removal, so after any edit the title's words were gone from the index.
TEST(DerivedRows, ABodyOnlyEditKeepsTheTitlePostings) {
  TempDir dir;
  auto e = OpenFresh(dir.path() / "engram.db");
  ASSERT_TRUE(e->PutPage(Prepare("q.md", kTitled)).ok());
  ASSERT_EQ(TitleHits(*e, "quokka"), 1u);
  ASSERT_TRUE(e->PutPage(Prepare("q.md", kTitledEdited)).ok());
  EXPECT_EQ(TitleHits(*e, "quokka"), 1u) << "a body-only edit dropped the title postings";
  EXPECT_EQ(TitleHits(*e, "fact"), 1u);
}

TEST(DerivedRows, APageWrittenTwiceInOneBatchKeepsItsTitlePostings) {
  TempDir dir;
  auto e = OpenFresh(dir.path() / "engram.db");
  ASSERT_TRUE(e->PutPage(Prepare("q.md", kTitled)).ok());
  auto txn = e->Begin();
  ASSERT_TRUE(txn.ok());
  ASSERT_TRUE(e->PutPage(Prepare("q.md", kTitledEdited)).ok());
  ASSERT_TRUE(e->PutPage(Prepare("new.md", "---\ntitle: Wombat Notes\n---\nfirst\n")).ok());
  ASSERT_TRUE(e->PutPage(Prepare("new.md", "---\ntitle: Wombat Notes\n---\nsecond\n")).ok());
  ASSERT_TRUE(txn->Commit().ok());
  EXPECT_EQ(TitleHits(*e, "quokka"), 1u);
  EXPECT_EQ(TitleHits(*e, "wombat"), 1u) << "a page added and rewritten in one batch";
}

TEST(DerivedRows, AFailedRewriteInsideABatchLeavesTheEarlierTitlePostings) {
  TempDir dir;
  auto e = OpenFresh(dir.path() / "engram.db");
  auto txn = e->Begin();
  ASSERT_TRUE(txn.ok());
  ASSERT_TRUE(e->PutPage(Prepare("q.md", kTitled)).ok());
  PageWrite bad = Prepare("q.md", "---\ntitle: Quokka Facts\n---\nbroken\n");
  bad.chunks[0].source = static_cast<ChunkSource>(7);  // fails after the removal was recorded
  EXPECT_FALSE(e->PutPage(bad).ok());
  ASSERT_TRUE(txn->Commit().ok());
  EXPECT_EQ(TitleHits(*e, "quokka"), 1u);
}

// A git rename used to point other pages' links at the new slug although
// their files still name the old one, so the rows differed from a rebuild.
TEST(DerivedRows, ARenameLeavesOtherPagesLinksAsTheirFilesWriteThem) {
  TempDir dir;
  auto e = OpenFresh(dir.path() / "engram.db");
  ASSERT_TRUE(e->PutPage(Prepare("people/old.md", "Old name page")).ok());
  ASSERT_TRUE(e->PutPage(Prepare("notes/ref.md", "see [[people/old]]")).ok());
  auto txn = e->Begin();
  ASSERT_TRUE(txn.ok());  // as git sync applies a rename
  ASSERT_TRUE(e->RenamePage("default", "people/old", "people/new", "people/new.md").ok());
  ASSERT_TRUE(e->PutPage(Prepare("people/new.md", "Old name page")).ok());
  ASSERT_TRUE(txn->Commit().ok());
  e.reset();

  TempDir fresh;
  auto f = OpenFresh(fresh.path() / "engram.db");
  ASSERT_TRUE(f->PutPage(Prepare("notes/ref.md", "see [[people/old]]")).ok());
  ASSERT_TRUE(f->PutPage(Prepare("people/new.md", "Old name page")).ok());
  f.reset();
  EXPECT_EQ(testing::DumpDerivedRows(dir.path() / "engram.db")["links"],
            testing::DumpDerivedRows(fresh.path() / "engram.db")["links"]);
}

// `check` against a rebuild, on a folder brain (no git): each kind of drift
// is named with its page and structure, --repair restores it, and the rows
// then equal a fresh build of the same files.
class CheckAgainstRebuild : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path() / "brain";
    WriteFile(root_ / "people/ada.md",
              "---\ntitle: Ada Lovelace\naliases: [Countess]\ntags: [math]\n---\n"
              "Ada wrote about the [[notes/engine]].\n\n<!-- timeline -->\n\n- **1843-09-01** | Published the notes\n");
    WriteFile(root_ / "notes/engine.md", "---\ntitle: Analytical Engine\n---\nA machine by [[people/ada]]'s friend.\n");
    for (int i = 0; i < 5; ++i) {
      WriteFile(root_ / ("notes/n" + std::to_string(i) + ".md"), "# Note " + std::to_string(i) + "\nfiller words\n");
    }
    ASSERT_TRUE(Brain::Init(root_).ok());
    auto b = Brain::Open(root_);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    brain_ = std::move(b).value();
    ASSERT_TRUE(brain_->Module<ops::SyncModule>().Import(ctx_, root_, false).ok());
  }

  void Sql(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((root_ / ".engram/engram.db").c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    EXPECT_EQ(rc, SQLITE_OK) << sql << ": " << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(db);
  }

  CheckReport Check(CheckOptions o) {
    auto r = brain_->Module<ops::SyncModule>().Check(ctx_, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : CheckReport{};
  }

  static bool Has(const std::vector<ImportIssue>& problems, const std::string& path, const std::string& what) {
    for (const auto& p : problems) {
      if (p.path == path && p.reason.find(what) != std::string::npos) return true;
    }
    return false;
  }

  static std::string All(const std::vector<ImportIssue>& problems) {
    std::string s;
    for (const auto& p : problems) s += p.path + ": " + p.reason + "\n";
    return s;
  }

  void ExpectRowsEqualAFreshBuild() {
    TempDir fresh;
    fs::path copy = fresh.path() / "brain";
    for (const auto& e : fs::recursive_directory_iterator(root_)) {
      std::string rel = fs::relative(e.path(), root_).string();
      if (rel.rfind(".engram", 0) == 0 || !e.is_regular_file()) continue;
      std::ifstream in(e.path(), std::ios::binary);
      WriteFile(copy / rel, std::string(std::istreambuf_iterator<char>(in), {}));
    }
    ASSERT_TRUE(Brain::Init(copy).ok());
    auto b = Brain::Open(copy);
    ASSERT_TRUE(b.ok());
    ASSERT_TRUE((*b)->Module<ops::SyncModule>().Import(ctx_, copy, false).ok());
    testing::DerivedDump want = testing::DumpDerivedRows(copy / ".engram/engram.db");
    testing::DerivedDump got = testing::DumpDerivedRows(root_ / ".engram/engram.db");
    for (const auto& [section, rows] : want) EXPECT_EQ(got[section], rows) << section;
  }

  TempDir dir_;
  fs::path root_;
  std::unique_ptr<Brain> brain_;
  OperationContext ctx_;
};

TEST_F(CheckAgainstRebuild, ACleanBrainPassesAndASampleIsBounded) {
  CheckReport full = Check({.full = true});
  EXPECT_TRUE(full.problems.empty()) << All(full.problems);
  EXPECT_EQ(full.rebuilt_pages, 7u);
  CheckReport sampled = Check({.sample = 3});
  EXPECT_TRUE(sampled.problems.empty()) << All(sampled.problems);
  EXPECT_EQ(sampled.rebuilt_pages, 3u);
}

TEST_F(CheckAgainstRebuild, EveryDriftedStructureIsNamedAndRepaired) {
  const std::string ada = "(SELECT id FROM pages WHERE slug = 'people/ada')";
  const std::string engine = "(SELECT id FROM pages WHERE slug = 'notes/engine')";
  // Title postings: the bug of issue 12 item 7, by hand.
  Sql("DELETE FROM title_postings WHERE term_id = (SELECT id FROM terms WHERE term = 'lovelac')");
  Sql("DELETE FROM aliases WHERE page_id = " + ada);
  Sql("INSERT INTO tags(page_id, tag) VALUES (" + ada + ", 'stray')");
  Sql("UPDATE timeline_entries SET summary = 'rewritten' WHERE page_id = " + ada);
  Sql("UPDATE links SET to_slug = 'people/someone' WHERE from_page = " + engine);
  Sql("UPDATE chunks SET text = 'not what the file says' WHERE page_id = (SELECT id FROM pages WHERE slug = 'notes/n1')");
  Sql("UPDATE pages SET title = 'Wrong' WHERE slug = 'notes/n2'");
  Sql("UPDATE corpus_stats SET chunk_tokens = chunk_tokens + 7, titles = titles - 1");

  CheckReport r = Check({.full = true});
  const std::string all = All(r.problems);
  EXPECT_TRUE(Has(r.problems, "people/ada.md", "title postings differ from a rebuild")) << all;
  EXPECT_TRUE(Has(r.problems, "people/ada.md", "title index disagrees")) << all;
  EXPECT_TRUE(Has(r.problems, "people/ada.md", "aliases differ")) << all;
  EXPECT_TRUE(Has(r.problems, "people/ada.md", "tags differ")) << all;
  EXPECT_TRUE(Has(r.problems, "people/ada.md", "timeline differ")) << all;
  EXPECT_TRUE(Has(r.problems, "notes/engine.md", "links differ")) << all;
  EXPECT_TRUE(Has(r.problems, "notes/n1.md", "chunks differ")) << all;
  EXPECT_TRUE(Has(r.problems, "notes/n2.md", "page differ")) << all;
  EXPECT_TRUE(Has(r.problems, "", "corpus statistics")) << all;

  CheckReport repaired = Check({.repair = true, .full = true});
  EXPECT_TRUE(repaired.repaired);
  EXPECT_TRUE(repaired.remaining.empty()) << All(repaired.remaining);
  EXPECT_TRUE(Check({.full = true}).problems.empty());
  ExpectRowsEqualAFreshBuild();
}

TEST_F(CheckAgainstRebuild, ADamagedTermListIsNamedAndRepairedNeverReadShort) {
  // Cut inside a varint: the old decoder returned the ids before the cut, so
  // the chunk's other postings were never found (nor removed on a rewrite).
  Sql("UPDATE chunks SET terms = substr(terms, 1, 2) || X'80' WHERE page_id = "
      "(SELECT id FROM pages WHERE slug = 'notes/n4')");
  CheckReport r = Check({.full = true});
  EXPECT_TRUE(Has(r.problems, "notes/n4.md", "term list of chunk")) << All(r.problems);
  CheckReport repaired = Check({.repair = true, .full = true});
  EXPECT_TRUE(repaired.remaining.empty()) << All(repaired.remaining);
  ExpectRowsEqualAFreshBuild();
}

TEST_F(CheckAgainstRebuild, ChunkPostingDriftIsFoundEvenWhenTermListsAgree) {
  // Same (term, chunk) pairs, wrong frequency: only the rebuild sees it.
  auto chunks = brain_->engine().GetPageChunks(brain_->engine().GetPage("default", "notes/n3")->id);
  ASSERT_TRUE(chunks.ok() && !chunks->empty());
  KeywordQuery q;
  q.terms = {{"filler"}};
  ASSERT_FALSE(bm25::Searcher(brain_->engine().Postings()).SearchChunks(q)->empty());
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((root_ / ".engram/engram.db").c_str(), &db), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "SELECT data FROM postings WHERE term_id = (SELECT id FROM terms WHERE term = 'filler')",
                       -1, &st, nullptr);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    std::vector<store::Posting> list;
    ASSERT_TRUE(store::DecodePostings(std::string_view(static_cast<const char*>(sqlite3_column_blob(st, 0)),
                                                       static_cast<size_t>(sqlite3_column_bytes(st, 0))),
                                      &list)
                    .ok());
    sqlite3_finalize(st);
    for (auto& p : list) p.tf += 1;
    std::string blob = store::EncodePostings(list);
    sqlite3_prepare_v2(db, "UPDATE postings SET data = ? WHERE term_id = (SELECT id FROM terms WHERE term = 'filler')",
                       -1, &st, nullptr);
    sqlite3_bind_blob(st, 1, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
    ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    sqlite3_close(db);
  }
  CheckReport r = Check({.full = true});
  EXPECT_TRUE(Has(r.problems, "notes/n3.md", "chunk postings differ from a rebuild")) << All(r.problems);
  EXPECT_TRUE(Check({.repair = true, .full = true}).remaining.empty());
  ExpectRowsEqualAFreshBuild();
}

TEST_F(CheckAgainstRebuild, VectorLogDriftIsFoundAndRepaired) {
  Engine& e = brain_->engine();
  auto page = e.GetPage("default", "notes/n4");
  ASSERT_TRUE(page.ok());
  auto chunks = e.GetPageChunks(page->id);
  ASSERT_TRUE(chunks.ok() && !chunks->empty());
  EmbeddingWrite w;
  w.chunk_id = (*chunks)[0].chunk_id;
  w.model = "test-model";
  w.text_hash = EmbeddingTextHash(ChunkEmbeddingText(page->title, (*chunks)[0].text));
  w.vector = {0.6f, 0.8f};
  ASSERT_TRUE(e.StoreEmbeddings({w}).ok());
  ASSERT_TRUE(Check({.full = true}).problems.empty());

  // A vector whose chunk text changed behind the index's back.
  Sql("UPDATE chunks SET text = 'changed' WHERE id = " + std::to_string(w.chunk_id.value()));
  CheckReport r = Check({.full = true});
  EXPECT_TRUE(Has(r.problems, "notes/n4.md", "vector of text that changed")) << All(r.problems);
  EXPECT_TRUE(Check({.repair = true, .full = true}).remaining.empty());

  // Chunks deleted while the delete trigger was missing: their vectors stayed
  // visible to every index catching up from the log.
  page = e.GetPage("default", "notes/n4");
  chunks = e.GetPageChunks(page->id);
  w.chunk_id = (*chunks)[0].chunk_id;
  w.text_hash = EmbeddingTextHash(ChunkEmbeddingText(page->title, (*chunks)[0].text));
  ASSERT_TRUE(e.StoreEmbeddings({w}).ok());
  Sql("DROP TRIGGER chunks_vector_delete");
  Sql("DELETE FROM chunks WHERE id = " + std::to_string(w.chunk_id.value()));
  r = Check({.full = true});
  EXPECT_TRUE(Has(r.problems, "", "trigger chunks_vector_delete is missing")) << All(r.problems);
  EXPECT_TRUE(Has(r.problems, "", "left their vectors visible")) << All(r.problems);
  CheckReport repaired = Check({.repair = true, .full = true});
  EXPECT_TRUE(repaired.remaining.empty()) << All(repaired.remaining);
  auto changes = e.ChangesSince(ChangeStream::kVectors, 0);
  ASSERT_TRUE(changes.ok() && changes->has_value());
  EXPECT_NE(std::find((*changes)->begin(), (*changes)->end(), w.chunk_id.value()), (*changes)->end());
  ExpectRowsEqualAFreshBuild();
}

}  // namespace
}  // namespace engram
