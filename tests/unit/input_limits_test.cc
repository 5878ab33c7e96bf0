// Limits on outside input (issue 12): deep nesting and oversized text are
// refused before anything recurses over them, in every parser of JSON from
// outside (HTTP bodies and JSON-RPC, model files) and in the config parser;
// and the request guard of `engram serve` (Host, Origin, content type).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "common/json_limits.h"
#include "embed/model_config.h"
#include "embed/safetensors.h"
#include "embed/wordpiece.h"
#include "ops/toml_subset.h"
#include "server/mcp.h"
#include "server/request_guard.h"
#include "test_support.h"

namespace engram {
namespace {

using Json = nlohmann::json;

// 400 KB of nesting: far beyond what any stack survives when a value is
// copied or dumped one level per call.
std::string Deep(size_t n = 200000) { return std::string(n, '[') + std::string(n, ']'); }

TEST(JsonLimits, NestingDepthCountsArraysAndObjectsNotStrings) {
  EXPECT_EQ(common::JsonNestingDepth("1"), 0u);
  EXPECT_EQ(common::JsonNestingDepth("{\"a\": [1, {\"b\": []}]}"), 4u);
  EXPECT_EQ(common::JsonNestingDepth("[\"[[[[{{{{\"]"), 1u);
  EXPECT_EQ(common::JsonNestingDepth("[\"\\\"[[[[\"]"), 1u);      // an escaped quote does not end the string
  EXPECT_EQ(common::JsonNestingDepth("[\"\\\\\", [[]]]"), 3u);     // an escaped backslash does
  EXPECT_EQ(common::JsonNestingDepth("[[]] [[[]]]"), 3u);
  EXPECT_EQ(common::JsonNestingDepth(Deep(), 64), 65u);           // stops counting past the limit
}

TEST(JsonLimits, DeepNestingAndSizeAreRefused) {
  EXPECT_TRUE(common::CheckJsonLimits(std::string(64, '[') + std::string(64, ']'), "x").ok());
  Status deep = common::CheckJsonLimits(std::string(65, '[') + std::string(65, ']'), "the body");
  EXPECT_EQ(deep.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(deep.message().find("the body nests deeper than 64"), std::string::npos) << deep.message();
  EXPECT_EQ(common::CheckJsonLimits("[1,2,3]", "x", 64, 5).code(), StatusCode::kInvalidArgument);
}

TEST(McpSession, DeeplyNestedArgumentsAreAnErrorNotACrash) {
  OperationContext ctx;
  ctx.remote = true;
  ctx.scope = Scope::kWrite;
  server::McpSession session([](const auto&) -> Result<Json> { return Json::object(); }, ctx);
  const std::string message = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"search\","
                              "\"arguments\":" + Deep() + "}}";
  std::optional<Json> r = session.HandleText(message);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)["error"]["code"], -32600);
  EXPECT_NE((*r)["error"]["message"].get<std::string>().find("deeper than"), std::string::npos);
  // The session still answers.
  r = session.HandleText("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)["id"], 2);
}

TEST(ModelFiles, DeeplyNestedConfigIsAnErrorNotACrash) {
  testing::TempDir dir;
  // The field's value is rendered into the error message: without the
  // limit that dump recursed 200,000 levels deep.
  testing::WriteFile(dir.path() / "config.json", "{\"model_type\": \"bert\", \"vocab_size\": " + Deep() + "}");
  testing::WriteFile(dir.path() / "vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\na\nb\nc\n");
  auto spec = embed::LoadModelSpec(dir.path());
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find("deeper than"), std::string::npos) << spec.status().message();
}

TEST(ModelFiles, DeeplyNestedTokenizerJsonAndSafetensorsHeaderAreErrors) {
  testing::TempDir dir;
  testing::WriteFile(dir.path() / "tokenizer.json", "{\"model\": {\"type\": \"WordPiece\", \"vocab\": " + Deep() + "}}");
  auto t = embed::WordPieceTokenizer::FromTokenizerJson(dir.path() / "tokenizer.json", {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("deeper than"), std::string::npos) << t.status().message();

  const std::string header = "{\"__metadata__\": " + Deep(5000) + "}";
  std::string file(8, '\0');
  for (int i = 0; i < 8; ++i) file[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  file += header;
  auto st = embed::SafeTensors::FromBytes(file, "deep.safetensors");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.status().message().find("deeper than"), std::string::npos) << st.status().message();
}

TEST(TomlSubset, ATextOverTheSizeLimitIsRefused) {
  std::string text = "[search]\n";
  while (text.size() <= ops::kMaxTomlBytes) text += "# " + std::string(1000, 'x') + "\n";
  auto r = ops::ParseTomlSubset(text, "big.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("over the limit"), std::string::npos) << r.status().message();
  EXPECT_TRUE(ops::ParseTomlSubset("[search]\nlimit = 5\n", "small.toml").ok());
}

TEST(RequestGuard, HostMustNameThisServer) {
  server::HostPolicy policy;
  policy.allowed_hosts = {"brain.lan"};
  for (const char* ok : {"", "localhost", "localhost:8765", "LOCALHOST.", "127.0.0.1:8765", "127.9.9.9", "[::1]:8765",
                         "brain.lan", "Brain.LAN:80", "192.168.1.5:8765"}) {
    EXPECT_TRUE(server::CheckHost(ok, "192.168.1.5", policy).ok()) << ok;
  }
  for (const char* bad : {"evil.example", "evil.example:8765", "localhost.evil.example", "127.0.0.1.evil.example",
                          "127.evil.example", "brain.lan.evil.example", "192.168.1.6", "[::2]", "local host",
                          "localhost:99999", "localhost:", "[::1"}) {
    Status st = server::CheckHost(bad, "192.168.1.5", policy);
    EXPECT_EQ(st.code(), StatusCode::kPermissionDenied) << bad;
  }
}

TEST(RequestGuard, OriginIsComparedParsedNeverByPrefix) {
  server::HostPolicy policy;
  policy.allowed_origins = {"https://notes.example"};
  for (const char* ok : {"", "http://localhost", "http://localhost:6274", "http://127.0.0.1:3000", "http://[::1]:8765",
                         "https://notes.example", "https://notes.example:443"}) {
    EXPECT_TRUE(server::CheckOrigin(ok, "127.0.0.1:8765", policy).ok()) << ok;
  }
  for (const char* bad : {"http://localhost.evil.example", "http://127.0.0.1.evil.example:8765", "http://localhost@evil.example",
                          "null", "file://", "ftp://localhost", "https://evil.example", "http://notes.example",
                          "https://notes.example:8443", "https://notes.example.evil", "http://localhost/path",
                          "http://evil.example:8765"}) {
    EXPECT_EQ(server::CheckOrigin(bad, "127.0.0.1:8765", policy).code(), StatusCode::kPermissionDenied) << bad;
  }
  // Same origin: a page the server itself served under an allowed name.
  EXPECT_TRUE(server::CheckOrigin("http://brain.lan:8765", "brain.lan:8765", policy).ok());
  EXPECT_FALSE(server::CheckOrigin("http://brain.lan:8766", "brain.lan:8765", policy).ok());
  EXPECT_FALSE(server::CheckOrigin("https://brain.lan:8765", "brain.lan", policy).ok());
}

TEST(RequestGuard, OnlyJsonContentTypesCount) {
  EXPECT_TRUE(server::IsJsonContentType("application/json"));
  EXPECT_TRUE(server::IsJsonContentType("Application/JSON; charset=utf-8"));
  EXPECT_TRUE(server::IsJsonContentType(" application/json ;charset=utf-8"));
  for (const char* bad : {"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                          "application/jsonp", "text/plain; application/json", "application/json-seq"}) {
    EXPECT_FALSE(server::IsJsonContentType(bad)) << bad;
  }
}

}  // namespace
}  // namespace engram
