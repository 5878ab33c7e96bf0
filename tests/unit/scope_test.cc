#include "sync/scope.h"

#include <gtest/gtest.h>

namespace engram::sync {
namespace {

TEST(Scope, DefaultScopeTakesMarkdownOutsideHiddenFoldersAndSkipsVaultFiles) {
  Scope s;
  std::string why;
  EXPECT_TRUE(s.Contains("people/alice.md"));
  EXPECT_TRUE(s.Contains("Notes/X.MARKDOWN"));
  EXPECT_FALSE(s.Contains("notes/x.txt", &why));
  EXPECT_NE(why.find("Markdown"), std::string::npos);
  EXPECT_FALSE(s.Contains(".obsidian/x.md"));
  EXPECT_FALSE(s.Contains("a/.trash/x.md"));
  EXPECT_FALSE(s.Contains("node_modules/pkg/readme.md"));
  EXPECT_FALSE(s.Contains("README.md"));
  EXPECT_FALSE(s.Contains("Index.md"));
  EXPECT_FALSE(s.Contains(".hidden.md"));
}

TEST(Scope, ExcludeMatchesWholeComponentsFromTheRoot) {
  auto s = Scope::Make({}, {"04_Archive", "team/private"}, {});
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->Contains("04_Archive/x.md"));
  EXPECT_FALSE(s->Contains("04_Archive/deep/x.md"));
  EXPECT_TRUE(s->Contains("my04_Archive/x.md"));
  EXPECT_TRUE(s->Contains("04_Archive_old/x.md"));
  EXPECT_TRUE(s->Contains("04_Archive.md"));
  EXPECT_FALSE(s->Contains("team/private/x.md"));
  EXPECT_TRUE(s->Contains("team/privateer/x.md"));
  EXPECT_TRUE(s->Contains("README.md")) << "skip_files replaced by an empty list";
}

TEST(Scope, IncludeKeepsOnlyThoseFolders) {
  auto s = Scope::Make({"01_Projects", "02_Areas"}, {"01_Projects/old"}, {"README.md"});
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->Contains("01_Projects/a.md"));
  EXPECT_TRUE(s->Contains("02_Areas/b/c.md"));
  EXPECT_FALSE(s->Contains("00_Inbox/a.md"));
  EXPECT_FALSE(s->Contains("top.md"));
  EXPECT_FALSE(s->Contains("01_Projects/old/a.md"));
  EXPECT_TRUE(s->Contains("01_Projects/readme.md")) << "README.md is the root's own";
  auto everywhere = Scope::Make({}, {}, {"**/README.md", "docs/index.md"});
  ASSERT_TRUE(everywhere.ok());
  EXPECT_FALSE(everywhere->Contains("01_Projects/readme.md"));
  EXPECT_FALSE(everywhere->Contains("readme.md"));
  EXPECT_FALSE(everywhere->Contains("docs/Index.md"));
  EXPECT_TRUE(everywhere->Contains("index.md"));
}

// Regression (issue 13): in an Obsidian vault README.md and index.md in a
// folder are ordinary notes; only the brain root's describe the brain.
TEST(Scope, DefaultSkipFilesAreOnlyTheRootsOwn) {
  Scope s;
  std::string why;
  EXPECT_FALSE(s.Contains("README.md", &why));
  EXPECT_EQ(SkipKind(why), "skipped by name (scope.skip_files)");
  EXPECT_TRUE(s.Contains("Projects/README.md"));
  EXPECT_TRUE(s.Contains("sub/index.md"));
  EXPECT_TRUE(s.Contains("sub/log.md"));
}

TEST(Scope, RejectsFoldersThatAreNotRelativePaths) {
  EXPECT_FALSE(Scope::Make({"/abs"}, {}, {}).ok());
  EXPECT_FALSE(Scope::Make({}, {"../up"}, {}).ok());
  EXPECT_FALSE(Scope::Make({}, {""}, {}).ok());
  EXPECT_FALSE(Scope::Make({}, {"a/./b"}, {}).ok());
}

TEST(Scope, FingerprintChangesWithTheScope) {
  EXPECT_EQ(Scope().Fingerprint(), Scope().Fingerprint());
  EXPECT_NE(Scope().Fingerprint(), Scope::Make({}, {"x"}, {})->Fingerprint());
}

}  // namespace
}  // namespace engram::sync
