#include "llm/chat_client.h"

#include <httplib.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/json_limits.h"
#include "common/url.h"

namespace engram::llm {

namespace {

using Json = nlohmann::json;

class HttpChatClient final : public ChatClient {
 public:
  HttpChatClient(ChatOptions o, common::HttpEndpoint e, std::string key)
      : o_(std::move(o)), endpoint_(std::move(e)), key_(std::move(key)) {}

  Result<std::string> Complete(const std::vector<ChatMessage>& messages) override {
    Json msgs = Json::array();
    for (const auto& m : messages) msgs.push_back({{"role", m.role}, {"content", m.content}});
    const std::string payload =
        Json{{"model", o_.model}, {"messages", msgs}, {"temperature", 0}, {"max_tokens", o_.max_tokens}}.dump();
    httplib::Headers headers;
    if (!key_.empty()) headers.emplace("Authorization", "Bearer " + key_);
    httplib::Client client(endpoint_.origin);
    const auto timeout = std::chrono::milliseconds(o_.timeout_ms);
    client.set_connection_timeout(timeout);
    client.set_read_timeout(timeout);
    client.set_write_timeout(timeout);
    auto res = client.Post(endpoint_.path, headers, payload, "application/json");
    const std::string where = "chat server " + endpoint_.origin + endpoint_.path;
    if (!res) return Status::Unavailable(where + ": " + httplib::to_string(res.error()));
    if (res->status != 200) {
      return Status::Unavailable(where + ": HTTP " + std::to_string(res->status) + ": " + res->body.substr(0, 200));
    }
    // A hostile server's answer is outside input: bounded before it is parsed.
    ENGRAM_RETURN_IF_ERROR(common::CheckJsonLimits(res->body, where + ": the answer"));
    Json j = Json::parse(res->body, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("choices") || !j["choices"].is_array() ||
        j["choices"].empty() || !j["choices"][0].is_object() || !j["choices"][0].contains("message") ||
        !j["choices"][0]["message"].is_object() || !j["choices"][0]["message"].contains("content") ||
        !j["choices"][0]["message"]["content"].is_string()) {
      return Status::InvalidArgument(where + ": malformed answer (no choices[0].message.content string)");
    }
    return j["choices"][0]["message"]["content"].get<std::string>();
  }

 private:
  ChatOptions o_;
  common::HttpEndpoint endpoint_;
  std::string key_;
};

}  // namespace

Result<std::unique_ptr<ChatClient>> OpenChatClient(const ChatOptions& options) {
  if (options.model.empty()) return Status::InvalidArgument("llm.model is empty");
  ENGRAM_ASSIGN_OR_RETURN(common::HttpEndpoint e, common::SplitBaseUrl(options.base_url, "/chat/completions", "llm.base_url"));
  std::string key;
  if (!options.api_key_env.empty()) {
    if (const char* v = std::getenv(options.api_key_env.c_str())) key = v;
  }
  return std::unique_ptr<ChatClient>(new HttpChatClient(options, std::move(e), std::move(key)));
}

}  // namespace engram::llm
