// Bearer tokens: shown once, stored hashed, verified by id and hash, revoked
// for good; malformed tokens and a damaged file are handled.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include "common/files.h"
#include "ops/tokens.h"
#include "test_support.h"

namespace engram::ops {
namespace {

using engram::testing::TempDir;
using engram::testing::WriteFile;

TEST(Tokens, CreateVerifyRevoke) {
  TempDir dir;
  TokenStore store(dir.path() / "tokens.json");
  EXPECT_TRUE(store.List()->empty());  // no file yet
  auto reader = store.Create(Scope::kRead, "reader");
  auto writer = store.Create(Scope::kWrite, "writer");
  ASSERT_TRUE(reader.ok() && writer.ok());
  EXPECT_EQ(reader->token.rfind("engram_" + reader->info.id + "_", 0), 0u);
  EXPECT_EQ(reader->token.size(), 7u + 8 + 1 + 48);
  EXPECT_NE(reader->token, writer->token);
  // The file holds hashes, never the secrets, and only its owner may read it.
  auto text = common::ReadFile(dir.path() / "tokens.json", 1 << 20);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->find(reader->token), std::string::npos);
  EXPECT_EQ(text->find(reader->token.substr(16)), std::string::npos);
  struct stat st {};
  ASSERT_EQ(::stat((dir.path() / "tokens.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto v = store.Verify(reader->token);
  ASSERT_TRUE(v.ok() && v->has_value());
  EXPECT_EQ((*v)->scope, Scope::kRead);
  EXPECT_EQ((*v)->name, "reader");
  EXPECT_EQ((*store.Verify(writer->token))->scope, Scope::kWrite);
  // One changed character, another token's id with this secret, malformed shapes: not valid.
  std::string tampered = reader->token;
  tampered.back() = tampered.back() == 'a' ? 'b' : 'a';
  EXPECT_FALSE(store.Verify(tampered)->has_value());
  std::string swapped = "engram_" + writer->info.id + reader->token.substr(15);
  EXPECT_FALSE(store.Verify(swapped)->has_value());
  for (const char* bad : {"", "engram_", "Bearer x", "engram_zzzzzzzz_0000", "engram_00000000_XYZ"}) {
    EXPECT_FALSE(store.Verify(bad)->has_value()) << bad;
  }
  ASSERT_EQ(store.List()->size(), 2u);
  ASSERT_TRUE(store.Revoke(reader->info.id).ok());
  EXPECT_FALSE(store.Verify(reader->token)->has_value());
  EXPECT_TRUE(store.Verify(writer->token)->has_value());
  EXPECT_EQ(store.Revoke(reader->info.id).code(), StatusCode::kNotFound);
  EXPECT_EQ(store.Create(Scope::kRead, "two\nlines").status().code(), StatusCode::kInvalidArgument);
}

TEST(Tokens, DamagedFileIsAnErrorNotAnOpenDoor) {
  TempDir dir;
  WriteFile(dir.path() / "tokens.json", "{not json");
  TokenStore store(dir.path() / "tokens.json");
  EXPECT_EQ(store.List().status().code(), StatusCode::kCorruption);
  EXPECT_FALSE(store.Verify("engram_00000000_000000000000000000000000000000000000000000000000").ok());
  WriteFile(dir.path() / "tokens.json", R"({"tokens": [{"id": "x", "sha256": "y", "scope": "root"}]})");
  EXPECT_EQ(store.List().status().code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace engram::ops
