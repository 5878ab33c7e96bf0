// Query expansion: the sanitiser on hostile and messy replies, and the chat
// client against a loopback server the test starts (answers, HTTP errors,
// malformed JSON, a time-out).
#include <httplib.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "llm/chat_client.h"
#include "llm/expansion.h"
#include "fake_chat_server.h"

namespace engram::llm {
namespace {

using Json = nlohmann::json;

TEST(Expansion, SanitizesVariants) {
  EXPECT_EQ(SanitizeVariants("1. hybrid retrieval\n2) keyword and vector fusion\n3. third", "hybrid search"),
            (std::vector<std::string>{"hybrid retrieval", "keyword and vector fusion"}));
  // Markers, quotes and control characters go; repeats of the query and of each other too.
  EXPECT_EQ(SanitizeVariants("- \"Hybrid Search\"\n* \"混合 检索\"\n\x1b[31mred\n混合 检索", "hybrid search", 5),
            (std::vector<std::string>{"混合 检索", "[31mred"}));
  // Invalid UTF-8 and empty lines are skipped; long lines are cut at a character boundary.
  std::string long_line(150, 'a');
  long_line += std::string(30, '\0') + "中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文中文";
  auto v = SanitizeVariants(std::string("\xff\xfe bad\n\n   \n") + long_line, "q", 2);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_LE(v[0].size(), kMaxVariantBytes);
  EXPECT_EQ(v[0].find('\0'), std::string::npos);
  EXPECT_TRUE(SanitizeVariants("", "q").empty());
  EXPECT_TRUE(SanitizeVariants("q\nQ\n  q  ", "q").empty());
}

using FakeChat = testing::FakeChatServer;

ChatOptions OptionsFor(const FakeChat& server) {
  ChatOptions o;
  o.base_url = server.url() + "/";
  o.model = "fake-chat";
  o.timeout_ms = 300;
  return o;
}

void Reply(httplib::Response& res, const std::string& content) { FakeChat::Reply(res, content); }

TEST(Expansion, AsksTheChatServerAndSanitizes) {
  Json seen;
  FakeChat server([&](const Json& body, httplib::Response& res) {
    seen = body;
    Reply(res, "1. 混合检索是什么\n2. hybrid retrieval definition\n3. extra");
  });
  auto client = OpenChatClient(OptionsFor(server));
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  auto v = ExpandQuery(**client, "什么是混合检索");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, (std::vector<std::string>{"混合检索是什么", "hybrid retrieval definition"}));
  EXPECT_EQ(seen["model"], "fake-chat");
  EXPECT_EQ(seen["messages"][1]["content"], "什么是混合检索");
  EXPECT_EQ(seen["messages"][0]["role"], "system");
}

TEST(Expansion, FailuresAreErrorsNotCrashes) {
  FakeChat status500([](const Json&, httplib::Response& res) { res.status = 500; });
  auto c1 = OpenChatClient(OptionsFor(status500));
  ASSERT_TRUE(c1.ok());
  EXPECT_EQ(ExpandQuery(**c1, "q").status().code(), StatusCode::kUnavailable);

  FakeChat malformed([](const Json&, httplib::Response& res) { res.set_content("{\"choices\": []}", "application/json"); });
  auto c2 = OpenChatClient(OptionsFor(malformed));
  ASSERT_TRUE(c2.ok());
  EXPECT_EQ(ExpandQuery(**c2, "q").status().code(), StatusCode::kInvalidArgument);

  FakeChat slow([](const Json&, httplib::Response& res) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2000));
    Reply(res, "late");
  });
  auto c3 = OpenChatClient(OptionsFor(slow));
  ASSERT_TRUE(c3.ok());
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(ExpandQuery(**c3, "q").status().code(), StatusCode::kUnavailable);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(1800));  // the time-out, not the server

  ChatOptions bad;
  bad.base_url = "ftp://x";
  bad.model = "m";
  EXPECT_EQ(OpenChatClient(bad).status().code(), StatusCode::kInvalidArgument);
  bad.base_url = "http://127.0.0.1:1/v1";
  bad.model = "";
  EXPECT_EQ(OpenChatClient(bad).status().code(), StatusCode::kInvalidArgument);
  bad.model = "m";
  bad.timeout_ms = 200;
  auto refused = OpenChatClient(bad);
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(ExpandQuery(**refused, "q").status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace engram::llm
