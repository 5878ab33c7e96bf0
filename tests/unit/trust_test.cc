// The trust boundary: a table of hostile names a remote caller may send
// (traversal in several encodings, hidden folders, look-alikes of "." and
// "/", invisible and bidirectional characters, NUL and control bytes,
// invalid and overlong UTF-8, over-long names, shell and glob characters),
// symlink tricks under a real folder, and the Brain refusing remote callers
// what they may not do.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engram/brain.h"
#include "ops/trust.h"
#include "test_support.h"

namespace engram::ops {
namespace {

namespace fs = std::filesystem;
using engram::testing::TempDir;
using engram::testing::WriteFile;

std::string S(const char* s, size_t n) { return std::string(s, n); }

TEST(Trust, HostileSlugsAreRefused) {
  const std::vector<std::pair<std::string, std::string>> hostile = {
      {"../etc/passwd", "traversal"},
      {"a/../../etc/passwd", "traversal inside"},
      {"..", "parent alone"},
      {"notes/..", "trailing parent"},
      {"/etc/passwd", "absolute"},
      {"//etc/passwd", "absolute, doubled"},
      {"..\\..\\windows\\win.ini", "backslash traversal"},
      {"a\\b", "backslash"},
      {"C:\\Windows", "drive and backslash"},
      {"c:/windows", "drive letter"},
      {"%2e%2e/etc/passwd", "percent-encoded dots"},
      {"..%2f..%2fetc", "percent-encoded slash"},
      {"%252e%252e/etc", "double-encoded dots"},
      {S("a\0b", 3), "NUL inside"},
      {S("page\0", 5), "NUL at the end"},
      {"a\nb", "newline"},
      {"a\rb", "carriage return"},
      {"a\tb", "tab"},
      {"a\x7f", "DEL"},
      {"a\x1b[31m", "escape sequence"},
      {"", "empty"},
      {".", "dot"},
      {"a//b", "empty component"},
      {"a/./b", "dot component"},
      {"a/", "trailing slash"},
      {".git/config", "git folder"},
      {".git/hooks/post-commit", "git hook"},
      {".engram/config.toml", "engram folder"},
      {"notes/.hidden", "hidden file"},
      {"\xEF\xBC\x8E\xEF\xBC\x8E/etc/passwd", "fullwidth full stops U+FF0E"},
      {"..\xEF\xBC\x8F" "etc", "fullwidth solidus U+FF0F"},
      {"a\xE2\x88\x95" "b", "division slash U+2215"},
      {"a\xE2\x81\x84" "b", "fraction slash U+2044"},
      {"\xE2\x80\xA4\xE2\x80\xA4/etc", "one dot leaders U+2024"},
      {"\xE2\x80\xA5/etc", "two dot leader U+2025"},
      {"a\xEF\xBC\xBC" "b", "fullwidth reverse solidus U+FF3C"},
      {"a\xE2\x80\x8B" "b", "zero-width space U+200B"},
      {"a\xE2\x80\xAE" "b", "right-to-left override U+202E"},
      {"\xEF\xBB\xBF" "page", "byte-order mark U+FEFF"},
      {"a\xE2\x80\xA8" "b", "line separator U+2028"},
      {"a\xE3\x80\x80" "b", "ideographic space U+3000"},
      {"\xC0\xAE\xC0\xAE/etc", "overlong UTF-8 dots"},
      {"\xE0\x80\xAE", "overlong UTF-8, three bytes"},
      {"\xFF\xFE", "invalid bytes"},
      {"a\xC3", "truncated UTF-8"},
      {std::string(256, 'a'), "256 bytes"},
      {std::string(300, 'x') + "/y", "over-long path"},
      {"a b", "space"},
      {"~/notes", "home tilde"},
      {"a*b", "glob star"},
      {"a?b", "glob question mark"},
      {"$(rm -rf ~)", "command substitution"},
      {"a;b", "semicolon"},
      {"a|b", "pipe"},
      {"<script>", "angle brackets"},
      {"a:b", "colon (alternate data stream)"},
  };
  ASSERT_GE(hostile.size(), 40u);
  for (const auto& [slug, what] : hostile) {
    Status s = CheckRemoteSlug(slug);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << what;
    EXPECT_NE(s.message().find("slug"), std::string::npos) << what << ": " << s.message();
  }
}

TEST(Trust, OrdinarySlugsPass) {
  for (const char* slug : {"people/zhang-san", "people/张三", "concepts/retrieval-augmented-generation.md",
                           "notes/2026-04-07_meeting", "日本語/テスト", "a.b/c_d", "x", "Café/Ölkanne"}) {
    EXPECT_TRUE(CheckRemoteSlug(slug).ok()) << slug << ": " << CheckRemoteSlug(slug).message();
  }
  EXPECT_TRUE(CheckRemoteSlug(std::string(255, 'a')).ok());
}

class TrustFs : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path() / "brain";
    outside_ = dir_.path() / "outside";
    fs::create_directories(root_ / "notes");
    fs::create_directories(outside_);
    WriteFile(root_ / "notes/real.md", "# real\n");
    WriteFile(outside_ / "secret.md", "# secret\n");
    fs::create_directory_symlink(outside_, root_ / "out");                  // parent escaping
    fs::create_directory_symlink(root_ / "notes", root_ / "in");            // parent staying inside
    fs::create_symlink(outside_ / "secret.md", root_ / "notes/leak.md");    // final, escaping
    fs::create_symlink(root_ / "notes/real.md", root_ / "notes/alias.md");  // final, inside
    fs::create_symlink("/nonexistent/x.md", root_ / "notes/dangling.md");   // final, dangling
    fs::create_directory_symlink("../../outside", root_ / "notes/up");      // relative, escaping
    fs::create_directory_symlink(root_ / "out", root_ / "chain");           // link to a link out
  }
  TempDir dir_;
  fs::path root_, outside_;
};

TEST_F(TrustFs, SymlinkTricks) {
  const std::vector<std::pair<std::string, StatusCode>> cases = {
      {"out/secret.md", StatusCode::kPermissionDenied},
      {"out/new.md", StatusCode::kPermissionDenied},
      {"notes/leak.md", StatusCode::kPermissionDenied},
      {"notes/alias.md", StatusCode::kPermissionDenied},
      {"notes/dangling.md", StatusCode::kPermissionDenied},
      {"notes/up/secret.md", StatusCode::kPermissionDenied},
      {"chain/secret.md", StatusCode::kPermissionDenied},
      {"in/real.md", StatusCode::kOk},
      {"notes/real.md", StatusCode::kOk},
      {"notes/new/deeper/page.md", StatusCode::kOk},
  };
  for (const auto& [rel, code] : cases) {
    auto r = ResolveInsideRoot(root_, rel);
    EXPECT_EQ(r.ok() ? StatusCode::kOk : r.status().code(), code) << rel;
    if (r.ok()) {
      EXPECT_EQ(r->string().rfind(fs::canonical(root_).string(), 0), 0u) << rel;
    } else {
      EXPECT_NE(r.status().message().find(rel), std::string::npos) << r.status().message();
    }
  }
  // A brain reached through a symlinked root is still itself.
  fs::create_directory_symlink(root_, dir_.path() / "via");
  auto r = ResolveInsideRoot(dir_.path() / "via", "notes/real.md");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, fs::canonical(root_) / "notes/real.md");
}

TEST_F(TrustFs, RemoteCallersThroughTheBrain) {
  ASSERT_TRUE(Brain::Init(root_).ok());
  auto brain = Brain::Open(root_);
  ASSERT_TRUE(brain.ok()) << brain.status().ToString();
  OperationContext local;
  OperationContext remote{true, "test", "agent"};
  // Writes through an escaping folder never land outside.
  auto put = (*brain)->Put(remote, "out/planted", "# planted\n");
  EXPECT_EQ(put.status().code(), StatusCode::kPermissionDenied);
  EXPECT_FALSE(fs::exists(outside_ / "planted.md"));
  put = (*brain)->Put(remote, "notes/leak", "# overwrite the target\n");
  EXPECT_EQ(put.status().code(), StatusCode::kPermissionDenied);
  std::ifstream secret(outside_ / "secret.md");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(secret), {}), "# secret\n");
  EXPECT_EQ((*brain)->Put(remote, ".engram/config", "x").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ((*brain)->Put(remote, "..\xEF\xBC\x8F" "x", "x").status().code(), StatusCode::kInvalidArgument);
  // An ordinary remote write works.
  ASSERT_TRUE((*brain)->Put(remote, "notes/agent-note", "# Agent note\nhello\n").ok());
  EXPECT_TRUE(fs::exists(root_ / "notes/agent-note.md"));
  // Private pages read as not found, and cannot be overwritten or deleted.
  ASSERT_TRUE((*brain)->Put(local, "notes/diary", "---\nvisibility: private\n---\nmine\n").ok());
  EXPECT_EQ((*brain)->Get(remote, "notes/diary").status().code(), StatusCode::kNotFound);
  EXPECT_EQ((*brain)->Put(remote, "notes/diary", "# mine now\n").status().code(), StatusCode::kNotFound);
  EXPECT_EQ((*brain)->Delete(remote, "notes/diary").code(), StatusCode::kNotFound);
  EXPECT_TRUE((*brain)->Get(local, "notes/diary").ok());
  auto listed = (*brain)->List(remote, {});
  ASSERT_TRUE(listed.ok());
  for (const auto& p : *listed) EXPECT_NE(p.slug, "notes/diary");
  // Local-only operations.
  EXPECT_EQ((*brain)->Import(remote, outside_, false).status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ((*brain)->Hooks(remote, "install").status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ((*brain)->Check(remote, false).status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ((*brain)->AuditLog(remote, 10).status().code(), StatusCode::kPermissionDenied);
}

}  // namespace
}  // namespace engram::ops
