// The "openai" provider over net::OpenAiClient.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/utf8.h"
#include "embed/embedder.h"
#include "net/openai_client.h"

namespace engram::embed {

namespace {

using Json = nlohmann::json;

constexpr std::string_view kEndpoint = "/embeddings";

class OpenAiEmbedder final : public Embedder {
 public:
  OpenAiEmbedder(OpenAiOptions o, std::unique_ptr<net::OpenAiClient> client)
      : o_(std::move(o)), client_(std::move(client)) {
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
  Result<std::vector<float>> Request(const std::vector<std::string>& batch) {
    Json body = {{"model", o_.model}, {"input", batch}};
    if (o_.dimensions > 0) body["dimensions"] = o_.dimensions;
    ENGRAM_ASSIGN_OR_RETURN(Json answer, client_->PostJson(kEndpoint, body));
    return Parse(answer, batch.size());
  }

  Result<std::vector<float>> Parse(const Json& j, size_t expected) {
    auto bad = [&](const std::string& what) { return client_->BadAnswer(kEndpoint, what); };
    if (!j.is_object()) return bad("the body is not a JSON object");
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
  std::unique_ptr<net::OpenAiClient> client_;
  EmbedderInfo info_;
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
  if (options.max_batch < 1 || options.max_batch_tokens < 1) {
    return Status::InvalidArgument("[embedding] max_batch and max_batch_tokens must be positive");
  }
  net::ClientOptions n;
  n.base_url = options.base_url;
  n.section = "[embedding]";
  n.service = "embedding server";
  n.api_key_env = options.api_key_env;
  n.api_key_required = true;  // a hosted embedding API without a key fails every request: say so at once
  n.timeout_ms = options.timeout_ms;
  n.budget_ms = 0;  // embedding runs in the background of sync and `engram embed`: retries, not a deadline, bound it
  n.max_retries = options.max_retries;
  n.backoff_ms = options.backoff_ms;
  n.max_backoff_ms = options.max_backoff_ms;
  n.requests_per_minute = options.requests_per_minute;
  // Room for a full batch of the widest vectors as JSON text (~24 bytes a number), and never less than 64 MiB.
  const size_t dims = static_cast<size_t>(std::max({options.dimensions, options.expected_dims, 4096}));
  n.max_response_bytes = std::max<size_t>(size_t{64} << 20, static_cast<size_t>(options.max_batch) * dims * 24);
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<net::OpenAiClient> client, net::OpenAiClient::Open(std::move(n)));
  return std::unique_ptr<Embedder>(new OpenAiEmbedder(options, std::move(client)));
}

}  // namespace engram::embed
