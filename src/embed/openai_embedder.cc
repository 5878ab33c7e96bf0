// The "openai" provider over cpp-httplib (Debian's build, with TLS).
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "common/json_limits.h"
#include "common/url.h"
#include "common/utf8.h"
#include "embed/embedder.h"

namespace engram::embed {

namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

using Endpoint = common::HttpEndpoint;

// Seconds from a Retry-After header (delta-seconds; an HTTP date is ignored).
double RetryAfterSeconds(const httplib::Headers& headers) {
  auto it = headers.find("Retry-After");
  if (it == headers.end()) return -1;
  char* end = nullptr;
  double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || v < 0) return -1;
  return std::min(v, 300.0);
}

class OpenAiEmbedder final : public Embedder {
 public:
  OpenAiEmbedder(OpenAiOptions o, Endpoint e, std::string key)
      : o_(std::move(o)), endpoint_(std::move(e)), key_(std::move(key)), rng_(std::random_device{}()) {
    info_.provider = "openai";
    info_.model = o_.model;
    info_.dims = o_.expected_dims > 0 ? o_.expected_dims : o_.dimensions;
    info_.pooling = "";
    info_.normalized = true;
  }

  const EmbedderInfo& info() const override { return info_; }

  Result<std::vector<float>> Embed(const std::vector<std::string>& texts, EmbedKind) override {
    std::vector<float> out;
    size_t i = 0;
    while (i < texts.size()) {
      std::vector<std::string> batch;
      size_t tokens = 0;
      while (i < texts.size() && static_cast<int>(batch.size()) < o_.max_batch) {
        size_t t = EstimateTokens(texts[i]);
        if (!batch.empty() && tokens + t > static_cast<size_t>(o_.max_batch_tokens)) break;
        // An empty string is refused by OpenAI's API; send a single space.
        batch.push_back(texts[i].empty() ? std::string(" ") : texts[i]);
        tokens += t;
        ++i;
      }
      ENGRAM_ASSIGN_OR_RETURN(std::vector<float> v, Request(batch));
      out.insert(out.end(), v.begin(), v.end());
    }
    return out;
  }

 private:
  void Pace() {
    if (o_.requests_per_minute <= 0) return;
    auto gap = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(60.0 / o_.requests_per_minute));
    auto now = Clock::now();
    if (next_slot_ > now) std::this_thread::sleep_for(next_slot_ - now);
    next_slot_ = std::max(now, next_slot_) + gap;
  }

  Result<std::vector<float>> Request(const std::vector<std::string>& batch) {
    Json body = {{"model", o_.model}, {"input", batch}};
    if (o_.dimensions > 0) body["dimensions"] = o_.dimensions;
    const std::string payload = body.dump();
    httplib::Headers headers;
    if (!key_.empty()) headers.emplace("Authorization", "Bearer " + key_);
    std::string last_error;
    for (int attempt = 0;; ++attempt) {
      Pace();
      httplib::Client client(endpoint_.origin);
      const auto timeout = std::chrono::milliseconds(o_.timeout_ms);
      client.set_connection_timeout(timeout);
      client.set_read_timeout(timeout);
      client.set_write_timeout(timeout);
      auto res = client.Post(endpoint_.path, headers, payload, "application/json");
      double retry_after = -1;
      if (!res) {
        last_error = "request failed: " + httplib::to_string(res.error());
      } else if (res->status == 200) {
        return Parse(res->body, batch.size());
      } else {
        last_error = "HTTP " + std::to_string(res->status) + ": " + res->body.substr(0, 300);
        if (res->status != 429 && res->status < 500) {
          return Status::InvalidArgument("embedding server refused the request (" + last_error + ")");
        }
        retry_after = RetryAfterSeconds(res->headers);
      }
      if (attempt >= o_.max_retries) {
        return Status::Unavailable("embedding server " + endpoint_.origin + endpoint_.path + ": " + last_error +
                                   " (gave up after " + std::to_string(attempt + 1) + " attempts)");
      }
      double delay = std::min<double>(o_.max_backoff_ms, o_.backoff_ms * std::pow(2.0, attempt)) / 1000.0;
      delay *= std::uniform_real_distribution<double>(0.5, 1.0)(rng_);  // jitter
      if (retry_after >= 0) delay = std::max(delay, retry_after);
      std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    }
  }

  Result<std::vector<float>> Parse(const std::string& text, size_t expected) {
    auto bad = [&](const std::string& what) {
      return Status::Unavailable("embedding server " + endpoint_.origin + endpoint_.path + " answered badly: " + what);
    };
    if (Status limits = common::CheckJsonLimits(text, "the body"); !limits.ok()) return bad(limits.message());
    Json j = Json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return bad("the body is not a JSON object");
    if (!j.contains("data") || !j["data"].is_array()) return bad("missing field 'data'");
    const Json& data = j["data"];
    if (data.size() != expected) {
      return bad(std::to_string(data.size()) + " embeddings for " + std::to_string(expected) + " inputs");
    }
    std::vector<const Json*> by_index(expected, nullptr);
    for (size_t k = 0; k < data.size(); ++k) {
      const Json& item = data[k];
      size_t index = k;
      if (item.is_object() && item.contains("index")) {
        if (!item["index"].is_number_unsigned() || item["index"].get<size_t>() >= expected) {
          return bad("data[" + std::to_string(k) + "].index is out of range");
        }
        index = item["index"].get<size_t>();
      }
      if (!item.is_object() || !item.contains("embedding") || !item["embedding"].is_array()) {
        return bad("data[" + std::to_string(k) + "].embedding is not an array");
      }
      if (by_index[index] != nullptr) return bad("index " + std::to_string(index) + " appears twice");
      by_index[index] = &item["embedding"];
    }
    std::vector<float> out;
    for (size_t k = 0; k < expected; ++k) {
      const Json& e = *by_index[k];
      if (info_.dims == 0) info_.dims = static_cast<int>(e.size());
      if (static_cast<int>(e.size()) != info_.dims) {
        return Status::FailedPrecondition("embedding server returned " + std::to_string(e.size()) +
                                          " dimensions, the brain expects " + std::to_string(info_.dims) +
                                          " (set [embedding] dimensions, or run `engram embed --all` after "
                                          "changing models)");
      }
      for (const Json& x : e) {
        if (!x.is_number()) return bad("an embedding holds a non-number");
        out.push_back(x.get<float>());
      }
    }
    return out;
  }

  OpenAiOptions o_;
  Endpoint endpoint_;
  std::string key_;
  EmbedderInfo info_;
  std::mt19937 rng_;
  Clock::time_point next_slot_{};
};

}  // namespace

size_t EstimateTokens(std::string_view text) {
  size_t cjk = 0, other = 0, i = 0;
  while (i < text.size()) {
    char32_t c = common::DecodeUtf8(text, &i);
    if (common::IsCjk(c)) ++cjk;
    else other += c < 0x80 ? 1 : 2;
  }
  return cjk + (other + 3) / 4 + 1;
}

Result<std::unique_ptr<Embedder>> OpenOpenAiEmbedder(const OpenAiOptions& options) {
  if (options.model.empty()) return Status::InvalidArgument("[embedding] model must name the server's model");
  ENGRAM_ASSIGN_OR_RETURN(Endpoint e, common::SplitBaseUrl(options.base_url, "/embeddings", "embedding base_url"));
  std::string key;
  if (!options.api_key_env.empty()) {
    const char* v = std::getenv(options.api_key_env.c_str());
    if (v == nullptr || *v == '\0') {
      return Status::FailedPrecondition("environment variable " + options.api_key_env +
                                        " (named by [embedding] api_key_env) is not set");
    }
    key = v;
  }
  if (options.max_batch < 1 || options.max_batch_tokens < 1 || options.timeout_ms < 1 || options.max_retries < 0) {
    return Status::InvalidArgument("[embedding] batch sizes and timeout_ms must be positive");
  }
  return std::unique_ptr<Embedder>(new OpenAiEmbedder(options, std::move(e), std::move(key)));
}

}  // namespace engram::embed
