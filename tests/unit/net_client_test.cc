// net::OpenAiClient against a loopback server the test starts: retries,
// Retry-After, the time budget, the error mapping (the key never shown),
// limits on answers, and the client-side rate limit. Waits are recorded
// through ClientOptions::sleep instead of slept, so nothing here times
// anything: attempts are counted and the requested waits inspected.
#include <httplib.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "net/base_url.h"
#include "net/http_errors.h"
#include "net/openai_client.h"

namespace engram::net {
namespace {

using Json = nlohmann::json;
using Ms = std::chrono::milliseconds;

class FakeServer {
 public:
  // handler(request number from 0, request, response) decides the answer.
  explicit FakeServer(std::function<void(int, const httplib::Request&, httplib::Response&)> handler)
      : handler_(std::move(handler)) {
    server_.Post("/v1/things", [this](const httplib::Request& req, httplib::Response& res) {
      const int n = requests_.fetch_add(1);
      {
        std::lock_guard<std::mutex> lock(mu_);
        auth_ = req.get_header_value("Authorization");
        body_ = req.body;
      }
      handler_(n, req, res);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(Ms(1));
  }
  ~FakeServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1/"; }
  int requests() const { return requests_.load(); }
  std::string auth() const {
    std::lock_guard<std::mutex> lock(mu_);
    return auth_;
  }
  std::string body() const {
    std::lock_guard<std::mutex> lock(mu_);
    return body_;
  }

 private:
  httplib::Server server_;
  std::function<void(int, const httplib::Request&, httplib::Response&)> handler_;
  std::atomic<int> requests_{0};
  mutable std::mutex mu_;
  std::string auth_, body_;
  int port_ = 0;
  std::thread thread_;
};

void Ok(httplib::Response& res) { res.set_content(R"({"ok":true})", "application/json"); }

// Options whose waits are recorded, not slept.
struct Recorded {
  std::shared_ptr<std::vector<Ms>> waits = std::make_shared<std::vector<Ms>>();
  ClientOptions options;
  explicit Recorded(const std::string& url) {
    options.base_url = url;
    options.section = "[test]";
    options.service = "test server";
    options.timeout_ms = 5000;
    options.max_retries = 3;
    options.backoff_ms = 10;
    options.max_backoff_ms = 40;
    auto w = waits;
    options.sleep = [w](Ms d) { w->push_back(d); };
  }
};

std::unique_ptr<OpenAiClient> Open(ClientOptions o) {
  auto c = OpenAiClient::Open(std::move(o));
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::move(*c) : nullptr;
}

bool Has(const Status& s, std::string_view what) { return s.message().find(what) != std::string::npos; }

TEST(NetClient, RetriesServerErrorsThenSucceeds) {
  FakeServer s([](int n, const httplib::Request&, httplib::Response& res) {
    if (n < 2) {
      res.status = n == 0 ? 503 : 500;
      return;
    }
    Ok(res);
  });
  Recorded r(s.url());
  auto c = Open(r.options);
  auto j = c->PostJson("/things", Json{{"q", 1}});
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  EXPECT_EQ((*j)["ok"], true);
  EXPECT_EQ(s.requests(), 3);
  ASSERT_EQ(r.waits->size(), 2u);  // one backoff before each retry, within [½, 1] of 10 ms then 20 ms
  EXPECT_LE((*r.waits)[0], Ms(10));
  EXPECT_GE((*r.waits)[1], Ms(10));
  EXPECT_LE((*r.waits)[1], Ms(20));
  EXPECT_EQ(Json::parse(s.body()), (Json{{"q", 1}}));
}

TEST(NetClient, HonoursRetryAfterInSecondsAndAsADate) {
  for (std::string retry_after : {std::string("3"), std::string("Wed, 21 Oct 2099 07:28:00 GMT")}) {
    FakeServer s([&](int n, const httplib::Request&, httplib::Response& res) {
      if (n == 0) {
        res.status = 429;
        res.set_header("Retry-After", retry_after);
        res.set_content(R"({"error":{"message":"slow down"}})", "application/json");
        return;
      }
      Ok(res);
    });
    Recorded r(s.url());
    auto j = Open(r.options)->PostJson("/things", Json::object());
    ASSERT_TRUE(j.ok()) << j.status().ToString();
    EXPECT_EQ(s.requests(), 2);
    ASSERT_EQ(r.waits->size(), 1u);
    // The server's wait (capped at 300 s for the far date), not the 10 ms backoff.
    EXPECT_EQ(r.waits->front(), retry_after == "3" ? Ms(3000) : Ms(300000)) << retry_after;
  }
}

TEST(NetClient, RetryAfterPastTheBudgetGivesUpAtOnce) {
  FakeServer s([](int, const httplib::Request&, httplib::Response& res) {
    res.status = 429;
    res.set_header("Retry-After", "30");
  });
  Recorded r(s.url());
  r.options.budget_ms = 3000;
  auto j = Open(r.options)->PostJson("/things", Json::object());
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.requests(), 1);
  EXPECT_TRUE(r.waits->empty());
  EXPECT_TRUE(Has(j.status(), "HTTP 429")) << j.status().message();
  EXPECT_TRUE(Has(j.status(), "Retry-After")) << j.status().message();
  EXPECT_TRUE(Has(j.status(), "gave up after 1 attempt")) << j.status().message();
}

TEST(NetClient, GivesUpAfterMaxRetriesNamingTheLastError) {
  FakeServer s([](int, const httplib::Request&, httplib::Response& res) {
    res.status = 502;
    res.set_content("<html>bad\ngateway</html>", "text/html");
  });
  Recorded r(s.url());
  r.options.max_retries = 2;
  auto j = Open(r.options)->PostJson("/things", Json::object());
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.requests(), 3);
  EXPECT_EQ(j.status().message(),
            "test server " + s.url().substr(0, s.url().size() - 1) +
                "/things: HTTP 502: <html>bad gateway</html> (gave up after 3 attempts)");
}

TEST(NetClient, UnauthorizedIsNotRetriedAndNeverShowsTheKey) {
  const std::string key = "sk-test-0123456789abcdef";
  ::setenv("ENGRAM_TEST_NET_KEY", key.c_str(), 1);
  FakeServer s([&](int, const httplib::Request&, httplib::Response& res) {
    res.status = 401;
    res.set_content(Json{{"error", {{"message", "Incorrect API key provided: " + key + "."}}}}.dump(),
                    "application/json");
  });
  Recorded r(s.url());
  r.options.api_key_env = "ENGRAM_TEST_NET_KEY";
  r.options.api_key_required = true;
  auto j = Open(r.options)->PostJson("/things", Json::object());
  ::unsetenv("ENGRAM_TEST_NET_KEY");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(s.requests(), 1);
  EXPECT_TRUE(r.waits->empty());
  EXPECT_EQ(s.auth(), "Bearer " + key);
  EXPECT_EQ(j.status().code(), StatusCode::kFailedPrecondition);
  const std::string& m = j.status().message();
  EXPECT_EQ(m.find(key), std::string::npos) << m;
  EXPECT_EQ(m.find("0123456789"), std::string::npos) << m;
  EXPECT_TRUE(Has(j.status(), "test server http://127.0.0.1:")) << m;
  EXPECT_TRUE(Has(j.status(), "/v1/things: HTTP 401: Incorrect API key provided: [redacted].")) << m;
  EXPECT_TRUE(Has(j.status(), "ENGRAM_TEST_NET_KEY")) << m;
}

TEST(NetClient, ClientErrorsMapToOneCodeEachAndAreNotRetried) {
  struct Case {
    int status;
    std::string body;
    StatusCode code;
    std::string said;
  };
  for (const Case& c : std::vector<Case>{
           {400, R"({"error":{"message":"bad model"}})", StatusCode::kInvalidArgument, "HTTP 400: bad model"},
           {422, R"({"detail":[{"loc":["body"],"msg":"field required"}]})", StatusCode::kInvalidArgument,
            "HTTP 422: field required"},
           {413, R"({"error":"input too long"})", StatusCode::kInvalidArgument, "HTTP 413: input too long"},
           {404, R"({"message":"no such model"})", StatusCode::kFailedPrecondition, "[test] base_url"},
           {403, "", StatusCode::kFailedPrecondition, "no API key was sent"},
       }) {
    FakeServer s([&](int, const httplib::Request&, httplib::Response& res) {
      res.status = c.status;
      if (!c.body.empty()) res.set_content(c.body, "application/json");
    });
    Recorded r(s.url());
    auto j = Open(r.options)->PostJson("/things", Json::object());
    ASSERT_FALSE(j.ok());
    EXPECT_EQ(s.requests(), 1) << c.status;
    EXPECT_EQ(j.status().code(), c.code) << c.status;
    EXPECT_TRUE(Has(j.status(), c.said)) << j.status().message();
  }
}

TEST(NetClient, OversizeDeepAndMalformedAnswersAreRefused) {
  struct Case {
    std::string body;
    bool chunked;
    std::string said;
  };
  for (const Case& c : std::vector<Case>{
           {std::string(5000, ' ') + "{}", false, "larger than 4096 bytes"},
           {std::string(5000, ' ') + "{}", true, "larger than 4096 bytes"},
           {std::string(100, '[') + std::string(100, ']'), false, "nests deeper than 64 levels"},
           {"not json", false, "the answer is not JSON"},
           {R"({"truncated": )", false, "the answer is not JSON"},
       }) {
    FakeServer s([&](int, const httplib::Request&, httplib::Response& res) {
      if (!c.chunked) {
        res.set_content(c.body, "application/json");
        return;
      }
      res.set_chunked_content_provider("application/json", [&](size_t offset, httplib::DataSink& sink) {
        if (offset >= c.body.size()) {
          sink.done();
          return true;
        }
        return sink.write(c.body.data() + offset, std::min<size_t>(100, c.body.size() - offset));
      });
    });
    Recorded r(s.url());
    r.options.max_response_bytes = 4096;
    auto j = Open(r.options)->PostJson("/things", Json::object());
    ASSERT_FALSE(j.ok()) << c.body.substr(0, 40);
    EXPECT_EQ(s.requests(), 1);
    EXPECT_EQ(j.status().code(), StatusCode::kUnavailable);
    EXPECT_TRUE(Has(j.status(), "answered badly: ")) << j.status().message();
    EXPECT_TRUE(Has(j.status(), c.said)) << j.status().message();
  }
}

TEST(NetClient, ATimeOutIsUnavailableAndRetried) {
  FakeServer s([](int n, const httplib::Request&, httplib::Response& res) {
    if (n < 2) std::this_thread::sleep_for(Ms(600));  // the first call's only attempt, the second's first
    Ok(res);
  });
  Recorded r(s.url());
  r.options.timeout_ms = 100;
  r.options.max_retries = 0;
  auto j = Open(r.options)->PostJson("/things", Json::object());
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(Has(j.status(), "no answer within 100 ms (time-out)")) << j.status().message();
  EXPECT_TRUE(Has(j.status(), "gave up after 1 attempt)")) << j.status().message();

  r.options.max_retries = 1;
  auto k = Open(r.options)->PostJson("/things", Json::object());
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ(s.requests(), 3);
}

TEST(NetClient, ATimeOutThatUsesTheBudgetIsNotRetried) {
  FakeServer s([](int, const httplib::Request&, httplib::Response& res) {
    std::this_thread::sleep_for(Ms(600));
    Ok(res);
  });
  Recorded r(s.url());
  r.options.timeout_ms = 5000;
  r.options.budget_ms = 150;
  r.options.max_retries = 5;
  auto j = Open(r.options)->PostJson("/things", Json::object());
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.requests(), 1);
  EXPECT_TRUE(Has(j.status(), "(time-out)")) << j.status().message();
}

TEST(NetClient, AnAnswerStillArrivingWhenTheBudgetRunsOutIsDropped) {
  FakeServer s([](int, const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [](size_t offset, httplib::DataSink& sink) {
      if (offset >= 4000) {
        sink.done();
        return true;
      }
      std::this_thread::sleep_for(Ms(50));
      return sink.write(offset == 0 ? "[1" : ",1", 2);
    });
  });
  Recorded r(s.url());
  r.options.budget_ms = 300;
  auto j = Open(r.options)->PostJson("/things", Json::object());
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.requests(), 1);
  EXPECT_TRUE(Has(j.status(), "still arriving when the 300 ms budget ran out")) << j.status().message();
}

TEST(NetClient, ConnectionErrorsAreRetriedThenUnavailable) {
  Recorded r("http://127.0.0.1:1/v1");
  r.options.max_retries = 2;
  auto j = Open(r.options)->PostJson("/things", Json::object());
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(r.waits->size(), 2u);
  EXPECT_TRUE(Has(j.status(), "test server http://127.0.0.1:1/v1/things: request failed: ")) << j.status().message();
  EXPECT_TRUE(Has(j.status(), "gave up after 3 attempts")) << j.status().message();
}

TEST(NetClient, RequestsPerMinuteSpacesAttemptsAndRespectsTheBudget) {
  FakeServer s([](int, const httplib::Request&, httplib::Response& res) { Ok(res); });
  Recorded r(s.url());
  r.options.requests_per_minute = 6;  // one start every 10 s
  auto c = Open(r.options);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(c->PostJson("/things", Json::object()).ok());
  ASSERT_EQ(r.waits->size(), 2u);  // the first start is free; the waits were recorded, not slept
  EXPECT_GT((*r.waits)[0], Ms(5000));
  EXPECT_GT((*r.waits)[1], Ms(5000));
  EXPECT_EQ(s.requests(), 3);

  r.options.budget_ms = 1000;
  auto bounded = Open(r.options);
  ASSERT_TRUE(bounded->PostJson("/things", Json::object()).ok());
  auto j = bounded->PostJson("/things", Json::object());
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(s.requests(), 4);  // the second call never started
  EXPECT_TRUE(Has(j.status(), "6 requests per minute")) << j.status().message();
}

TEST(NetClient, TheKeyComesFromTheNamedVariable) {
  FakeServer s([](int, const httplib::Request&, httplib::Response& res) { Ok(res); });
  Recorded r(s.url());
  r.options.api_key_env = "ENGRAM_TEST_NET_UNSET";
  ::unsetenv("ENGRAM_TEST_NET_UNSET");
  r.options.api_key_required = true;
  auto refused = OpenAiClient::Open(r.options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(Has(refused.status(), "ENGRAM_TEST_NET_UNSET (named by [test] api_key_env) is not set"));
  r.options.api_key_required = false;  // optional: nothing is sent
  ASSERT_TRUE(Open(r.options)->PostJson("/things", Json::object()).ok());
  EXPECT_EQ(s.auth(), "");
  ::setenv("ENGRAM_TEST_NET_UNSET", "line\r\nX-Injected: 1", 1);
  auto injected = OpenAiClient::Open(r.options);
  ::unsetenv("ENGRAM_TEST_NET_UNSET");
  ASSERT_FALSE(injected.ok());
  EXPECT_EQ(injected.status().message().find("Injected"), std::string::npos);
}

TEST(NetClient, InvalidUtf8InARequestIsReplacedNotThrown) {
  FakeServer s([](int, const httplib::Request&, httplib::Response& res) { Ok(res); });
  Recorded r(s.url());
  ASSERT_TRUE(Open(r.options)->PostJson("/things", Json{{"input", std::string("a\xff" "b")}}).ok());
  EXPECT_EQ(Json::parse(s.body())["input"], "a\xef\xbf\xbd" "b");
}

TEST(NetClient, BadOptionsAreNamed) {
  ClientOptions o;
  o.section = "[embedding]";
  o.base_url = "http://127.0.0.1:8080/v1";
  o.timeout_ms = 0;
  EXPECT_TRUE(Has(OpenAiClient::Open(o).status(), "[embedding] timeout_ms must be at least 1"));
  o.timeout_ms = 1;
  o.max_retries = -1;
  EXPECT_EQ(OpenAiClient::Open(o).status().code(), StatusCode::kInvalidArgument);
  o.max_retries = 0;
  o.requests_per_minute = -1;
  EXPECT_EQ(OpenAiClient::Open(o).status().code(), StatusCode::kInvalidArgument);
  o.requests_per_minute = 0;
  EXPECT_TRUE(OpenAiClient::Open(o).ok());
}

TEST(BaseUrl, SplitsOriginAndPrefix) {
  auto u = ParseBaseUrl("https://api.openai.com/v1/", "[embedding] base_url");
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(u->origin, "https://api.openai.com");
  EXPECT_EQ(u->path_prefix, "/v1");
  EXPECT_TRUE(u->https);
  EXPECT_EQ(u->Url("/embeddings"), "https://api.openai.com/v1/embeddings");
  u = ParseBaseUrl("http://[::1]:8080", "x");
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(u->origin, "http://[::1]:8080");
  EXPECT_EQ(u->Path("/chat/completions"), "/chat/completions");
  for (const char* bad : {"ftp://x", "http://", "http:///v1", "https://user:pw@host/v1", "http://h:0", "http://h:70000",
                          "http://h:8a", "http://h/v1?x=1", "http://h/v1#f", "http://h /v1", "HTTP://h", "http://[::1"}) {
    auto r = ParseBaseUrl(bad, "[llm] base_url");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message().rfind("[llm] base_url ", 0), 0u) << r.status().message();
  }
  // A URL with credentials is not repeated in the message.
  EXPECT_EQ(ParseBaseUrl("https://user:pw@host/v1", "x").status().message().find("pw"), std::string::npos);
}

TEST(HttpErrors, ServerMessageIsShortCleanAndRedacted) {
  EXPECT_EQ(ServerMessage(R"({"error":{"message":"bad model","type":"x"}})", ""), "bad model");
  EXPECT_EQ(ServerMessage(R"({"error":"plain"})", ""), "plain");
  EXPECT_EQ(ServerMessage(R"({"detail":"fastapi"})", ""), "fastapi");
  EXPECT_EQ(ServerMessage("  line one\n\tline\x01two  ", ""), "line one line two");
  EXPECT_EQ(ServerMessage("key sk-abc and sk-abc again", "sk-abc"), "key [redacted] and [redacted] again");
  EXPECT_EQ(ServerMessage("sk-\nabc", "sk- abc"), "[redacted]");
  EXPECT_EQ(ServerMessage("bad \xff byte", ""), "bad \xef\xbf\xbd byte");
  const std::string cut = ServerMessage(std::string(10, 'a') + "中文", "", 12);
  EXPECT_EQ(cut, std::string(10, 'a') + "…");  // never half a character
  EXPECT_EQ(ServerMessage(std::string(200, '[') + std::string(200, ']'), "", 5), "[[[[[…");
}

TEST(HttpErrors, RetryAfterIsSecondsOrADate) {
  const std::time_t now = 1445412480;  // Wed, 21 Oct 2015 07:28:00 GMT
  EXPECT_EQ(ParseRetryAfter("120", now), 120);
  EXPECT_EQ(ParseRetryAfter(" 2 ", now), 2);
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:28:30 GMT", now), 30);
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now), 0);
  for (const char* bad : {"", "-1", "soon", "12abc", "nan", "Wed, 21 Oct 2015 07:28:30 PST"}) {
    EXPECT_EQ(ParseRetryAfter(bad, now), -1) << bad;
  }
}

TEST(HttpErrors, CodesAndRetries) {
  for (int s : {408, 429, 500, 502, 503, 504}) EXPECT_TRUE(IsRetryableHttpStatus(s)) << s;
  for (int s : {400, 401, 403, 404, 413, 422}) EXPECT_FALSE(IsRetryableHttpStatus(s)) << s;
  EXPECT_EQ(CodeForHttpStatus(401), StatusCode::kFailedPrecondition);
  EXPECT_EQ(CodeForHttpStatus(400), StatusCode::kInvalidArgument);
  EXPECT_EQ(CodeForHttpStatus(429), StatusCode::kUnavailable);
  EXPECT_EQ(CodeForHttpStatus(503), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace engram::net
