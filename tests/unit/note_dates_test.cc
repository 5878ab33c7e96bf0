// Dates are the note's dates (issue 13 item 12): frontmatter `updated`,
// `date`, `created`; else the last commit that changed the file in a git
// brain; else the file's modification time — never the moment engram
// indexed it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/files.h"
#include "engram/engine.h"
#include "engram/store/open_store.h"
#include "sync/git_repo.h"
#include "sync/git_sync.h"
#include "sync/importer.h"
#include "sync/page_indexer.h"
#include "text/note_date.h"
#include "text/page_parser.h"
#include "test_support.h"

namespace engram {
namespace {

using testing::TempDir;
using testing::WriteFile;
namespace fs = std::filesystem;

// ---- Frontmatter dates ---------------------------------------------------

std::string Norm(std::string_view v) { return text::NormalizeNoteDate(v).value_or("(none)"); }

TEST(NoteDate, NormalisesDaysAndKeepsThemWithoutAZone) {
  EXPECT_EQ(Norm("2024-05-01"), "2024-05-01");
  EXPECT_EQ(Norm("  2024-5-1 "), "2024-05-01");
  EXPECT_EQ(Norm("2024-02-29"), "2024-02-29");  // a leap year
  EXPECT_EQ(Norm("2024/5/1"), "2024-05-01");
  EXPECT_EQ(Norm("2024年5月1日"), "2024-05-01");
  EXPECT_EQ(Norm("May 1, 2024"), "2024-05-01");
}

TEST(NoteDate, NormalisesTimesToUtc) {
  EXPECT_EQ(Norm("2024-05-01T10:00:00Z"), "2024-05-01T10:00:00Z");
  EXPECT_EQ(Norm("2024-05-01 10:00"), "2024-05-01T10:00:00Z");  // no zone: UTC, as YAML says
  EXPECT_EQ(Norm("2024-05-01t10:00:00.123456"), "2024-05-01T10:00:00Z");
  EXPECT_EQ(Norm("2024-05-01T10:00:00+08:00"), "2024-05-01T02:00:00Z");
  EXPECT_EQ(Norm("2024-05-01 01:30:00 +0200"), "2024-04-30T23:30:00Z");  // back over a day
  EXPECT_EQ(Norm("2023-12-31T22:00:00-5"), "2024-01-01T03:00:00Z");     // over a year
  EXPECT_EQ(Norm("2024-02-28T23:00:00-02:00"), "2024-02-29T01:00:00Z");
}

TEST(NoteDate, RefusesWhatIsNoDate) {
  for (const char* v : {"", "  ", "last week", "2024", "2024-05", "2023-02-29", "2024-13-01", "2024-04-31",
                        "2024-05-01T24:00", "2024-05-01T10:61", "2024-05-01T10:00 nonsense", "20240501",
                        "2024-05-01T10:00+25:00", "0000-01-01"}) {
    EXPECT_EQ(Norm(v), "(none)") << v;
  }
}

TEST(NoteDate, BothFormsCompareInTimeOrder) {
  EXPECT_LT(Norm("2024-05-01"), Norm("2024-05-01T00:00:00Z"));
  EXPECT_LT(Norm("2024-05-01T23:59:59Z"), Norm("2024-05-02"));
}

Page Parse(const std::string& frontmatter) {
  auto page = text::ParsePage("notes/a.md", "---\n" + frontmatter + "---\nbody words\n");
  EXPECT_TRUE(page.ok());
  return page.ok() ? *page : Page{};
}

TEST(NoteDate, UpdatedComesBeforeDateBeforeCreated) {
  Page all = Parse("created: 2020-01-01\ndate: 2021-01-01\nupdated: 2022-01-01T08:00:00Z\n");
  EXPECT_EQ(all.date, "2022-01-01T08:00:00Z");
  EXPECT_EQ(all.created, "2020-01-01");
  Page two = Parse("created: 2020-01-01\ndate: '2021-01-01'\n");  // quoted: a string all the same
  EXPECT_EQ(two.date, "2021-01-01");
  EXPECT_EQ(two.created, "2020-01-01");
  Page date_only = Parse("date: \"2021-03-04 10:30\"\n");
  EXPECT_EQ(date_only.date, "2021-03-04T10:30:00Z");
  EXPECT_EQ(date_only.created, "2021-03-04T10:30:00Z");
  Page created_only = Parse("created: 2020-01-01\n");
  EXPECT_EQ(created_only.date, "2020-01-01");
  Page none = Parse("title: x\n");
  EXPECT_EQ(none.date, "");
  EXPECT_EQ(none.created, "");
  EXPECT_TRUE(none.warnings.empty());
}

TEST(NoteDate, AValueThatIsNoDateIsAWarningNamingTheKeyAndTheNextSourceIsUsed) {
  Page p = Parse("updated: last week\ndate: 2021-01-01\n");
  EXPECT_EQ(p.date, "2021-01-01");
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("'updated' is not a date"), std::string::npos) << p.warnings[0];
  Page list = Parse("date: [2021-01-01]\ncreated: 20200101\n");  // a list, a number
  EXPECT_EQ(list.date, "");
  ASSERT_EQ(list.warnings.size(), 2u);
  EXPECT_NE(list.warnings[0].find("'date'"), std::string::npos);
  EXPECT_NE(list.warnings[1].find("'created'"), std::string::npos);
  Page empty = Parse("date:\nupdated: ''\n");  // a template's empty field is no mistake
  EXPECT_EQ(empty.date, "");
  EXPECT_TRUE(empty.warnings.empty());
}

TEST(NoteDate, PreparePageCarriesTheFrontmatterDate) {
  auto w = sync::PreparePage("a.md", "---\ndate: 2021-01-01\n---\nbody\n", {});
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->date, "2021-01-01");
  auto plain = sync::PreparePage("b.md", "body\n", {});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->date, "");
}

// ---- The engine keeps the note's dates -------------------------------------

std::unique_ptr<Engine> OpenEngine(const TempDir& dir) {
  EngineOptions o;
  o.create_if_missing = true;
  auto e = OpenSqliteStore(dir.path() / "engram.db", o);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? std::move(e).value() : nullptr;
}

PageWrite Write(const std::string& path, const std::string& content, const std::string& date = "") {
  auto w = sync::PreparePage(path, content, {});
  EXPECT_TRUE(w.ok());
  if (!date.empty()) w->date = date;
  return *w;
}

TEST(NoteDateStore, AWriteStoresTheNotesDateAndKeepsTheIndexTimeApart) {
  TempDir dir;
  auto e = OpenEngine(dir);
  ASSERT_TRUE(e->PutPage(Write("a.md", "apples", "2020-01-02T03:04:05Z")).ok());
  auto p = e->GetPage("default", "a");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->updated_at, "2020-01-02T03:04:05Z");
  EXPECT_EQ(p->created_at, "2020-01-02T03:04:05Z");
  EXPECT_GT(p->indexed_at, "2024");  // the write's own time
  auto listed = e->ListPages({});
  ASSERT_TRUE(listed.ok() && listed->size() == 1);
  EXPECT_EQ((*listed)[0].updated_at, "2020-01-02T03:04:05Z");
}

TEST(NoteDateStore, ReindexingTheSameContentKeepsTheDateAndMakesNoVersion) {
  TempDir dir;
  auto e = OpenEngine(dir);
  ASSERT_TRUE(e->PutPage(Write("a.md", "apples", "2020-01-01")).ok());
  ASSERT_TRUE(e->PutPage(Write("a.md", "apples")).ok());  // no date given: a re-index
  EXPECT_EQ(e->GetPage("default", "a")->updated_at, "2020-01-01");
  EXPECT_EQ(e->Stats(ReadScope::All("default"))->versions, 0);
  // New content without a date is a modification now.
  ASSERT_TRUE(e->PutPage(Write("a.md", "pears")).ok());
  auto p = e->GetPage("default", "a");
  EXPECT_GT(p->updated_at, "2024");
  EXPECT_EQ(p->created_at, "2020-01-01");  // the earliest date it had
  EXPECT_EQ(e->Stats(ReadScope::All("default"))->versions, 1);
}

TEST(NoteDateStore, CreatedIsTheFrontmatterOrTheEarliestDate) {
  TempDir dir;
  auto e = OpenEngine(dir);
  ASSERT_TRUE(e->PutPage(Write("a.md", "one", "2021-05-05")).ok());
  ASSERT_TRUE(e->PutPage(Write("a.md", "two", "2020-01-01")).ok());  // an older date (history rewritten)
  EXPECT_EQ(e->GetPage("default", "a")->created_at, "2020-01-01");
  ASSERT_TRUE(e->PutPage(Write("a.md", "---\ncreated: 2019-09-09\n---\nthree", "2022-02-02")).ok());
  auto p = e->GetPage("default", "a");
  EXPECT_EQ(p->created_at, "2019-09-09");
  EXPECT_EQ(p->updated_at, "2022-02-02");
}

TEST(NoteDateStore, ARenameKeepsTheDate) {
  TempDir dir;
  auto e = OpenEngine(dir);
  ASSERT_TRUE(e->PutPage(Write("a.md", "apples", "2020-01-01")).ok());
  ASSERT_TRUE(e->RenamePage("default", "a", "b", "b.md").ok());
  EXPECT_EQ(e->GetPage("default", "b")->updated_at, "2020-01-01");
}

TEST(NoteDateStore, SinceAndUntilFilterByTheNotesDate) {
  TempDir dir;
  auto e = OpenEngine(dir);
  ASSERT_TRUE(e->PutPage(Write("old.md", "robots", "2019-06-30T23:00:00Z")).ok());
  ASSERT_TRUE(e->PutPage(Write("mid.md", "robots", "2020-03-01")).ok());
  ASSERT_TRUE(e->PutPage(Write("new.md", "robots", "2023-01-01T00:00:00Z")).ok());
  auto slugs = [&](const ChunkFilter& f) {
    std::vector<std::string> out;
    auto ids = e->FilterPages(f);
    auto pages = e->ListPages({});
    EXPECT_TRUE(ids.ok() && pages.ok());
    if (!ids.ok() || !pages.ok()) return out;
    for (const PageId id : *ids) {
      for (const auto& p : *pages) {
        if (e->GetPage("default", p.slug)->id == id) out.push_back(p.slug);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  ChunkFilter f;
  f.since = "2020-01-01";
  EXPECT_EQ(slugs(f), (std::vector<std::string>{"mid", "new"}));
  f.until = "2020-03-01";  // the whole day
  EXPECT_EQ(slugs(f), (std::vector<std::string>{"mid"}));
  f.since.clear();
  f.until = "2019-06-30";
  EXPECT_EQ(slugs(f), (std::vector<std::string>{"old"}));
}

// ---- Git: the last commit that changed a file --------------------------------

// Runs git in dir with a fixed author and committer date ("" = now).
void Git(const fs::path& dir, const std::string& args, const std::string& date = "") {
  std::string cmd = "cd '";
  cmd.append(dir.string()).append("' && ");
  if (!date.empty()) {
    cmd.append("GIT_AUTHOR_DATE='").append(date).append("' GIT_COMMITTER_DATE='").append(date).append("' ");
  }
  cmd.append("git -c user.name=t -c user.email=t@example.com -c commit.gpgsign=false ").append(args);
  cmd.append(" >/dev/null 2>&1");
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

// main: c1 (2020) adds a, b, c; c2 (2021-02) changes b; side (2021-06)
// changes c; main (2021-09) changes a; merge of side (2022-01); c5 (2023)
// renames b to d.
class GitDates : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path r = repo_.path();
    Git(r, "init -q -b main");
    WriteFile(r / "a.md", "alpha\n");
    WriteFile(r / "b.md", "beta\n");
    WriteFile(r / "notes/c.md", "gamma\n");
    WriteFile(r / "notes/untouched.md", "delta\n");
    Git(r, "add -A");
    Git(r, "commit -q -m c1", "2020-01-01T00:00:00Z");
    WriteFile(r / "b.md", "beta 2\n");
    Git(r, "commit -q -am c2", "2021-02-01T00:00:00Z");
    Git(r, "checkout -q -b side");
    WriteFile(r / "notes/c.md", "gamma 2\n");
    Git(r, "commit -q -am side", "2021-06-01T00:00:00Z");
    Git(r, "checkout -q main");
    WriteFile(r / "a.md", "alpha 2\n");
    Git(r, "commit -q -am c3", "2021-09-01T00:00:00Z");
    Git(r, "merge -q --no-ff side -m merge", "2022-01-01T00:00:00Z");
    Git(r, "mv b.md d.md");
    Git(r, "commit -q -m c5", "2023-01-01T00:00:00Z");
  }
  TempDir repo_;
};

TEST_F(GitDates, EachFileIsDatedByTheLastFirstParentCommitThatChangedIt) {
  auto repo = sync::GitRepo::Open(repo_.path());
  ASSERT_TRUE(repo.ok()) << repo.status().ToString();
  auto head = (*repo)->HeadCommit();
  ASSERT_TRUE(head.ok());
  auto finder = (*repo)->LastCommits(*head);
  ASSERT_TRUE(finder.ok()) << finder.status().ToString();
  auto at = [&](const std::string& path) -> std::string {
    auto t = (*finder)->Find(path);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() && *t ? common::Iso8601FromUnix(**t) : "(none)";
  };
  EXPECT_EQ(at("d.md"), "2023-01-01T00:00:00Z");             // renamed: the rename's time
  EXPECT_EQ(at("a.md"), "2021-09-01T00:00:00Z");
  EXPECT_EQ(at("notes/c.md"), "2022-01-01T00:00:00Z");       // merged from a side branch: the merge's
  EXPECT_EQ(at("notes/untouched.md"), "2020-01-01T00:00:00Z");  // the root commit's
  EXPECT_EQ(at("never.md"), "(none)");
  EXPECT_EQ(at("a.md"), "2021-09-01T00:00:00Z");             // asked again, after the walk ended
}

sync::SyncOptions SyncOptionsFor(const fs::path& root) {
  sync::SyncOptions o;
  o.root = root;
  return o;
}

std::string DateOf(Engine& e, const std::string& slug) {
  auto p = e.GetPage("default", slug);
  return p.ok() ? p->updated_at : "(no page)";
}

TEST_F(GitDates, SyncDatesPagesByFrontmatterElseTheirLastCommit) {
  const fs::path r = repo_.path();
  WriteFile(r / "fm.md", "---\ndate: 2015-05-05\n---\ndated by its frontmatter\n");
  Git(r, "add fm.md");
  Git(r, "commit -q -m fm", "2023-06-01T00:00:00Z");
  TempDir db;
  auto e = OpenEngine(db);
  auto repo = sync::GitRepo::Open(r);
  ASSERT_TRUE(repo.ok());
  auto report = sync::SyncGit(*e, **repo, SyncOptionsFor(r));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(DateOf(*e, "a"), "2021-09-01T00:00:00Z");
  EXPECT_EQ(DateOf(*e, "d"), "2023-01-01T00:00:00Z");
  EXPECT_EQ(DateOf(*e, "notes/c"), "2022-01-01T00:00:00Z");
  EXPECT_EQ(DateOf(*e, "notes/untouched"), "2020-01-01T00:00:00Z");
  EXPECT_EQ(DateOf(*e, "fm"), "2015-05-05");

  // An incremental sync dates the file it writes by its new commit; the others keep theirs.
  WriteFile(r / "a.md", "alpha 3\n");
  Git(r, "commit -q -am c7", "2024-04-04T04:04:04Z");
  report = sync::SyncGit(*e, **repo, SyncOptionsFor(r));
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->mode, "diff");
  EXPECT_EQ(report->updated, 1);
  EXPECT_EQ(DateOf(*e, "a"), "2024-04-04T04:04:04Z");
  EXPECT_EQ(DateOf(*e, "notes/c"), "2022-01-01T00:00:00Z");

  // A file taken from the work tree (uncommitted) is dated by its modification time.
  WriteFile(r / "notes/c.md", "gamma edited, not committed\n");
  fs::last_write_time(r / "notes/c.md", fs::file_time_type::clock::now() - std::chrono::hours(24 * 400));
  auto mtime = common::ModifiedTime(r / "notes/c.md");
  ASSERT_TRUE(mtime.ok());
  sync::SyncOptions wt = SyncOptionsFor(r);
  wt.worktree = true;
  ASSERT_TRUE(sync::SyncGit(*e, **repo, wt).ok());
  EXPECT_EQ(DateOf(*e, "notes/c"), common::Iso8601FromUnix(*mtime));
}

TEST_F(GitDates, PagesIndexedBeforeNotesHadDatesAreDatedByTheNextSync) {
  const fs::path r = repo_.path();
  TempDir db;
  auto e = OpenEngine(db);
  auto repo = sync::GitRepo::Open(r);
  ASSERT_TRUE(repo.ok());
  ASSERT_TRUE(sync::SyncGit(*e, **repo, SyncOptionsFor(r)).ok());
  // What an older engram left: the index time as every page's date, no mark.
  ASSERT_TRUE(e->PutPage(Write("a.md", "alpha 2\n", "2025-12-31T00:00:00Z")).ok());
  ASSERT_TRUE(e->SetConfigValue("note_dates:default", "").ok());
  ASSERT_EQ(DateOf(*e, "a"), "2025-12-31T00:00:00Z");
  auto report = sync::SyncGit(*e, **repo, SyncOptionsFor(r));
  ASSERT_TRUE(report.ok());
  EXPECT_NE(report->mode.find("dates"), std::string::npos) << report->mode;
  EXPECT_EQ(DateOf(*e, "a"), "2021-09-01T00:00:00Z");
  EXPECT_EQ(e->Stats(ReadScope::All("default"))->versions, 0) << "the same content written again is no version";
  report = sync::SyncGit(*e, **repo, SyncOptionsFor(r));
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->mode, "up to date");
}

// ---- Plain folders: the modification time -----------------------------------

TEST(NoteDateImport, AFolderFileIsDatedByItsModificationTimeUnlessItsFrontmatterSays) {
  TempDir vault, db;
  WriteFile(vault.path() / "plain.md", "plain words\n");
  WriteFile(vault.path() / "fm.md", "---\nupdated: 2011-11-11\n---\nwords\n");
  const auto when = fs::file_time_type::clock::now() - std::chrono::hours(24 * 1000);
  fs::last_write_time(vault.path() / "plain.md", when);
  fs::last_write_time(vault.path() / "fm.md", when);
  auto mtime = common::ModifiedTime(vault.path() / "plain.md");
  ASSERT_TRUE(mtime.ok());
  auto e = OpenEngine(db);
  sync::ImportOptions o;
  ASSERT_TRUE(sync::ImportDirectory(*e, vault.path(), o).ok());
  EXPECT_EQ(DateOf(*e, "plain"), common::Iso8601FromUnix(*mtime));
  EXPECT_EQ(DateOf(*e, "fm"), "2011-11-11");

  // An older engram's pages are dated by the next import.
  ASSERT_TRUE(e->PutPage(Write("plain.md", "plain words\n", "2099-01-01")).ok());
  ASSERT_TRUE(e->SetConfigValue("note_dates:default", "").ok());
  auto r = sync::ImportDirectory(*e, vault.path(), o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(DateOf(*e, "plain"), common::Iso8601FromUnix(*mtime));
  r = sync::ImportDirectory(*e, vault.path(), o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->unchanged, 2);
}

}  // namespace
}  // namespace engram
