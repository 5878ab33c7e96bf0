// Issue 13, item 11: a git brain's writes become commits (sync/git_commit,
// ops/git_writes), and add_link writes links the vault's way
// (ops::VaultLinkText). The end-to-end behaviour through the binary is in
// tests/e2e/git_writes_test.sh.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "ops/git_writes.h"
#include "ops/page_names.h"
#include "sync/git_commit.h"
#include "test_support.h"

namespace engram {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using testing::WriteFile;

std::string Sh(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

TEST(CommitMessage, FillsPlaceholdersAndAlwaysNamesOperationAndCaller) {
  OperationContext ctx;
  ctx.transport = "http";
  ctx.caller = "tok_1:ci";
  EXPECT_EQ(ops::CommitMessage("engram {operation}: {path}", "put", "notes/a.md", ctx),
            "engram put: notes/a.md\n\nEngram-Operation: put\nEngram-Caller: tok_1:ci (http)\n");
  // Unknown names and unclosed braces stay as written.
  EXPECT_EQ(ops::CommitMessage("{who} {path} {", "tag", "a.md", ctx).substr(0, 14), "{who} a.md {\n\n");
  OperationContext cli;
  EXPECT_NE(ops::CommitMessage("x", "delete", "a.md", cli).find("Engram-Caller: local user (cli)"), std::string::npos);
}

TEST(CommitMessage, ACallerNameCannotForgeLinesOrTrailers) {
  OperationContext ctx;
  ctx.transport = "mcp-stdio";
  ctx.caller = "agent\nEngram-Operation: delete";
  std::string m = ops::CommitMessage("{caller} wrote", "put", "a.md", ctx);
  EXPECT_EQ(m.substr(0, m.find('\n')), "agent Engram-Operation: delete wrote");
  EXPECT_EQ(m.find("\nEngram-Operation: delete"), std::string::npos) << m;
}

PageNames Page(std::string slug, std::string path) {
  return PageNames{std::move(slug), std::move(path), "", {}, false, "", PageId()};
}

TEST(VaultLinkText, TheFileNameWhenUniqueElseTheShortestPathThatReachesIt) {
  std::vector<PageNames> pages = {
      Page("people/zhang-san", "people/Zhang San.md"), Page("work/people/li-si", "work/people/Li Si.md"),
      Page("people/li-si", "people/Li Si.md"),         Page("notes/a", "notes/a.md"),
      Page("x/notes/a", "x/notes/a.md"),               Page("c--", "C++.md"),
  };
  EXPECT_EQ(ops::VaultLinkText(pages, pages[0], "notes/a.md"), "Zhang San");
  EXPECT_EQ(ops::VaultLinkText(pages, pages[5], "notes/a.md"), "C++");
  // Two "Li Si": the shorter path wins the bare name, the other needs more.
  EXPECT_EQ(ops::VaultLinkText(pages, pages[2], "notes/a.md"), "Li Si");
  EXPECT_EQ(ops::VaultLinkText(pages, pages[1], "notes/a.md"), "work/people/Li Si");
  // From its own folder the bare name reaches the neighbour (same folder first).
  EXPECT_EQ(ops::VaultLinkText(pages, pages[1], "work/people/Wang Wu.md"), "Li Si");
  // "notes/a" is the exact path of one and a suffix of the other.
  EXPECT_EQ(ops::VaultLinkText(pages, pages[4], "y.md"), "x/notes/a");
}

class GitCommitterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path() / "repo";
    fs::create_directories(root_);
    Git("init -q . && git config user.name 'Repo User' && git config user.email repo@example.com");
    WriteFile(root_ / "a.md", "alpha\n");
    WriteFile(root_ / "b.md", "beta\n");
    Git("add -A && git commit -qm init");
  }
  std::string Git(const std::string& args) { return Sh("cd '" + root_.string() + "' && git " + args + " 2>&1"); }

  TempDir dir_;
  fs::path root_;
};

TEST_F(GitCommitterTest, CommitsOnlyTheWrittenFileAndLeavesStagedWorkStaged) {
  auto c = sync::GitCommitter::Open(root_);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto head = (*c)->Head();
  ASSERT_TRUE(head.ok());
  // The user staged b.md; engram writes a.md.
  WriteFile(root_ / "b.md", "beta staged\n");
  Git("add b.md");
  WriteFile(root_ / "a.md", "alpha by engram\n");
  auto r = (*c)->CommitFile(*head, "a.md", false, "engram put: a.md\n", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->warning.empty());
  EXPECT_EQ(Git("rev-parse HEAD"), r->commit);
  EXPECT_EQ(Git("show HEAD:a.md"), "alpha by engram");
  EXPECT_EQ(Git("show HEAD:b.md"), "beta");
  EXPECT_EQ(Git("status --porcelain"), "M  b.md");
  EXPECT_EQ(Git("log -1 --format='%an <%ae>'"), "Repo User <repo@example.com>");
  EXPECT_EQ(Git("rev-parse HEAD~1"), *head);
}

TEST_F(GitCommitterTest, ARemovalAndAFirstCommitOnAnUnbornBranch) {
  auto c = sync::GitCommitter::Open(root_);
  ASSERT_TRUE(c.ok());
  fs::remove(root_ / "a.md");
  auto r = (*c)->CommitFile(*(*c)->Head(), "a.md", true, "engram delete: a.md\n", {"Bot", "bot@example.com"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Git("ls-tree --name-only HEAD"), "b.md");
  EXPECT_EQ(Git("status --porcelain"), "");
  EXPECT_EQ(Git("log -1 --format='%an <%ae>'"), "Bot <bot@example.com>");

  fs::path fresh = dir_.path() / "fresh";
  fs::create_directories(fresh);
  Sh("cd '" + fresh.string() + "' && git init -q .");
  WriteFile(fresh / "n.md", "first\n");
  auto f = sync::GitCommitter::Open(fresh);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*(*f)->Head(), "");
  auto first = (*f)->CommitFile("", "n.md", false, "first\n", {"Bot", "bot@example.com"});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*(*f)->Head(), first->commit);
}

TEST_F(GitCommitterTest, AMovedBranchFailsTheCommitAndKeepsTheOtherOne) {
  auto c = sync::GitCommitter::Open(root_);
  ASSERT_TRUE(c.ok());
  const std::string before = *(*c)->Head();
  WriteFile(root_ / "b.md", "beta 2\n");
  Git("commit -qam 'user commit meanwhile'");
  const std::string user = Git("rev-parse HEAD");
  WriteFile(root_ / "a.md", "alpha by engram\n");
  auto r = (*c)->CommitFile(before, "a.md", false, "engram put: a.md\n", {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("HEAD moved"), std::string::npos) << r.status().ToString();
  EXPECT_EQ(Git("rev-parse HEAD"), user);
}

TEST_F(GitCommitterTest, UncommittedStagedUntrackedAndIgnoredPathsAreRefused) {
  auto c = sync::GitCommitter::Open(root_);
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE((*c)->CheckWritable("a.md").ok());
  EXPECT_TRUE((*c)->CheckWritable("new/page.md").ok());
  WriteFile(root_ / "a.md", "edited\n");
  auto dirty = (*c)->CheckWritable("a.md");
  EXPECT_EQ(dirty.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(dirty.message().find("'a.md' has uncommitted local changes"), std::string::npos) << dirty.ToString();
  Git("add a.md");
  EXPECT_NE((*c)->CheckWritable("a.md").message().find("staged"), std::string::npos);
  WriteFile(root_ / "u.md", "untracked\n");
  EXPECT_NE((*c)->CheckWritable("u.md").message().find("untracked"), std::string::npos);
  WriteFile(root_ / ".gitignore", "drafts/\n");
  EXPECT_NE((*c)->CheckWritable("drafts/x.md").message().find("ignored"), std::string::npos);
  fs::remove(root_ / "b.md");
  EXPECT_NE((*c)->CheckWritable("b.md").message().find("uncommitted"), std::string::npos);
}

}  // namespace
}  // namespace engram
