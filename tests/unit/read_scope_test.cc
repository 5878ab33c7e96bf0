// Visibility is enforced inside the store: every scoped read leaves out a
// private page - and its chunks, names and links - for a scope that cannot
// see it, and returns it for one that can. The oracle is the same read with
// ReadScope::All minus what belongs to the private page.
#include "engram/store/read_scope.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "engram/engine.h"
#include "engram/store/open_store.h"
#include "sync/page_indexer.h"
#include "test_support.h"

namespace engram {
namespace {

using testing::TempDir;

class ReadScopeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions o;
    o.create_if_missing = true;
    auto e = OpenSqliteStore(dir_.path() / "engram.db", o);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
    Put("people/ann.md", "---\ntitle: Ann\naliases: [Annie]\n---\nAnn works on [[projects/apollo]].\n");
    Put("people/zed.md", "---\ntitle: Zed\naliases: [Zeddy]\nvisibility: private\n---\nZed's notes on [[projects/apollo]] "
                         "and [[people/ann]].\n");
    Put("projects/apollo.md", "---\ntitle: Apollo\n---\nThe Apollo project. See [[people/zed]].\n");
  }
  void Put(const std::string& path, const std::string& content) {
    auto w = sync::PreparePage(path, content, {});
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_TRUE(engine_->PutPage(*w).ok());
  }
  PageId IdOf(const std::string& slug) { return engine_->GetPage("default", slug).value().id; }

  const ReadScope all_ = ReadScope::All("default");
  const ReadScope public_ = ReadScope::Public("default");
  TempDir dir_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(ReadScopeTest, GetPageAnswersAPrivatePageAsAbsent) {
  EXPECT_TRUE(engine_->GetPage(all_, "people/zed").ok());
  auto hidden = engine_->GetPage(public_, "people/zed");
  ASSERT_FALSE(hidden.ok());
  EXPECT_EQ(hidden.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(hidden.status().message(), "no page 'people/zed'") << "a hidden page reads exactly like an absent one";
  EXPECT_TRUE(engine_->GetPage(public_, "people/ann").ok());
  EXPECT_EQ(engine_->GetPage(ReadScope::All("other"), "people/ann").status().code(), StatusCode::kNotFound)
      << "the scope's source is the one read";
}

TEST_F(ReadScopeTest, NamesOfAPrivatePageAreNotFound) {
  EXPECT_EQ(engine_->PagesNamed(all_, "zeddy").value(), std::vector<PageId>{IdOf("people/zed")});
  EXPECT_TRUE(engine_->PagesNamed(public_, "zeddy").value().empty());
  EXPECT_TRUE(engine_->PagesNamed(public_, "Zed").value().empty());
  EXPECT_EQ(engine_->PagesNamed(public_, "annie").value(), std::vector<PageId>{IdOf("people/ann")});
  EXPECT_TRUE(engine_->PagesNamed(ReadScope::All("other"), "annie").value().empty());
  auto slugs = [](const std::vector<PageNames>& names) {
    std::vector<std::string> out;
    for (const auto& n : names) out.push_back(n.slug);
    return out;
  };
  EXPECT_EQ(slugs(engine_->AllPageNames(all_).value()),
            (std::vector<std::string>{"people/ann", "people/zed", "projects/apollo"}));
  EXPECT_EQ(slugs(engine_->AllPageNames(public_).value()), (std::vector<std::string>{"people/ann", "projects/apollo"}));
}

TEST_F(ReadScopeTest, ChunksOfAPrivatePageAreLeftOut) {
  std::vector<ChunkId> ids;
  for (const char* slug : {"people/zed", "people/ann", "projects/apollo"}) {
    auto chunks = engine_->GetPageChunks(IdOf(slug));
    ASSERT_TRUE(chunks.ok());
    for (const ChunkRecord& c : *chunks) ids.push_back(c.chunk_id);
  }
  ids.push_back(ChunkId(999999));  // a vanished chunk
  auto every = engine_->GetChunks(all_, ids).value();
  auto visible = engine_->GetChunks(public_, ids).value();
  std::vector<ChunkId> want;
  for (const ChunkRecord& c : every) {
    if (c.slug != "people/zed") want.push_back(c.chunk_id);
  }
  std::vector<ChunkId> got;
  for (const ChunkRecord& c : visible) got.push_back(c.chunk_id);
  EXPECT_EQ(got, want) << "the same order, the private page's chunks left out";
  EXPECT_EQ(every.size(), ids.size() - 1);
}

TEST_F(ReadScopeTest, LinksFromAndToAPrivatePageAreLeftOut) {
  auto from = [](const std::vector<LinkRecord>& links) {
    std::vector<std::string> out;
    for (const auto& l : links) out.push_back(l.from_slug);
    return out;
  };
  EXPECT_EQ(from(engine_->Backlinks(all_, "projects/apollo").value()), (std::vector<std::string>{"people/ann", "people/zed"}));
  EXPECT_EQ(from(engine_->Backlinks(public_, "projects/apollo").value()), (std::vector<std::string>{"people/ann"}));
  EXPECT_EQ(from(engine_->Backlinks(all_, "people/zed").value()), (std::vector<std::string>{"projects/apollo"}));
  EXPECT_TRUE(engine_->Backlinks(public_, "people/zed").value().empty()) << "a hidden page has no links to show";
  const PageId apollo = IdOf("projects/apollo"), ann = IdOf("people/ann");
  auto counts_all = engine_->BacklinkCounts(all_, {apollo, ann}).value();
  auto counts_public = engine_->BacklinkCounts(public_, {apollo, ann}).value();
  EXPECT_EQ(counts_all[apollo], 2);
  EXPECT_EQ(counts_all[ann], 1);
  EXPECT_EQ(counts_public[apollo], 1);
  EXPECT_EQ(counts_public.count(ann), 0u) << "Ann's only backlink is from the private page";
}

}  // namespace
}  // namespace engram
