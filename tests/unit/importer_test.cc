#include "sync/importer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "test_support.h"
#include "engram/store/open_store.h"

namespace engram::sync {
namespace {

using testing::TempDir;
using testing::WriteFile;
namespace fs = std::filesystem;

class ImporterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions o;
    o.create_if_missing = true;
    auto e = OpenSqliteStore(db_dir_.path() / "engram.db", o);
    ASSERT_TRUE(e.ok());
    engine_ = std::move(e).value();
  }
  ImportReport Import(ImportOptions o = {}) {
    auto r = ImportDirectory(*engine_, vault_.path(), o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ImportReport{};
  }
  TempDir db_dir_, vault_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(ImporterTest, ReportsNewChangedUnchangedAndRemovedFiles) {
  WriteFile(vault_.path() / "a.md", "alpha");
  WriteFile(vault_.path() / "people/b.md", "beta");
  WriteFile(vault_.path() / "notes.txt", "not markdown");
  ImportReport r1 = Import();
  EXPECT_EQ(r1.scanned, 2);
  EXPECT_EQ(r1.added, 2);

  WriteFile(vault_.path() / "a.md", "alpha changed");
  fs::remove(vault_.path() / "people/b.md");
  WriteFile(vault_.path() / "c.md", "gamma");
  ImportReport r2 = Import();
  EXPECT_EQ(r2.added, 1);
  EXPECT_EQ(r2.updated, 1);
  EXPECT_EQ(r2.removed, 1);
  EXPECT_EQ(r2.unchanged, 0);
  EXPECT_EQ(engine_->GetPage("default", "people/b").status().code(), StatusCode::kNotFound);

  ImportReport r3 = Import();
  EXPECT_EQ(r3.unchanged, 2);
  EXPECT_EQ(r3.added + r3.updated + r3.removed, 0);
}

// Regression (issue 13): an exception while preparing one note (a JSON
// dump of YAML-decoded bytes) aborted the whole import: 6,289 notes, 0 pages.
// Whatever preparing a file throws is that file's failure; the rest commit.
TEST_F(ImporterTest, AFileThatThrowsFailsAloneAndTheRestCommit) {
  WriteFile(vault_.path() / "a.md", "alpha");
  WriteFile(vault_.path() / "boom.md", "beta");
  WriteFile(vault_.path() / "c.md", "gamma");
  setenv("ENGRAM_FAULT_THROW_PREPARING", "boom.md", 1);
  ImportReport r = Import();
  unsetenv("ENGRAM_FAULT_THROW_PREPARING");
  EXPECT_EQ(r.added, 2);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].path, "boom.md");
  EXPECT_NE(r.skipped[0].reason.find("could not be prepared"), std::string::npos) << r.skipped[0].reason;
  EXPECT_EQ(r.skipped_by_reason["internal error"], 1);
  EXPECT_TRUE(engine_->GetPage("default", "c").ok());
  auto failures = engine_->SyncFailures("default");
  ASSERT_TRUE(failures.ok());
  ASSERT_EQ(failures->size(), 1u) << "recorded where `status` and `get` show it";
  EXPECT_EQ((*failures)[0].path, "boom.md");
  ImportReport again = Import();
  EXPECT_EQ(again.added, 1);
  EXPECT_TRUE(engine_->SyncFailures("default")->empty()) << "a failure that is gone is cleared";
}

// Issue 13: a summary accounts for every note — README.md at the root is
// skipped by name and counted; in a folder it is an ordinary note.
TEST_F(ImporterTest, SkippedNotesAreCountedByReason) {
  WriteFile(vault_.path() / "README.md", "about this vault");
  WriteFile(vault_.path() / "Projects/README.md", "an ordinary note");
  WriteFile(vault_.path() / "pw.md", "intro\npassword = \"Sup3rS3cr3t!x9\"\n");
  WriteFile(vault_.path() / "latin1.md", "caf\xE9");
  ImportReport r = Import();
  EXPECT_EQ(r.added, 1);
  EXPECT_TRUE(engine_->GetPage("default", "projects/readme").ok() || engine_->GetPage("default", "Projects/README").ok());
  EXPECT_EQ(r.skipped_by_reason["skipped by name (scope.skip_files)"], 1);
  EXPECT_EQ(r.skipped_by_reason["quarantined"], 1);
  EXPECT_EQ(r.skipped_by_reason["not UTF-8"], 1);
  ASSERT_EQ(r.quarantined.size(), 1u);
  EXPECT_EQ(r.quarantined[0].line, 2);
  auto audit = engine_->Audit(10);
  ASSERT_TRUE(audit.ok());
  ASSERT_EQ(audit->size(), 1u);
  EXPECT_EQ((*audit)[0].line, 2);
}

TEST_F(ImporterTest, SkipsBadFilesWithTheReasonAndIndexesTheRest) {
  WriteFile(vault_.path() / "good.md", "fine");
  WriteFile(vault_.path() / "latin1.md", "caf\xE9");
  WriteFile(vault_.path() / "binary.md", std::string("\x00\x01\x02", 3));
  WriteFile(vault_.path() / "big.md", std::string(2000, 'x'));
  WriteFile(vault_.path() / "badyaml.md", "---\ntitle: [oops\n---\nstill indexed\n");
  ImportOptions o;
  o.max_file_bytes = 1000;
  ImportReport r = Import(o);
  EXPECT_EQ(r.added, 2);
  ASSERT_EQ(r.skipped.size(), 3u);
  std::map<std::string, std::string> why;
  for (const auto& s : r.skipped) why[s.path] = s.reason;
  EXPECT_NE(why["latin1.md"].find("not valid UTF-8"), std::string::npos);
  EXPECT_NE(why["binary.md"].find("NUL"), std::string::npos);
  EXPECT_NE(why["big.md"].find("over the limit"), std::string::npos);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0].path, "badyaml.md");
  auto log = engine_->RecentIngestLog(50);
  ASSERT_TRUE(log.ok());
  int warns = 0;
  for (const auto& e : *log) warns += e.action == "warn" ? 1 : 0;
  EXPECT_EQ(warns, 1) << "the frontmatter warning is in the ingest log";
}

TEST_F(ImporterTest, AFileThatBecomesBinaryIsRemoved) {
  WriteFile(vault_.path() / "a.md", "text");
  Import();
  WriteFile(vault_.path() / "a.md", std::string("\x00\x00", 2));
  ImportReport r = Import();
  EXPECT_EQ(r.removed, 1);
  EXPECT_EQ(engine_->GetPage("default", "a").status().code(), StatusCode::kNotFound);
}

TEST_F(ImporterTest, SkipsHiddenFoldersAndSymlinks) {
  WriteFile(vault_.path() / ".obsidian/x.md", "hidden");
  WriteFile(vault_.path() / "node_modules/y.md", "deps");
  WriteFile(vault_.path() / ".engram/z.md", "meta");
  TempDir outside;
  WriteFile(outside.path() / "secret.md", "outside the vault");
  fs::create_symlink(outside.path() / "secret.md", vault_.path() / "link.md");
  ImportReport r = Import();
  EXPECT_EQ(r.added, 0);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].path, "link.md");
}

TEST_F(ImporterTest, TwoFilesWithOneSlugKeepTheFirst) {
  WriteFile(vault_.path() / "My Note.md", "one");
  WriteFile(vault_.path() / "my-note.md", "two");
  ImportReport r = Import();
  EXPECT_EQ(r.added, 1);
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_NE(r.skipped[0].reason.find("already used by"), std::string::npos);
}

TEST_F(ImporterTest, DryRunWritesNothing) {
  WriteFile(vault_.path() / "a.md", "alpha");
  ImportOptions o;
  o.dry_run = true;
  ImportReport r = Import(o);
  EXPECT_EQ(r.added, 1);
  EXPECT_EQ(engine_->GetPage("default", "a").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace engram::sync
