// A loopback OpenAI-compatible chat server that a test starts and scripts:
// each POST /v1/chat/completions is handed to the test's handler, which
// writes the response (a reply, an HTTP error, garbage, a slow answer).
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace httplib {
struct Response;
}

namespace engram::testing {

class FakeChatServer {
 public:
  using Handler = std::function<void(const nlohmann::json& request, httplib::Response& res)>;
  explicit FakeChatServer(Handler handler);
  ~FakeChatServer();
  FakeChatServer(const FakeChatServer&) = delete;
  FakeChatServer& operator=(const FakeChatServer&) = delete;

  std::string url() const;          // "http://127.0.0.1:PORT/v1"
  int requests() const;             // requests answered so far
  std::string last_prompt() const;  // the last request's last message content

  // A well-formed completion whose first choice says content.
  static void Reply(httplib::Response& res, const std::string& content);

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace engram::testing
