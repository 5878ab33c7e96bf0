// The "openai" provider against a loopback server the test starts: it counts
// requests and answers with injected faults (429 with Retry-After, 500s,
// time-outs, malformed JSON, wrong dimensions, 400).
#include <httplib.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "embed/embedder.h"

namespace engram::embed {
namespace {

using Json = nlohmann::json;

class FakeServer {
 public:
  // handler(request number from 0, parsed body, response) decides the answer.
  explicit FakeServer(std::function<void(int, const Json&, httplib::Response&)> handler) : handler_(std::move(handler)) {
    server_.Post("/v1/embeddings", [this](const httplib::Request& req, httplib::Response& res) {
      int n = requests_.fetch_add(1);
      auth_ = req.get_header_value("Authorization");
      handler_(n, Json::parse(req.body), res);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  int requests() const { return requests_.load(); }
  std::string auth() const { return auth_; }

 private:
  httplib::Server server_;
  std::function<void(int, const Json&, httplib::Response&)> handler_;
  std::atomic<int> requests_{0};
  std::string auth_;
  int port_ = 0;
  std::thread thread_;
};

// A correct answer: vector i of each batch is [batch size, i, first char code, 0…] with dims entries.
void Answer(const Json& body, httplib::Response& res, int dims) {
  Json data = Json::array();
  const auto& input = body["input"];
  for (size_t i = 0; i < input.size(); ++i) {
    std::vector<float> v(static_cast<size_t>(dims), 0.0f);
    v[0] = static_cast<float>(input.size());
    v[1] = static_cast<float>(i);
    v[2] = static_cast<float>(static_cast<unsigned char>(input[i].get<std::string>()[0]));
    data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", v}});
  }
  res.set_content(Json{{"object", "list"}, {"data", data}, {"model", body["model"]}}.dump(), "application/json");
}

OpenAiOptions Options(const FakeServer& s) {
  OpenAiOptions o;
  o.base_url = s.url();
  o.model = "fake-embed";
  o.backoff_ms = 1;
  o.max_backoff_ms = 5;
  o.timeout_ms = 2000;
  return o;
}

TEST(OpenAiEmbedder, BatchesByCountAndKeepsOrder) {
  FakeServer s([](int, const Json& body, httplib::Response& res) { Answer(body, res, 8); });
  OpenAiOptions o = Options(s);
  o.max_batch = 4;
  auto e = OpenOpenAiEmbedder(o);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  std::vector<std::string> texts;
  for (int i = 0; i < 10; ++i) texts.push_back(std::string(1, static_cast<char>('a' + i)));
  auto v = (*e)->Embed(texts, EmbedKind::kDocument);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(s.requests(), 3);  // 4 + 4 + 2
  ASSERT_EQ(v->size(), 80u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ((*v)[i * 8 + 2], 'a' + i);
  EXPECT_EQ((*v)[9 * 8 + 0], 2.0f);  // the last batch held two texts
  EXPECT_EQ((*e)->info().dims, 8);
}

TEST(OpenAiEmbedder, BatchesByEstimatedTokens) {
  FakeServer s([](int, const Json& body, httplib::Response& res) { Answer(body, res, 4); });
  OpenAiOptions o = Options(s);
  o.max_batch_tokens = 300;
  auto e = OpenOpenAiEmbedder(o);
  ASSERT_TRUE(e.ok());
  std::vector<std::string> texts(6, std::string(400, 'x'));  // ~101 tokens each
  auto v = (*e)->Embed(texts, EmbedKind::kDocument);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(s.requests(), 3);
  EXPECT_EQ(EstimateTokens("知识库"), 4u);
}

TEST(OpenAiEmbedder, Retries429HonouringRetryAfterAnd5xx) {
  FakeServer s([](int n, const Json& body, httplib::Response& res) {
    if (n == 0) {
      res.status = 429;
      res.set_header("Retry-After", "1");
    } else if (n == 1) {
      res.status = 503;
    } else {
      Answer(body, res, 4);
    }
  });
  auto e = OpenOpenAiEmbedder(Options(s));
  ASSERT_TRUE(e.ok());
  auto t0 = std::chrono::steady_clock::now();
  auto v = (*e)->Embed({"hello"}, EmbedKind::kQuery);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(s.requests(), 3);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(950));  // Retry-After: 1
}

TEST(OpenAiEmbedder, NeverRetriesOther4xx) {
  FakeServer s([](int, const Json&, httplib::Response& res) {
    res.status = 400;
    res.set_content(R"({"error":{"message":"bad model"}})", "application/json");
  });
  auto e = OpenOpenAiEmbedder(Options(s));
  ASSERT_TRUE(e.ok());
  auto v = (*e)->Embed({"hello"}, EmbedKind::kDocument);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(s.requests(), 1);
  EXPECT_NE(v.status().message().find("bad model"), std::string::npos);
}

TEST(OpenAiEmbedder, GivesUpAfterMaxRetriesNamingTheLastError) {
  FakeServer s([](int, const Json&, httplib::Response& res) { res.status = 500; });
  OpenAiOptions o = Options(s);
  o.max_retries = 2;
  auto e = OpenOpenAiEmbedder(o);
  ASSERT_TRUE(e.ok());
  auto v = (*e)->Embed({"hello"}, EmbedKind::kDocument);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(s.requests(), 3);
  EXPECT_NE(v.status().message().find("HTTP 500"), std::string::npos) << v.status().message();
}

TEST(OpenAiEmbedder, TimesOutAndRetries) {
  FakeServer s([](int n, const Json& body, httplib::Response& res) {
    if (n == 0) std::this_thread::sleep_for(std::chrono::milliseconds(700));
    Answer(body, res, 4);
  });
  OpenAiOptions o = Options(s);
  o.timeout_ms = 200;
  auto e = OpenOpenAiEmbedder(o);
  ASSERT_TRUE(e.ok());
  auto v = (*e)->Embed({"hello"}, EmbedKind::kDocument);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(s.requests(), 2);
}

TEST(OpenAiEmbedder, MalformedAnswersAreClearErrors) {
  for (std::string body : {std::string("not json"), std::string(R"({"data": 5})"), std::string(R"({"data": []})"),
                           std::string(R"({"data": [{"index": 7, "embedding": [1,2]}]})"),
                           std::string(R"({"data": [{"embedding": ["x"]}]})"),
                           // A hostile server nesting deep enough to exhaust the stack.
                           "{\"data\": " + std::string(200000, '[') + std::string(200000, ']') + "}"}) {
    FakeServer s([&](int, const Json&, httplib::Response& res) { res.set_content(body, "application/json"); });
    auto e = OpenOpenAiEmbedder(Options(s));
    ASSERT_TRUE(e.ok());
    auto v = (*e)->Embed({"hello"}, EmbedKind::kDocument);
    EXPECT_FALSE(v.ok()) << body.substr(0, 80);
    EXPECT_NE(v.status().message().find("answered badly"), std::string::npos) << v.status().message();
  }
}

TEST(OpenAiEmbedder, WrongDimensionIsRefused) {
  FakeServer s([](int, const Json& body, httplib::Response& res) { Answer(body, res, 16); });
  OpenAiOptions o = Options(s);
  o.expected_dims = 8;
  auto e = OpenOpenAiEmbedder(o);
  ASSERT_TRUE(e.ok());
  auto v = (*e)->Embed({"hello"}, EmbedKind::kDocument);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("16 dimensions"), std::string::npos);
  EXPECT_NE(v.status().message().find("engram embed --all"), std::string::npos);
}

TEST(OpenAiEmbedder, SendsDimensionsAndTheKeyFromTheNamedVariable) {
  Json seen;
  FakeServer s([&](int, const Json& body, httplib::Response& res) {
    seen = body;
    Answer(body, res, 4);
  });
  OpenAiOptions o = Options(s);
  o.dimensions = 4;
  o.api_key_env = "ENGRAM_TEST_EMBED_KEY";
  EXPECT_FALSE(OpenOpenAiEmbedder(o).ok());  // variable not set
  ::setenv("ENGRAM_TEST_EMBED_KEY", "sk-test", 1);
  auto e = OpenOpenAiEmbedder(o);
  ASSERT_TRUE(e.ok());
  ASSERT_TRUE((*e)->Embed({"hello"}, EmbedKind::kDocument).ok());
  EXPECT_EQ(seen["dimensions"], 4);
  EXPECT_EQ(seen["model"], "fake-embed");
  EXPECT_EQ(s.auth(), "Bearer sk-test");
  ::unsetenv("ENGRAM_TEST_EMBED_KEY");
}

TEST(OpenAiEmbedder, ClientSideRateLimit) {
  FakeServer s([](int, const Json& body, httplib::Response& res) { Answer(body, res, 4); });
  OpenAiOptions o = Options(s);
  o.max_batch = 1;
  o.requests_per_minute = 600;  // one request per 100 ms
  auto e = OpenOpenAiEmbedder(o);
  ASSERT_TRUE(e.ok());
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE((*e)->Embed({"a", "b", "c", "d"}, EmbedKind::kDocument).ok());
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(290));
}

TEST(OpenAiEmbedder, BadConfigurationIsNamed) {
  OpenAiOptions o;
  o.model = "m";
  o.base_url = "ftp://x";
  EXPECT_FALSE(OpenOpenAiEmbedder(o).ok());
  o.base_url = "http://127.0.0.1:1/v1";
  o.model = "";
  EXPECT_FALSE(OpenOpenAiEmbedder(o).ok());
  // Nothing listens on port 1: a connection error, retried, then Unavailable.
  o.model = "m";
  o.max_retries = 1;
  o.backoff_ms = 1;
  auto e = OpenOpenAiEmbedder(o);
  ASSERT_TRUE(e.ok());
  auto v = (*e)->Embed({"x"}, EmbedKind::kDocument);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace engram::embed
