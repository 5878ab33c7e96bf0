// The write journal (engram/store/journal_store.h) on both engines: what a
// write records before its first file changes comes back whole — bytes
// before and after exactly (an empty file is not a missing one), which files
// are done — and nothing is left once it is ended. And the temporary files a
// killed write leaves (common/rooted_dir.h) are recognised by name and
// removed, nothing else with them.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/rooted_dir.h"
#include "engram/engine.h"
#include "test_stores.h"
#include "test_support.h"

namespace engram {
namespace {

using testing::OpenFresh;
using testing::TempDir;

JournalEntry Entry(std::string operation) {
  JournalEntry e;
  e.operation = std::move(operation);
  e.args = R"({"from":"people/a","into":"people/b"})";
  e.report = R"({"links_rewritten":3})";
  e.started_at = "2026-12-04T10:00:00Z";
  e.owner = "/brain@host";
  e.files = {{"people/b.md", std::string("old b\n"), std::string("new b\n"), false},
             {"notes/empty.md", std::string(), std::string("now text\n"), false},
             {"notes/new.md", std::nullopt, std::string(), false},
             {"notes/bytes.md", std::string("\0\xff\n", 3), std::string("---\n\xe4\xb8\xad\n", 8), false}};
  return e;
}

TEST(JournalStore, AWriteComesBackAsRecordedAndLeavesNothingWhenEnded) {
  TempDir dir;
  auto store = OpenFresh(dir);
  ASSERT_NE(store, nullptr);
  auto none = store->OpenJournals();
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->empty());
  const JournalEntry merge = Entry("merge");
  auto first = store->BeginJournal(merge);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto second = store->BeginJournal(Entry("put"));
  ASSERT_TRUE(second.ok());
  EXPECT_NE(*first, *second);
  ASSERT_TRUE(store->MarkJournalFileDone(*first, 1).ok());
  EXPECT_EQ(store->MarkJournalFileDone(*first, 9).code(), StatusCode::kNotFound);

  auto open = store->OpenJournals();
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 2u);
  const JournalEntry& got = open->front();
  EXPECT_EQ(got.id, *first) << "oldest first";
  EXPECT_EQ(got.operation, "merge");
  EXPECT_EQ(got.args, merge.args);
  EXPECT_EQ(got.report, merge.report);
  EXPECT_EQ(got.started_at, merge.started_at);
  EXPECT_EQ(got.owner, merge.owner);
  ASSERT_EQ(got.files.size(), merge.files.size());
  for (size_t i = 0; i < got.files.size(); ++i) {
    EXPECT_EQ(got.files[i].path, merge.files[i].path);
    EXPECT_EQ(got.files[i].before, merge.files[i].before) << got.files[i].path;
    EXPECT_EQ(got.files[i].after, merge.files[i].after) << got.files[i].path;
    EXPECT_EQ(got.files[i].done, i == 1) << got.files[i].path;
  }
  ASSERT_TRUE(got.files[1].before.has_value()) << "an empty file is not a missing one";
  EXPECT_FALSE(got.files[2].before.has_value());

  ASSERT_TRUE(store->EndJournal(*first).ok());
  open = store->OpenJournals();
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 1u);
  EXPECT_EQ(open->front().operation, "put");
  ASSERT_TRUE(store->EndJournal(*second).ok());
  EXPECT_TRUE(store->OpenJournals()->empty());
}

TEST(JournalStore, IsNeverPartOfACallersTransaction) {
  TempDir dir;
  auto store = OpenFresh(dir);
  ASSERT_NE(store, nullptr);
  auto txn = store->Begin();
  ASSERT_TRUE(txn.ok());
  EXPECT_FALSE(store->BeginJournal(Entry("merge")).ok()) << "a journal that a rollback could take back is worth nothing";
}

TEST(JournalTemporaries, OnlyWriteFileTemporariesAreRemoved) {
  TempDir dir;
  namespace fs = std::filesystem;
  fs::create_directories(dir.path() / "notes");
  testing::WriteFile(dir.path() / "notes" / ".engram-tmp-0123456789abcdef", "half a page");
  testing::WriteFile(dir.path() / "notes" / ".engram-tmp-notours", "someone else's");
  testing::WriteFile(dir.path() / "notes" / "a.md", "a page");
  testing::WriteFile(dir.path() / ".engram-tmp-fedcba9876543210", "at the root");
  EXPECT_TRUE(common::RootedDir::IsTemporaryName(".engram-tmp-0123456789abcdef"));
  EXPECT_FALSE(common::RootedDir::IsTemporaryName(".engram-tmp-0123456789ABCDEF"));
  EXPECT_FALSE(common::RootedDir::IsTemporaryName(".engram-tmp-notours"));
  EXPECT_FALSE(common::RootedDir::IsTemporaryName("engram-tmp-0123456789abcdef"));
  auto root = common::RootedDir::Open(dir.path(), common::RootedDir::Links::kRefuse);
  ASSERT_TRUE(root.ok());
  auto removed = (*root)->RemoveTemporaries("notes/a.md");
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(*removed, 1u);
  EXPECT_FALSE(fs::exists(dir.path() / "notes" / ".engram-tmp-0123456789abcdef"));
  EXPECT_TRUE(fs::exists(dir.path() / "notes" / ".engram-tmp-notours"));
  EXPECT_TRUE(fs::exists(dir.path() / "notes" / "a.md"));
  EXPECT_TRUE(fs::exists(dir.path() / ".engram-tmp-fedcba9876543210")) << "another folder's is left";
  EXPECT_EQ(*(*root)->RemoveTemporaries("a.md"), 1u);
  EXPECT_EQ(*(*root)->RemoveTemporaries("missing/a.md"), 0u);
}

}  // namespace
}  // namespace engram
