// One client for OpenAI-compatible HTTP APIs (POST {base_url}/embeddings,
// {base_url}/chat/completions, …), shared by every caller of such a server
// so that time-outs, retries, rate limits, size limits and error messages
// are the same everywhere.
//
// A call (PostJson) is one or more attempts:
//   - each attempt opens its own connection with the connect, read and write
//     time-outs of timeout_ms (never more than what is left of budget_ms);
//   - an attempt that fails to connect, times out, loses its connection, or
//     gets 408, 429 or a 5xx is retried up to max_retries times after an
//     exponential backoff with jitter (backoff_ms doubling up to
//     max_backoff_ms, each delay drawn from [½, 1] of that), or after what
//     Retry-After asks (delta-seconds or an HTTP date; at most 300 s) when
//     that is longer;
//   - budget_ms > 0 bounds the whole call: no attempt starts, and no wait
//     begins, that cannot end inside it, and an answer still arriving when
//     it runs out is dropped. (httplib has no total time-out: a slow connect
//     followed by a slow first byte can overrun the budget by up to one more
//     timeout_ms; a slow body cannot.)
//   - requests_per_minute > 0 spaces the starts of all attempts of this
//     client (across threads) at least 60 / requests_per_minute s apart.
// A 2xx answer is read up to max_response_bytes (larger ones are refused
// while they arrive), checked for nesting depth (common/json_limits.h) and
// only then parsed.
//
// Errors (one mapping, http_errors.h). Every message starts with
// "<service> <url>" — e.g. "embedding server https://api.openai.com/v1/embeddings"
// — and never contains the API key (the server's words are redacted):
//   InvalidArgument     — Open: bad option; PostJson: a 4xx other than
//                         401/403/404/408/429 ("HTTP 400: <server's message>")
//   FailedPrecondition  — Open: the key's variable is unset (when required);
//                         PostJson: 401, 403 (saying where the key comes
//                         from) and 404 (check base_url and the model)
//   Unavailable         — transport failures and time-outs, 408/429/5xx after
//                         the last retry ("… (gave up after 3 attempts)"),
//                         and answers that are not JSON, too large or too deep
//                         ("… answered badly: …")
//
// Thread safety: PostJson may be called from several threads at once; the
// pacing state and the jitter generator are guarded by one mutex.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>

#include "common/json_limits.h"
#include "engram/status.h"
#include "net/base_url.h"

namespace engram::net {

struct ClientOptions {
  std::string base_url;          // "https://api.openai.com/v1", "http://127.0.0.1:8080/v1"
  std::string section;           // the config section, for messages: "[embedding]", "[llm]"
  std::string service = "server";  // how messages name the server: "embedding server", "chat server"
  std::string api_key_env;       // variable holding the key, sent as "Authorization: Bearer" ("" = none)
  bool api_key_required = false;  // unset/empty variable: Open fails (true) or no key is sent (false)
  int timeout_ms = 30000;        // connect, read and write time-out of one attempt (≥ 1)
  int budget_ms = 0;             // the whole call, retries and waits included (0: no limit)
  int max_retries = 5;           // attempts after the first (≥ 0)
  int backoff_ms = 500;          // the first retry's delay (≥ 0)
  int max_backoff_ms = 20000;    // the longest backoff delay (≥ backoff_ms)
  double requests_per_minute = 0;  // client-side limit on attempt starts (0: none)
  size_t max_response_bytes = 64u << 20;  // answers larger than this are refused
  size_t max_json_depth = common::kMaxJsonDepth;
  // How the client waits (backoff, Retry-After, pacing). Tests record the
  // waits instead of sleeping; empty = std::this_thread::sleep_for.
  std::function<void(std::chrono::milliseconds)> sleep;
};

class OpenAiClient {
 public:
  // InvalidArgument for a bad base_url or a limit out of range;
  // FailedPrecondition when api_key_required and the variable is unset or empty.
  static Result<std::unique_ptr<OpenAiClient>> Open(ClientOptions options);

  OpenAiClient(const OpenAiClient&) = delete;
  OpenAiClient& operator=(const OpenAiClient&) = delete;
  ~OpenAiClient();

  // POSTs `body` (invalid UTF-8 in its strings replaced by U+FFFD) as
  // application/json to base path + endpoint ("/embeddings") and returns the
  // parsed answer of a 2xx. The shape of the answer is the caller's to check
  // (BadAnswer words that error).
  Result<nlohmann::json> PostJson(std::string_view endpoint, const nlohmann::json& body);

  // "<service> <url of endpoint>": how every message of this client begins.
  std::string Describe(std::string_view endpoint) const;
  // Unavailable("<service> <url> answered badly: <what>").
  Status BadAnswer(std::string_view endpoint, std::string_view what) const;

  const ClientOptions& options() const { return options_; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Attempt;

  OpenAiClient(ClientOptions options, BaseUrl base, std::string key);
  Attempt Send(const std::string& path, const std::string& payload, std::chrono::milliseconds timeout,
               Clock::time_point deadline) const;
  // The pause before the next attempt may start under requests_per_minute,
  // reserving its slot unless the pause would pass `deadline`.
  bool ReserveSlot(Clock::time_point deadline, Clock::duration* wait);
  double Jitter();
  void Sleep(Clock::duration d) const;
  // What to check after a final 401, 403 or 404 ("" for other statuses).
  std::string Hint(int http_status) const;
  Result<nlohmann::json> Decode(std::string_view endpoint, const std::string& body) const;

  const ClientOptions options_;
  const BaseUrl base_;
  const std::string key_;  // never in a message

  std::mutex mu_;  // guards rng_ and next_slot_
  std::mt19937 rng_;
  Clock::time_point next_slot_{};
};

}  // namespace engram::net
