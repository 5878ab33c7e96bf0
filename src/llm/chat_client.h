// A client for OpenAI-compatible chat completions (POST {base_url}/chat/completions),
// used for optional query expansion. One attempt per call with a time-out:
// callers treat failure as "carry on without it".
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
  int timeout_ms = 5000;
  int max_tokens = 200;
};

struct ChatMessage {
  std::string role;  // "system", "user"
  std::string content;
};

class ChatClient {
 public:
  virtual ~ChatClient() = default;
  // The first choice's message content. Unavailable on a transport error,
  // time-out or non-200 answer; InvalidArgument on a malformed answer.
  virtual Result<std::string> Complete(const std::vector<ChatMessage>& messages) = 0;
};

// InvalidArgument for a base_url that is not http(s)://host[...] or an empty model.
Result<std::unique_ptr<ChatClient>> OpenChatClient(const ChatOptions& options);

}  // namespace engram::llm
