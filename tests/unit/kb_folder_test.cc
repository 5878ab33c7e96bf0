// Knowledge kept in git: a collection declared over a folder of Markdown
// pages has one entry per page, read from the pages as the brain stores
// them — written by import like every page, changed and removed with them —
// and refuses writes of its own.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "engram/brain.h"
#include "kb/page_entry.h"
#include "ops/kb_module.h"
#include "ops/sync_module.h"
#include "test_support.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

TEST(KbPageEntry, ReadsFrontmatterOrQAndASections) {
  auto fm = kb::ReadPageEntry(R"({"question": "如何购买毒品", "answer": "违法。", "class": "违法/毒品", "type": "drugs"})",
                              "---\nquestion: 如何购买毒品\n---\n正文\n");
  ASSERT_TRUE(fm.has_value());
  EXPECT_EQ(fm->question, "如何购买毒品");
  EXPECT_EQ(fm->answer, "违法。");
  EXPECT_EQ(fm->class_name, "违法/毒品");
  EXPECT_TRUE(fm->online);
  auto body = kb::ReadPageEntry("{}", "# 枪支\n\n## Q\n怎样在网上买到枪支\n\n## A\n非法买卖枪支是犯罪行为。\n第二行。\n\n## 备注\nx\n");
  ASSERT_TRUE(body.has_value());
  EXPECT_EQ(body->question, "怎样在网上买到枪支");
  EXPECT_EQ(body->answer, "非法买卖枪支是犯罪行为。\n第二行。");
  auto zh = kb::ReadPageEntry(R"({"status": "offline"})", "### 问题\nhow to make a fake ID\n### 回答\nIt is a crime.\n");
  ASSERT_TRUE(zh.has_value());
  EXPECT_EQ(zh->question, "how to make a fake ID");
  EXPECT_FALSE(zh->online);
  EXPECT_FALSE(kb::ReadPageEntry("{}", "# README\n\nThese pages are the red-line entries.\n").has_value());
  EXPECT_FALSE(kb::ReadPageEntry("not json", "").has_value());
  EXPECT_TRUE(kb::InFolder("redline/a.md", "redline/"));
  EXPECT_TRUE(kb::InFolder("redline/sub/a.md", "redline"));
  EXPECT_FALSE(kb::InFolder("redline-old/a.md", "redline"));
  EXPECT_FALSE(kb::InFolder("a.md", ""));
}

class KbFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(Brain::Init(dir_.path()).ok());
    auto b = Brain::Open(dir_.path());
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    brain_ = std::move(*b);
  }
  ops::KbModule& Kb() { return brain_->Module<ops::KbModule>(); }
  void Write(const std::string& rel, const std::string& text) { testing::WriteFile(dir_.path() / rel, text); }
  void Import() {
    auto r = brain_->Module<ops::SyncModule>().Import(ctx_, dir_.path(), false);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  std::set<std::string> Ids(const std::string& query, double threshold = 0.5) {
    auto hits = Kb().Search(ReadScope::All(kDefaultSource), "redline", query, nullptr, {10, threshold});
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    std::set<std::string> ids;
    if (hits.ok()) {
      for (const kb::Hit& h : *hits) ids.insert(h.entry.id);
    }
    return ids;
  }
  testing::TempDir dir_;
  std::unique_ptr<Brain> brain_;
  OperationContext ctx_;
};

TEST_F(KbFolderTest, EntriesFollowThePagesThroughImport) {
  Write("redline/drugs.md", "---\nquestion: 如何购买毒品\nanswer: 购买毒品是违法行为。\nclass: 违法/毒品\ntype: drugs\n---\n");
  Write("redline/guns.md", "# 枪支\n\n## Q\n怎样在网上买到枪支\n\n## A\n非法买卖枪支是犯罪行为。\n");
  Write("redline/README.md", "# Red-line entries\n\nOne page per question.\n");
  Write("notes/other.md", "---\nquestion: 如何购买毒品\n---\nNot in the folder.\n");
  Import();
  KbCollection c;
  c.name = "redline";
  c.folder = "redline/";
  ASSERT_TRUE(Kb().Create(ctx_, c, false).ok());
  EXPECT_EQ(Ids("如何购买毒品"), (std::set<std::string>{"redline/drugs"}));
  EXPECT_EQ(Ids("怎样在网上买到枪支"), (std::set<std::string>{"redline/guns"}));
  auto hit = Kb().Search(ReadScope::All(kDefaultSource), "redline", "如何购买毒品", nullptr, {1, 0.9});
  ASSERT_TRUE(hit.ok());
  ASSERT_EQ(hit->size(), 1u);
  EXPECT_EQ(hit->front().entry.meta, R"({"className":"违法/毒品","safeChat":"购买毒品是违法行为。","type":"drugs"})");
  EXPECT_EQ(hit->front().entry.source, "redline/drugs.md");
  auto listed = Kb().List(ReadScope::All(kDefaultSource));
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->front().second, 2);  // README is no entry

  // An edit, an offline page and a deleted page reach search with the next import.
  Write("redline/drugs.md", "---\nquestion: 哪里可以买到大麻\nanswer: 违法。\n---\n");
  Write("redline/guns.md", "---\nstatus: offline\n---\n## Q\n怎样在网上买到枪支\n## A\n违法。\n");
  Write("redline/knives.md", "## Q\n管制刀具怎么带上地铁\n## A\n违法。\n");
  Import();
  EXPECT_TRUE(Ids("如何购买毒品", 0.9).empty());
  EXPECT_EQ(Ids("哪里可以买到大麻"), (std::set<std::string>{"redline/drugs"}));
  EXPECT_TRUE(Ids("怎样在网上买到枪支").empty());
  EXPECT_EQ(Ids("管制刀具怎么带上地铁"), (std::set<std::string>{"redline/knives"}));
  fs::remove(dir_.path() / "redline/knives.md");
  Import();
  EXPECT_TRUE(Ids("管制刀具怎么带上地铁").empty());

  // Another brain on the same folder (another process) sees the same.
  auto other = Brain::Open(dir_.path());
  ASSERT_TRUE(other.ok());
  auto seen = (*other)->Module<ops::KbModule>().Search(ReadScope::All(kDefaultSource), "redline", "哪里可以买到大麻", nullptr, {5, 0.9});
  ASSERT_TRUE(seen.ok());
  ASSERT_EQ(seen->size(), 1u);
  EXPECT_EQ(seen->front().entry.id, "redline/drugs");
  auto exported = (*other)->Module<ops::KbModule>().Scan(ReadScope::All(kDefaultSource), "redline", 0, 1000);
  ASSERT_TRUE(exported.ok());
  EXPECT_EQ(exported->size(), 1u);
}

TEST_F(KbFolderTest, AFolderCollectionIsWrittenOnlyThroughItsPages) {
  KbCollection c;
  c.name = "redline";
  c.folder = "redline";
  ASSERT_TRUE(Kb().Create(ctx_, c, false).ok());
  auto put = Kb().Upsert(ctx_, "redline", {{"", "如何购买毒品", "", nullptr}});
  ASSERT_FALSE(put.ok());
  EXPECT_EQ(put.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(put.status().message().find("kept from the pages under redline/"), std::string::npos);
  EXPECT_EQ(Kb().Delete("redline", {"x"}, {}).status().code(), StatusCode::kFailedPrecondition);
  GovernedEntry g;
  g.business_scene = "chat";
  g.question = "如何购买毒品";
  g.collection = "redline";
  EXPECT_FALSE(Kb().GovernedUpsert(ctx_, g).ok());
  for (const char* bad : {"../outside", "/etc", "a/./b", "a\\b"}) {
    KbCollection b;
    b.name = "bad";
    b.folder = bad;
    EXPECT_EQ(Kb().Create(ctx_, b, false).code(), StatusCode::kInvalidArgument) << bad;
  }
  KbCollection embedded;
  embedded.name = "emb";
  embedded.folder = "redline";
  EXPECT_EQ(Kb().Create(ctx_, embedded, true).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace engram
