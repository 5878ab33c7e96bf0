// A client for OpenAI-compatible chat completions (POST {base_url}/chat/completions),
// used for optional query expansion, over net::OpenAiClient. timeout_ms is
// the budget of a whole call: a failed attempt (connection error, time-out,
// 408, 429, 5xx) is retried — at most twice, with backoff, honouring
// Retry-After — only while the retry fits inside it. Callers treat failure
// as "carry on without it".
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engram/status.h"

namespace engram::llm {

struct ChatOptions {
  std::string base_url;     // "http://127.0.0.1:8080/v1", "https://api.openai.com/v1"
  std::string model;        // "gpt-4o-mini"…
  std::string api_key_env;  // environment variable holding the key ("" = send none)
  int timeout_ms = 5000;    // the whole call, retries included
  int max_tokens = 200;
  double temperature = 0;
};

struct ChatMessage {
  std::string role;  // "system", "user"
  std::string content;
};

class ChatClient {
 public:
  virtual ~ChatClient() = default;
  // The first choice's message content. Errors as net/openai_client.h maps
  // them (Unavailable for transport errors, time-outs, 5xx and answers that
  // are not JSON; FailedPrecondition for 401/403/404; InvalidArgument for
  // other 4xx); InvalidArgument for JSON without choices[0].message.content.
  virtual Result<std::string> Complete(const std::vector<ChatMessage>& messages) = 0;
};

// InvalidArgument for a base_url that is not http(s)://host[:port][/path], an
// empty model or a timeout_ms below 1.
Result<std::unique_ptr<ChatClient>> OpenChatClient(const ChatOptions& options);

}  // namespace engram::llm
