#include "ops/config.h"

#include <gtest/gtest.h>
#include <stdlib.h>

namespace engram::ops {
namespace {

TEST(Config, DefaultFileParsesToTheBuiltInDefaults) {
  auto o = ParseConfig(DefaultConfigToml(), "config.toml");
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  BrainOptions d;
  EXPECT_EQ(o->import.max_file_bytes, d.import.max_file_bytes);
  EXPECT_EQ(o->chunker.target_words, d.chunker.target_words);
  EXPECT_EQ(o->chunker.overlap_words, d.chunker.overlap_words);
  EXPECT_EQ(o->search.limit, d.search.limit);
  EXPECT_DOUBLE_EQ(o->search.bm25_k1, d.search.bm25_k1);
  EXPECT_DOUBLE_EQ(o->search.bm25_b, d.search.bm25_b);
  EXPECT_DOUBLE_EQ(o->search.title_weight, d.search.title_weight);
  EXPECT_EQ(o->store.busy_timeout_ms, d.store.busy_timeout_ms);
  EXPECT_EQ(o->store.lock_timeout_ms, d.store.lock_timeout_ms);
}

TEST(Config, ValuesTakeEffect) {
  auto o = ParseConfig("[search]\nlimit = 25\nbm25_k1 = 1.2\n[chunker]\ntarget_words = 100\noverlap_words = 10\n", "c");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->search.limit, 25);
  EXPECT_DOUBLE_EQ(o->search.bm25_k1, 1.2);
  EXPECT_EQ(o->chunker.target_words, 100);
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
  EXPECT_EQ(o->scope.include, (std::vector<std::string>{"01_Projects"}));
  EXPECT_EQ(o->scope.exclude, (std::vector<std::string>{"04_Archive", "00_Inbox"}));
  EXPECT_EQ(o->scope.skip_files.size(), 5u) << "defaults kept when not set";
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
  EXPECT_EQ(o.search.limit, 42);
  ::setenv("ENGRAM_SEARCH_LIMIT", "lots", 1);
  EXPECT_FALSE(ApplyEnvironment(&o).ok());
  ::unsetenv("ENGRAM_SEARCH_LIMIT");
}

// Each section checks itself (defaults are valid); the brain's Validate()
// runs them all and adds what spans sections.
TEST(Config, EachSectionValidatesItself) {
  BrainOptions o;
  EXPECT_TRUE(o.Validate().ok());
  EmbeddingOptions e;
  e.provider = "bert";
  EXPECT_NE(e.Validate().message().find("embedding.model"), std::string::npos);
  e.model = "bge-small-zh-v1.5";
  e.precision = "fp8";
  EXPECT_NE(e.Validate().message().find("embedding.precision"), std::string::npos);
  PagesOptions p;
  p.title = "h1";
  EXPECT_NE(p.Validate().message().find("pages.title"), std::string::npos);
  ChunkerOptions c;
  c.overlap_words = c.target_words;
  EXPECT_NE(c.Validate().message().find("chunker.overlap_words"), std::string::npos);
  SearchSettings s;
  s.mode = "fuzzy";
  EXPECT_NE(s.Validate().message().find("search.mode"), std::string::npos);
  GitOptions g;
  g.message = "two\nlines";
  EXPECT_NE(g.Validate().message().find("git.message"), std::string::npos);
  QuarantineOptions q;
  q.disable = {"no_such_rule"};
  EXPECT_NE(q.Validate().message().find("quarantine.disable"), std::string::npos);
  GraphOptions gr;
  EXPECT_TRUE(gr.Validate().ok());
  gr.single_valued = {"role", "works at"};
  EXPECT_NE(gr.Validate().message().find("graph.single_valued: \"works at\""), std::string::npos);
  gr = GraphOptions();
  gr.entity_types = {""};
  EXPECT_NE(gr.Validate().message().find("graph.entity_types"), std::string::npos);
  ServerOptions v;
  v.allowed_origins = {"example.com"};
  EXPECT_NE(v.Validate().message().find("server.allowed_origins"), std::string::npos);
  // Issue 32: entries that are not host names, and an LLM server that is not an http(s) URL.
  for (const char* host : {"exa mple.com", "-bad.com", "a..b", "foo_bar", "host!", "*.example.com", "例子.cn",
                           "safety-knowledge:8004", "http://x"}) {
    ServerOptions h;
    h.allowed_hosts = {host};
    EXPECT_NE(h.Validate().message().find("server.allowed_hosts"), std::string::npos) << host;
  }
  for (const char* host : {"safety-knowledge", "localhost", "kb.internal.example.com", "10.0.0.7"}) {
    ServerOptions h;
    h.allowed_hosts = {host};
    EXPECT_TRUE(h.Validate().ok()) << host << ": " << h.Validate().ToString();
  }
  for (const char* url : {"ftp://llm.local/v1", "file:///etc/passwd", "127.0.0.1:8080/v1", "http://user:pw@h/v1", ""}) {
    LlmOptions l;
    l.base_url = url;
    EXPECT_NE(l.Validate().message().find("llm.base_url"), std::string::npos) << url;
  }
  ScopeOptions sc;
  sc.include = {"../outside"};
  EXPECT_FALSE(sc.Validate().ok());
  o.search.expansion = 1;
  EXPECT_NE(o.Validate().message().find("llm.model"), std::string::npos) << "spans [search] and [llm]";
  o.llm.model = "qwen";
  EXPECT_TRUE(o.Validate().ok());
}

}  // namespace
}  // namespace engram::ops
