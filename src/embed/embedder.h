// The Embedder interface: texts in, row-major float vectors out, batch first.
// Three providers implement it: "bert" (the local runtime on a Hugging Face
// model directory), "openai" (any OpenAI-compatible /embeddings server) and
// "hash" (deterministic feature hashing, for tests of the layers above and
// for brains without a model).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::embed {

enum class EmbedKind { kDocument, kQuery };

struct EmbedderInfo {
  std::string provider;   // "bert", "openai", "hash"
  std::string model;      // model id as the brain records it
  int dims = 0;
  int max_tokens = 0;     // the longest input before truncation (0: the server decides)
  std::string pooling;    // "cls", "mean", "" when unknown
  bool normalized = true;
};

class Embedder {
 public:
  virtual ~Embedder() = default;
  virtual const EmbedderInfo& info() const = 0;
  // One vector of info().dims floats per text, concatenated in input order.
  // Queries get the model's query instruction, documents its document prefix.
  virtual Result<std::vector<float>> Embed(const std::vector<std::string>& texts, EmbedKind kind) = 0;
};

// The arithmetic of the local runtime's dense layers: fp32, or bf16 weights
// and inputs with fp32 sums (AVX-512 BF16 where the CPU has it, an
// emulation elsewhere). bf16 embeddings stay within cosine 0.999 of fp32.
enum class Precision { kFloat32, kBFloat16 };
const char* PrecisionName(Precision p);  // "fp32", "bf16"
// "fp32"/"float32"/"f32", "bf16"/"bfloat16"; anything else: InvalidArgument.
Result<Precision> ParsePrecision(std::string_view name);

struct BertOptions {
  int threads = 0;                 // encoder threads; 0 = all cores
  size_t max_batch_tokens = 8192;  // tokens packed into one forward pass
  Precision precision = Precision::kFloat32;
};

// The local runtime on a model directory (see model_config.h).
Result<std::unique_ptr<Embedder>> OpenBertEmbedder(const std::filesystem::path& dir, const BertOptions& options = {});

// Signed feature hashing of lower-cased words, CJK characters and CJK
// bigrams into dims buckets, L2-normalised. The same text always gives the
// same vector; texts sharing words get a positive cosine.
std::unique_ptr<Embedder> NewHashEmbedder(int dims = 256);

// The "openai" provider: POST {base_url}/embeddings with
// {"model", "input": [...], "dimensions"?}, batched by count and by
// estimated tokens; 429 and 5xx (and time-outs, dropped connections) are
// retried with exponential backoff and jitter, honouring Retry-After; other
// 4xx are not. Every returned vector must have the expected dimension.
struct OpenAiOptions {
  std::string base_url;            // "https://api.openai.com/v1", "http://127.0.0.1:8080/v1"
  std::string model;               // "text-embedding-3-small"
  std::string api_key_env;         // environment variable holding the key ("" = send none)
  int dimensions = 0;              // sent as "dimensions" when > 0, and expected back
  int expected_dims = 0;           // the brain's dimension (0: the first response decides)
  int max_batch = 128;             // texts per request
  int max_batch_tokens = 8000;     // estimated tokens per request
  int timeout_ms = 30000;          // per request
  int max_retries = 5;
  int backoff_ms = 500;            // first retry delay; doubles, with jitter, up to max_backoff_ms
  int max_backoff_ms = 20000;
  double requests_per_minute = 0;  // client-side limit (0: none)
};
Result<std::unique_ptr<Embedder>> OpenOpenAiEmbedder(const OpenAiOptions& options);

// A rough token count for batching: ~4 bytes per token for Latin text, one
// per CJK character.
size_t EstimateTokens(std::string_view text);

// A cross-encoder reranker (BertForSequenceClassification with one label):
// one relevance logit per (query, passage) pair, higher is more relevant.
class Reranker {
 public:
  virtual ~Reranker() = default;
  virtual Result<std::vector<float>> Score(const std::string& query, const std::vector<std::string>& passages) = 0;
};
Result<std::unique_ptr<Reranker>> OpenReranker(const std::filesystem::path& dir, const BertOptions& options = {});

}  // namespace engram::embed
