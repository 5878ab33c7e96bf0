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
#include "ops/operations.h"
#include "ops/trust.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/rooted_dir.h"
#include "test_support.h"
#include "ops/page_module.h"
#include "ops/sync_module.h"

namespace engram::ops {
namespace {

ops::PageModule& PagesOf(Brain& brain) { return brain.Module<ops::PageModule>(); }
ops::SyncModule& SyncOf(Brain& brain) { return brain.Module<ops::SyncModule>(); }

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
  // Remote callers never pass a link, whether it stays inside or not; both
  // ways of resolving (openat2 and the O_NOFOLLOW walk) agree.
  const std::vector<std::pair<std::string, StatusCode>> cases = {
      {"out/secret.md", StatusCode::kPermissionDenied},
      {"out/new.md", StatusCode::kPermissionDenied},
      {"notes/leak.md", StatusCode::kPermissionDenied},
      {"notes/alias.md", StatusCode::kPermissionDenied},
      {"notes/dangling.md", StatusCode::kPermissionDenied},
      {"notes/up/secret.md", StatusCode::kPermissionDenied},
      {"chain/secret.md", StatusCode::kPermissionDenied},
      {"in/real.md", StatusCode::kPermissionDenied},
      {"notes/real.md", StatusCode::kOk},
      {"notes/new/deeper/page.md", StatusCode::kOk},
  };
  for (bool openat2 : {true, false}) {
    common::RootedDir::UseOpenat2ForTesting(openat2);
    auto dir = common::RootedDir::Open(root_, common::RootedDir::Links::kRefuse);
    ASSERT_TRUE(dir.ok());
    for (const auto& [rel, code] : cases) {
      Status st = (*dir)->WriteFile(rel, "# written\n", true);
      EXPECT_EQ(st.code(), code) << rel << " openat2=" << openat2 << ": " << st.ToString();
      if (!st.ok()) {
        EXPECT_NE(st.message().find(rel.substr(0, rel.find('/'))), std::string::npos) << st.message();
      }
      auto read = (*dir)->ReadFile(rel, 1 << 20);
      EXPECT_EQ(read.ok() ? StatusCode::kOk : read.status().code(), code) << rel;
    }
  }
  common::RootedDir::UseOpenat2ForTesting(true);
  std::ifstream secret(outside_ / "secret.md");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(secret), {}), "# secret\n");
  EXPECT_FALSE(fs::exists(outside_ / "new.md"));
  // Removing a link removes the link, never its target.
  auto dir = common::RootedDir::Open(root_, common::RootedDir::Links::kRefuse);
  ASSERT_TRUE(dir.ok());
  EXPECT_TRUE((*dir)->RemoveFile("notes/leak.md").ok());
  EXPECT_TRUE(fs::exists(outside_ / "secret.md"));
  // A brain reached through a symlinked root is still itself.
  fs::create_directory_symlink(root_, dir_.path() / "via");
  auto via = common::RootedDir::Open(dir_.path() / "via", common::RootedDir::Links::kRefuse);
  ASSERT_TRUE(via.ok());
  auto read = (*via)->ReadFile("notes/real.md", 1 << 20);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
}

TEST_F(TrustFs, LinksPlantedAtTemporaryAndFinalNamesWriteNothingOutside) {
  ASSERT_TRUE(Brain::Init(root_).ok());
  auto brain = Brain::Open(root_);
  ASSERT_TRUE(brain.ok()) << brain.status().ToString();
  OperationContext remote{true, "test", "agent"};
  OperationContext local;
  // The temporary names earlier versions used, and the final name.
  const std::string pid = std::to_string(::getpid());
  for (const std::string& name : {"notes/page.md.tmp." + pid, std::string("notes/page.md")}) {
    fs::create_symlink(outside_ / "target.md", root_ / name);
  }
  for (int i = 0; i < 3; ++i) {
    (void)PagesOf(**brain).Put(remote, "notes/page", "# page\nwritten " + std::to_string(i) + "\n");
  }
  EXPECT_FALSE(fs::exists(outside_ / "target.md"));
  // A local write replaces the link at the final name; it never writes through it.
  ASSERT_TRUE(PagesOf(**brain).Put(local, "notes/page", "# page\nlocal\n").ok());
  EXPECT_FALSE(fs::exists(outside_ / "target.md"));
  EXPECT_FALSE(fs::is_symlink(root_ / "notes/page.md"));
}

TEST_F(TrustFs, FolderSwappedForALinkDuringWritesLeavesNothingOutside) {
  ASSERT_TRUE(Brain::Init(root_).ok());
  auto brain = Brain::Open(root_);
  ASSERT_TRUE(brain.ok()) << brain.status().ToString();
  OperationContext remote{true, "test", "agent"};
  const fs::path real = root_ / "swap";
  const fs::path spare = root_ / "swap-real";
  fs::create_directories(spare);
  fs::create_directory_symlink(outside_, root_ / "swap-link");
  fs::create_directories(real);
  // Swap "swap" between a real folder and a link to outside as fast as possible.
  std::atomic<bool> stop{false};
  std::thread swapper([&] {
    for (int i = 0; i < 200000 && !stop.load(); ++i) {
      ::renameat2(AT_FDCWD, real.c_str(), AT_FDCWD, (root_ / "swap-link").c_str(), RENAME_EXCHANGE);
    }
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  int written = 0;
  for (int i = 0; i < 400 && std::chrono::steady_clock::now() < deadline; ++i) {
    if (PagesOf(**brain).Put(remote, "swap/page-" + std::to_string(i), "# swap\n").ok()) ++written;
  }
  stop = true;
  swapper.join();
  size_t outside_files = 0;
  for (const auto& e : fs::recursive_directory_iterator(outside_)) outside_files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(outside_files, 1u) << "only secret.md may be there; written inside: " << written;
}

TEST_F(TrustFs, RemoteCallersThroughTheBrain) {
  ASSERT_TRUE(Brain::Init(root_).ok());
  auto brain = Brain::Open(root_);
  ASSERT_TRUE(brain.ok()) << brain.status().ToString();
  OperationContext local;
  OperationContext remote{true, "test", "agent"};
  // Writes through an escaping folder never land outside.
  auto put = PagesOf(**brain).Put(remote, "out/planted", "# planted\n");
  EXPECT_EQ(put.status().code(), StatusCode::kPermissionDenied);
  EXPECT_FALSE(fs::exists(outside_ / "planted.md"));
  put = PagesOf(**brain).Put(remote, "notes/leak", "# overwrite the target\n");
  EXPECT_EQ(put.status().code(), StatusCode::kPermissionDenied);
  std::ifstream secret(outside_ / "secret.md");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(secret), {}), "# secret\n");
  EXPECT_EQ(PagesOf(**brain).Put(remote, ".engram/config", "x").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(PagesOf(**brain).Put(remote, "..\xEF\xBC\x8F" "x", "x").status().code(), StatusCode::kInvalidArgument);
  // An ordinary remote write works.
  ASSERT_TRUE(PagesOf(**brain).Put(remote, "notes/agent-note", "# Agent note\nhello\n").ok());
  EXPECT_TRUE(fs::exists(root_ / "notes/agent-note.md"));
  // Private pages read as not found, and cannot be overwritten or deleted.
  ASSERT_TRUE(PagesOf(**brain).Put(local, "notes/diary", "---\nvisibility: private\n---\nmine\n").ok());
  EXPECT_EQ(PagesOf(**brain).Get(remote, "notes/diary").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(PagesOf(**brain).Put(remote, "notes/diary", "# mine now\n").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(PagesOf(**brain).Delete(remote, "notes/diary").code(), StatusCode::kNotFound);
  EXPECT_TRUE(PagesOf(**brain).Get(local, "notes/diary").ok());
  auto listed = PagesOf(**brain).List(remote, {});
  ASSERT_TRUE(listed.ok());
  for (const auto& p : *listed) EXPECT_NE(p.slug, "notes/diary");
  // Local-only operations: refused by the operation layer, which is the only
  // way in for a remote caller; check, hooks and the audit log have no operation.
  OperationContext remote_admin{true, "test", "agent", Scope::kAdmin};
  EXPECT_EQ(ops::Call(**brain, remote_admin, "import", {{"dir", outside_.string()}}).status().code(),
            StatusCode::kPermissionDenied);
  EXPECT_EQ(ops::Call(**brain, remote_admin, "sync", nlohmann::json::object()).status().code(),
            StatusCode::kPermissionDenied);
  for (const char* name : {"check", "hooks", "hook", "audit", "audit_log"}) {
    EXPECT_EQ(ops::FindOperation(name), nullptr) << name << " must not be reachable remotely";
  }
}

TEST_F(TrustFs, ARemoteWriteTouchesOnlyThePageItNamesAndMaySee) {
  ASSERT_TRUE(Brain::Init(root_).ok());
  auto brain = Brain::Open(root_);
  ASSERT_TRUE(brain.ok()) << brain.status().ToString();
  OperationContext local;
  OperationContext remote{true, "test", "agent"};
  auto read = [&](const std::string& rel) {
    std::ifstream in(root_ / rel);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string diary = "---\nvisibility: private\n---\nmine\n";
  ASSERT_TRUE(PagesOf(**brain).Put(local, "notes/diary", diary).ok());
  // A frontmatter slug inside the content cannot redirect the write to a private page.
  auto put = PagesOf(**brain).Put(remote, "notes/other", "---\nslug: notes/diary\n---\ntaken over\n");
  EXPECT_FALSE(put.ok());
  EXPECT_EQ(read("notes/diary.md"), diary);
  EXPECT_FALSE(fs::exists(root_ / "notes/other.md"));
  // A file that is not an indexed page (never imported, quarantined, unreadable).
  WriteFile(root_ / "notes/raw.md", "raw\n");
  EXPECT_EQ(PagesOf(**brain).Put(remote, "notes/raw", "# mine\n").status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(read("notes/raw.md"), "raw\n");
  // A file the scope skips is not a page for anyone.
  WriteFile(root_ / "README.md", "the vault's readme\n");
  EXPECT_EQ(PagesOf(**brain).Put(remote, "README", "# readme\n").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(read("README.md"), "the vault's readme\n");
  // Another spelling of an existing name (case, width, NFC/NFD) is refused.
  ASSERT_TRUE(PagesOf(**brain).Put(local, "notes/hello", "# Hello\nowner\n").ok());
  ASSERT_TRUE(PagesOf(**brain).Put(local, "notes/caf\xC3\xA9", "# Cafe\nowner\n").ok());
  for (const std::string& variant : {std::string("notes/HELLO"), std::string("Notes/hello"),
                                     std::string("notes/\xEF\xBD\x88\xEF\xBD\x85llo"),
                                     std::string("notes/cafe\xCC\x81"), std::string("notes/CAF\xC3\x89")}) {
    auto r = PagesOf(**brain).Put(remote, variant, "# taken over\n");
    EXPECT_FALSE(r.ok()) << variant;
  }
  EXPECT_EQ(read("notes/hello.md"), "# Hello\nowner\n");
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(root_)) {
    if (e.path().string().find(".engram") == std::string::npos && e.is_regular_file() && !e.is_symlink()) ++files;
  }
  // notes/real.md, diary, raw, README, hello, café — and nothing else.
  EXPECT_EQ(files, 6u);
  // A refused write leaves nothing behind, and the brain stays importable.
  for (const char* slug : {"-", "_", "--/__"}) {
    EXPECT_FALSE(PagesOf(**brain).Put(remote, slug, "# nothing\n").ok()) << slug;
    EXPECT_FALSE(PagesOf(**brain).Put(local, slug, "# nothing\n").ok()) << slug;
  }
  EXPECT_FALSE(fs::exists(root_ / "-.md"));
  EXPECT_FALSE(fs::exists(root_ / "--"));
  EXPECT_FALSE(PagesOf(**brain).Put(remote, "new-folder/keys", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n").ok());
  EXPECT_FALSE(fs::exists(root_ / "new-folder"));
  fs::remove(root_ / "notes/raw.md");
  auto imported = SyncOf(**brain).Import(local, root_, false);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
}

}  // namespace
}  // namespace engram::ops
