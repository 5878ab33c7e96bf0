#include "llm/chat_client.h"

#include <nlohmann/json.hpp>

#include "net/openai_client.h"

namespace engram::llm {

namespace {

using Json = nlohmann::json;

constexpr std::string_view kEndpoint = "/chat/completions";

class HttpChatClient final : public ChatClient {
 public:
  HttpChatClient(ChatOptions o, std::unique_ptr<net::OpenAiClient> client)
      : o_(std::move(o)), client_(std::move(client)) {}

  Result<std::string> Complete(const std::vector<ChatMessage>& messages) override {
    Json msgs = Json::array();
    for (const auto& m : messages) msgs.push_back({{"role", m.role}, {"content", m.content}});
    const Json body{
        {"model", o_.model}, {"messages", msgs}, {"temperature", o_.temperature}, {"max_tokens", o_.max_tokens}};
    ENGRAM_ASSIGN_OR_RETURN(Json j, client_->PostJson(kEndpoint, body));
    if (!j.is_object() || !j.contains("choices") || !j["choices"].is_array() || j["choices"].empty() ||
        !j["choices"][0].is_object() || !j["choices"][0].contains("message") ||
        !j["choices"][0]["message"].is_object() || !j["choices"][0]["message"].contains("content") ||
        !j["choices"][0]["message"]["content"].is_string()) {
      std::string m = client_->Describe(kEndpoint);
      m += ": malformed answer (no choices[0].message.content string)";
      return Status::InvalidArgument(std::move(m));
    }
    return j["choices"][0]["message"]["content"].get<std::string>();
  }

 private:
  ChatOptions o_;
  std::unique_ptr<net::OpenAiClient> client_;
};

}  // namespace

Result<std::unique_ptr<ChatClient>> OpenChatClient(const ChatOptions& options) {
  if (options.model.empty()) return Status::InvalidArgument("[llm] model is empty");
  net::ClientOptions n;
  n.base_url = options.base_url;
  n.section = "[llm]";
  n.service = "chat server";
  // Expansion is optional and a local server needs no key: an unset
  // variable sends none (a 401 then says which variable is unset).
  n.api_key_env = options.api_key_env;
  n.api_key_required = false;
  // timeout_ms is the caller's whole budget (a search waits for expansion):
  // retries happen only while they fit inside it.
  n.timeout_ms = options.timeout_ms;
  n.budget_ms = options.timeout_ms;
  n.max_retries = 2;
  n.backoff_ms = 200;
  n.max_backoff_ms = 1000;
  n.max_response_bytes = 4u << 20;  // max_tokens is small; this is generous
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<net::OpenAiClient> client, net::OpenAiClient::Open(std::move(n)));
  return std::unique_ptr<ChatClient>(new HttpChatClient(options, std::move(client)));
}

}  // namespace engram::llm
