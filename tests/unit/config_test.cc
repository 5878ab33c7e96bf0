#include "ops/config.h"

#include <gtest/gtest.h>
#include <stdlib.h>

namespace engram::ops {
namespace {

TEST(Config, DefaultFileParsesToTheBuiltInDefaults) {
  auto o = ParseConfig(DefaultConfigToml(), "config.toml");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  BrainOptions d;
  EXPECT_EQ(o->import_max_file_bytes, d.import_max_file_bytes);
  EXPECT_EQ(o->chunk_target_words, d.chunk_target_words);
  EXPECT_EQ(o->chunk_overlap_words, d.chunk_overlap_words);
  EXPECT_EQ(o->search_limit, d.search_limit);
  EXPECT_DOUBLE_EQ(o->bm25_k1, d.bm25_k1);
  EXPECT_DOUBLE_EQ(o->bm25_b, d.bm25_b);
  EXPECT_DOUBLE_EQ(o->title_weight, d.title_weight);
  EXPECT_EQ(o->busy_timeout_ms, d.busy_timeout_ms);
  EXPECT_EQ(o->lock_timeout_ms, d.lock_timeout_ms);
}

TEST(Config, ValuesTakeEffect) {
  auto o = ParseConfig("[search]\nlimit = 25\nbm25_k1 = 1.2\n[chunker]\ntarget_words = 100\noverlap_words = 10\n", "c");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->search_limit, 25);
  EXPECT_DOUBLE_EQ(o->bm25_k1, 1.2);
  EXPECT_EQ(o->chunk_target_words, 100);
}

TEST(Config, UnknownKeyIsAnErrorNamingFileAndLine) {
  auto o = ParseConfig("[search]\nlimit = 5\nlimt = 6\n", "brain/config.toml");
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(o.status().message().find("brain/config.toml:3"), std::string::npos) << o.status().message();
  EXPECT_NE(o.status().message().find("search.limt"), std::string::npos);
}

TEST(Config, WrongTypesAndRangesAreErrors) {
  EXPECT_FALSE(ParseConfig("[search]\nlimit = \"ten\"\n", "c").ok());
  EXPECT_FALSE(ParseConfig("[search]\nlimit = 0\n", "c").ok());
  EXPECT_FALSE(ParseConfig("[search]\nlimit = 2.5\n", "c").ok());
  EXPECT_FALSE(ParseConfig("[search]\nbm25_b = 1.5\n", "c").ok());
  EXPECT_FALSE(ParseConfig("[chunker]\ntarget_words = 100\noverlap_words = 60\n", "c").ok());
  EXPECT_FALSE(ParseConfig("limit = 3\n", "c").ok());
  EXPECT_FALSE(ParseConfig("[search\n", "c").ok());
}

TEST(Config, ScopeListsTakeEffectAndAreValidated) {
  auto o = ParseConfig("[scope]\ninclude = [\"01_Projects\"]\nexclude = [\"04_Archive\", \"00_Inbox\"]\n", "c");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->scope_include, (std::vector<std::string>{"01_Projects"}));
  EXPECT_EQ(o->scope_exclude, (std::vector<std::string>{"04_Archive", "00_Inbox"}));
  EXPECT_EQ(o->scope_skip_files.size(), 5u) << "defaults kept when not set";
  EXPECT_FALSE(ParseConfig("[scope]\nexclude = \"04_Archive\"\n", "c").ok()) << "a list is required";
  EXPECT_FALSE(ParseConfig("[scope]\nexclude = [\"../x\"]\n", "c").ok());
  EXPECT_FALSE(ParseConfig("[scope]\nexclud = []\n", "c").ok());
}

// Regression (fuzz): toml++ asserted on this in debug builds.
TEST(Config, MalformedTableHeaderIsAnError) {
  auto o = ParseConfig("[![", "config.toml");
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("config.toml:1"), std::string::npos);
}

TEST(Config, EnvironmentOverridesTheFile) {
  ::setenv("ENGRAM_SEARCH_LIMIT", "42", 1);
  BrainOptions o;
  EXPECT_TRUE(ApplyEnvironment(&o).ok());
  EXPECT_EQ(o.search_limit, 42);
  ::setenv("ENGRAM_SEARCH_LIMIT", "lots", 1);
  EXPECT_FALSE(ApplyEnvironment(&o).ok());
  ::unsetenv("ENGRAM_SEARCH_LIMIT");
}

}  // namespace
}  // namespace engram::ops
