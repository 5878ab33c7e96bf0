// Issue 13, items 5-7 on a vault named the way people name notes
// (tests/fixtures/vault_names): every note is a page, its file name is its
// name, and look-ups accept what users type.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "engram/brain.h"
#include "engram/eval.h"
#include "ops/page_names.h"
#include "sync/page_indexer.h"
#include "test_support.h"
#include "ops/page_module.h"
#include "ops/search_module.h"
#include "ops/sync_module.h"

namespace engram {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::WriteFile;

fs::path Fixture() { return fs::path(ENGRAM_SOURCE_DIR) / "tests" / "fixtures" / "vault_names"; }

class VaultNames : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::copy(Fixture(), dir_.path() / "vault", fs::copy_options::recursive);
    root_ = dir_.path() / "vault";
    ASSERT_TRUE(Brain::Init(root_).ok());
    auto brain = Brain::Open(root_);
    ASSERT_TRUE(brain.ok()) << brain.status().ToString();
    brain_ = std::move(*brain);
  }

  ImportReport Import() {
    auto r = brain_->Module<ops::SyncModule>().Import(local_, root_, false);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ImportReport{};
  }

  std::string PathOf(std::string_view name, const OperationContext& ctx) {
    auto page = brain_->Module<ops::PageModule>().Get(ctx, name);
    return page.ok() ? page->path : "(" + page.status().message() + ")";
  }

  TempDir dir_;
  fs::path root_;
  std::unique_ptr<Brain> brain_;
  OperationContext local_;
  OperationContext remote_{true, "test", "agent"};
};

// Regression (item 6): C.md, C++.md and C#.md were one slug, as were
// "Note A.md" and "Note_A.md"; all but one of each were skipped.
TEST_F(VaultNames, EveryNoteIsAPage) {
  ImportReport r = Import();
  EXPECT_EQ(r.added, 9);
  EXPECT_TRUE(r.skipped.empty()) << r.skipped.front().path << ": " << r.skipped.front().reason;
  std::set<std::string> slugs;
  for (const char* path : {"Programming/C.md", "Programming/C++.md", "Programming/C#.md", "Note A.md", "Note_A.md"}) {
    auto page = brain_->Module<ops::PageModule>().Get(local_, path);
    ASSERT_TRUE(page.ok()) << path << ": " << page.status().ToString();
    EXPECT_EQ(page->path, path);
    slugs.insert(page->slug);
  }
  EXPECT_EQ(slugs.size(), 5u);
}

// Regression (item 5): titles came from the first H1, so two books were both
// "前言" and typing a note's name found it first only sometimes.
TEST_F(VaultNames, TheFileNameIsTheTitleAndTypingItFindsTheNoteFirst) {
  Import();
  auto book = brain_->Module<ops::PageModule>().Get(local_, "Books/深入理解计算机系统.md");
  ASSERT_TRUE(book.ok());
  EXPECT_EQ(book->title, "深入理解计算机系统");
  EXPECT_NE(std::find(book->aliases.begin(), book->aliases.end(), "前言"), book->aliases.end());
  auto cpp = brain_->Module<ops::PageModule>().Get(local_, "Programming/C++.md");
  ASSERT_TRUE(cpp.ok());
  EXPECT_EQ(cpp->title, "C++");
  EXPECT_NE(std::find(cpp->aliases.begin(), cpp->aliases.end(), "C++ 学习笔记"), cpp->aliases.end());  // plain text

  // Name-as-query hit@1 over every note of the vault, keyword mode.
  auto listed = brain_->Module<ops::PageModule>().List(local_, ListFilter{});
  ASSERT_TRUE(listed.ok());
  size_t first = 0;
  for (const PageSummary& p : *listed) {
    std::string name = fs::path(p.path).stem().string();
    SearchOptions o = brain_->Module<ops::SearchModule>().DefaultSearchOptions();
    o.mode = SearchMode::kKeyword;
    auto r = brain_->Module<ops::SearchModule>().Search(local_, name, o);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().ToString();
    if (!r->results.empty() && r->results[0].slug == p.slug) ++first;
    else ADD_FAILURE() << "'" << name << "' did not find " << p.path << " first";
  }
  EXPECT_EQ(first, listed->size());
}

// Item 7: a slug, a path, a file name, a title or an alias, as [[Name]].
TEST_F(VaultNames, LookUpsAcceptWhatUsersType) {
  Import();
  for (const char* name : {"Internal links", "internal links", "Meta/Internal links.md", "Meta/Internal links",
                           "meta/internal-links", "wikilinks", "How linking works here"}) {
    EXPECT_EQ(PathOf(name, local_), "Meta/Internal links.md") << name;
    EXPECT_EQ(PathOf(name, remote_), "Meta/Internal links.md") << name;  // names are not file names
  }
  EXPECT_EQ(PathOf("C++", local_), "Programming/C++.md");
  EXPECT_EQ(PathOf("cpp", local_), "Programming/C++.md");
  EXPECT_EQ(PathOf("C#", local_), "Programming/C#.md");
  EXPECT_EQ(PathOf("C", local_), "Programming/C.md");
  EXPECT_EQ(PathOf("Note A", local_), "Note A.md");
  EXPECT_EQ(PathOf("Note_A", local_), "Note_A.md");
  EXPECT_EQ(PathOf("深入理解计算机系统", local_), "Books/深入理解计算机系统.md");
  // Every page by its slug, also for remote callers (slugs pass the remote rules).
  auto listed = brain_->Module<ops::PageModule>().List(local_, ListFilter{});
  ASSERT_TRUE(listed.ok());
  for (const PageSummary& p : *listed) EXPECT_EQ(PathOf(p.slug, remote_), p.path) << p.slug;

  auto tags = brain_->Module<ops::PageModule>().Tags(local_, "C++");
  ASSERT_TRUE(tags.ok()) << tags.status().ToString();
  EXPECT_EQ(std::set<std::string>(tags->begin(), tags->end()), (std::set<std::string>{"programming", "cpp"}));
  auto backlinks = brain_->Module<ops::PageModule>().Backlinks(remote_, "C++");
  ASSERT_TRUE(backlinks.ok()) << backlinks.status().ToString();
  std::set<std::string> from;
  for (const LinkRecord& l : *backlinks) from.insert(l.from_slug);
  auto daily = brain_->Module<ops::PageModule>().Get(local_, "2024-03-01");
  ASSERT_TRUE(daily.ok());
  EXPECT_TRUE(from.count(daily->slug)) << "backlinks of C++ lack the daily note";
}

TEST_F(VaultNames, AMissSuggestsTheClosestNames) {
  Import();
  auto miss = brain_->Module<ops::PageModule>().Get(local_, "Internl links");
  ASSERT_FALSE(miss.ok());
  EXPECT_EQ(miss.status().code(), StatusCode::kNotFound);
  EXPECT_NE(miss.status().message().find("did you mean 'Internal links'"), std::string::npos)
      << miss.status().message();
  auto tags = brain_->Module<ops::PageModule>().Tags(local_, "C+++");
  ASSERT_FALSE(tags.ok());
  EXPECT_NE(tags.status().message().find("'C++'"), std::string::npos) << tags.status().message();
}

TEST_F(VaultNames, RemoteCallersNeitherFindNorSeeSuggestedPrivatePages) {
  WriteFile(root_ / "Diary.md", "---\nvisibility: private\n---\n# Secret Plans\n");
  Import();
  EXPECT_EQ(PathOf("Diary", local_), "Diary.md");
  auto miss = brain_->Module<ops::PageModule>().Get(remote_, "Diary");
  ASSERT_FALSE(miss.ok());
  EXPECT_EQ(miss.status().message().find("Diary"), miss.status().message().rfind("Diary"));  // only the echo
  EXPECT_FALSE(brain_->Module<ops::PageModule>().Get(remote_, "Secret Plans").ok());
  auto near = brain_->Module<ops::PageModule>().Get(remote_, "Diar");
  ASSERT_FALSE(near.ok());
  EXPECT_EQ(near.status().message().find("Diary"), std::string::npos) << near.status().message();
}

// A brain indexed by an older engram (slugs "programming/c" for C++.md,
// "note-a", H1 titles) converges at its next import: pages re-key, keeping
// their identity, the skipped notes appear, and check is clean.
TEST_F(VaultNames, ABrainIndexedUnderOldRulesConvergesAtTheNextImport) {
  Engine& engine = brain_->engine();
  ASSERT_TRUE(engine.SetSourceRoot("default", "").ok());
  struct Old {
    const char* path;
    const char* slug;
  };
  // What the old rules stored: the first of each colliding group in path order.
  const Old old[] = {{"Books/代码大全.md", "books/代码大全"},
                     {"Books/深入理解计算机系统.md", "books/深入理解计算机系统"},
                     {"Daily Notes/2024-03-01.md", "daily-notes/2024-03-01"},
                     {"Meta/Internal links.md", "meta/internal-links"},
                     {"Note A.md", "note-a"},
                     {"Programming/C#.md", "programming/c"}};
  for (const Old& o : old) {
    std::ifstream in(root_ / o.path);
    std::string content((std::istreambuf_iterator<char>(in)), {});
    auto w = sync::PreparePage(o.path, content, sync::IndexOptions({}, {text::TitleSource::kHeading}));
    ASSERT_TRUE(w.ok());
    w->page.slug = o.slug;
    ASSERT_TRUE(engine.PutPage(*w).ok());
  }
  ASSERT_TRUE(engine.SetConfigValue("index_format:default", "").ok());  // from before the record
  auto before = engine.GetPage("default", "programming/c");
  ASSERT_TRUE(before.ok());
  auto check = brain_->Module<ops::SyncModule>().Check(local_, CheckOptions{.full = true});
  ASSERT_TRUE(check.ok());
  EXPECT_FALSE(check->problems.empty());  // says the brain needs re-indexing

  ImportReport r = Import();
  EXPECT_GE(r.rekeyed, 1);
  EXPECT_TRUE(r.skipped.empty());
  auto csharp = brain_->Module<ops::PageModule>().Get(local_, "Programming/C#.md");
  ASSERT_TRUE(csharp.ok());
  EXPECT_EQ(csharp->id, before->id);  // re-keyed, not replaced
  EXPECT_EQ(csharp->title, "C#");
  auto stats = brain_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->pages, 9);
  check = brain_->Module<ops::SyncModule>().Check(local_, CheckOptions{.full = true});
  ASSERT_TRUE(check.ok());
  for (const auto& p : check->problems) ADD_FAILURE() << p.path << ": " << p.reason;
  EXPECT_EQ(check->rebuilt_pages, 9u);
  // And a second import changes nothing.
  ImportReport again = Import();
  EXPECT_EQ(again.added + again.updated + again.removed + again.rekeyed, 0);
}

// Regression (item 6 in the evaluation loader): document ids "D1:11" and
// "D11:1" became one slug, and the evaluation refused the corpus.
TEST(EvalLoader, DocumentIdsThatDifferOnlyInPunctuationAreDistinct) {
  TempDir dir;
  WriteFile(dir.path() / "corpus.jsonl",
            "{\"_id\": \"D1:11\", \"title\": \"alpha\", \"text\": \"apples grow on trees\"}\n"
            "{\"_id\": \"D11:1\", \"title\": \"beta\", \"text\": \"bananas grow in bunches\"}\n");
  WriteFile(dir.path() / "queries.jsonl", "{\"_id\": \"q1\", \"text\": \"bananas\"}\n");
  WriteFile(dir.path() / "qrels.tsv", "query-id\tcorpus-id\tscore\nq1\tD11:1\t1\n");
  EvalOptions o;
  o.corpus = dir.path() / "corpus.jsonl";
  o.queries = dir.path() / "queries.jsonl";
  o.qrels = dir.path() / "qrels.tsv";
  auto r = RunEval(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->docs, 2u);
  EXPECT_DOUBLE_EQ(r->ndcg10, 1.0);
}

}  // namespace
}  // namespace engram
