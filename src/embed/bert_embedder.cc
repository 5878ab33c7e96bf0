// The "bert" provider and the cross-encoder: tokenise, pack sequences by
// length into forward passes, pool, normalise.
#include <algorithm>
#include <mutex>
#include <numeric>
#include <thread>

#include "embed/bert_model.h"
#include "embed/embedder.h"
#include "embed/kernels.h"
#include "embed/model_config.h"
#include "embed/wordpiece.h"

namespace engram::embed {

const char* PrecisionName(Precision p) { return p == Precision::kBFloat16 ? "bf16" : "fp32"; }

Result<Precision> ParsePrecision(std::string_view name) {
  if (name == "fp32" || name == "float32" || name == "f32") return Precision::kFloat32;
  if (name == "bf16" || name == "bfloat16") return Precision::kBFloat16;
  return Status::InvalidArgument("unknown precision '" + std::string(name) + "' (expected fp32 or bf16)");
}

namespace {

struct Runtime {
  ModelSpec spec;
  std::unique_ptr<WordPieceTokenizer> tokenizer;
  std::unique_ptr<BertModel> model;
  BertOptions options;
};

Result<Runtime> OpenRuntime(const std::filesystem::path& dir, const BertOptions& options) {
  Runtime r;
  r.options = options;
  ENGRAM_ASSIGN_OR_RETURN(r.spec, LoadModelSpec(dir));
  ENGRAM_ASSIGN_OR_RETURN(r.tokenizer, LoadTokenizer(r.spec));
  if (r.tokenizer->vocab_size() > static_cast<size_t>(r.spec.bert.vocab_size)) {
    return Status::InvalidArgument(r.spec.vocab.string() + ": " + std::to_string(r.tokenizer->vocab_size()) +
                                   " tokens, more than config.json's vocab_size " +
                                   std::to_string(r.spec.bert.vocab_size));
  }
  ENGRAM_ASSIGN_OR_RETURN(r.model, BertModel::Load(r.spec, options.precision));
  r.options.threads =
      options.threads > 0 ? options.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  kernels::SetBlasThreads(1);  // the workspace's pool splits the work
  return r;
}

// Runs sequences through the model in length-sorted packs of at most
// max_batch_tokens; after each pack, take(pack, the input index of each of
// its sequences) reads the results from ws.
template <typename Take>
Status RunPacked(const Runtime& r, const std::vector<std::vector<int32_t>>& ids,
                 const std::vector<std::vector<int32_t>>* types, Workspace* ws, Take take) {
  std::vector<size_t> order(ids.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ids[a].size() < ids[b].size(); });
  size_t i = 0;
  while (i < order.size()) {
    PackedBatch batch;
    std::vector<size_t> members;
    while (i < order.size() &&
           (members.empty() || batch.ids.size() + ids[order[i]].size() <= r.options.max_batch_tokens)) {
      batch.Add(ids[order[i]], types != nullptr ? &(*types)[order[i]] : nullptr);
      members.push_back(order[i]);
      ++i;
    }
    ENGRAM_RETURN_IF_ERROR(r.model->Forward(batch, ws));
    ENGRAM_RETURN_IF_ERROR(take(batch, members));
  }
  return Status::Ok();
}

class BertEmbedder final : public Embedder {
 public:
  explicit BertEmbedder(Runtime r) : r_(std::move(r)), ws_(r_.options.threads) {
    info_.provider = "bert";
    info_.model = r_.spec.id;
    info_.dims = r_.spec.bert.hidden;
    info_.max_tokens = static_cast<int>(r_.spec.tokenizer.max_length);
    info_.pooling = PoolingName(r_.spec.pooling);
    info_.normalized = r_.spec.normalize;
  }

  const EmbedderInfo& info() const override { return info_; }

  Result<std::vector<float>> Embed(const std::vector<std::string>& texts, EmbedKind kind) override {
    const std::string& prompt = kind == EmbedKind::kQuery ? r_.spec.query_prompt : r_.spec.document_prompt;
    std::vector<std::vector<int32_t>> ids;
    ids.reserve(texts.size());
    for (const std::string& t : texts) ids.push_back(r_.tokenizer->Encode(prompt.empty() ? t : prompt + t).ids);
    const int h = info_.dims;
    std::vector<float> out(texts.size() * static_cast<size_t>(h));
    std::lock_guard<std::mutex> lock(mu_);
    ENGRAM_RETURN_IF_ERROR(RunPacked(r_, ids, nullptr, &ws_, [&](const PackedBatch& batch,
                                                                  const std::vector<size_t>& members) {
      for (size_t j = 0; j < members.size(); ++j) {
        float* dst = out.data() + members[j] * h;
        const float* rows = ws_.hidden.data() + static_cast<size_t>(batch.offsets[j]) * h;
        const size_t len = batch.offsets[j + 1] - batch.offsets[j];
        if (r_.spec.pooling == Pooling::kCls) {
          std::copy(rows, rows + h, dst);
        } else {
          std::fill(dst, dst + h, 0.0f);
          for (size_t t = 0; t < len; ++t) {
            for (int k = 0; k < h; ++k) dst[k] += rows[t * h + k];
          }
          for (int k = 0; k < h; ++k) dst[k] /= static_cast<float>(len);
        }
        if (r_.spec.normalize) kernels::L2Normalize(dst, h);
      }
      return Status::Ok();
    }));
    return out;
  }

 private:
  Runtime r_;
  EmbedderInfo info_;
  std::mutex mu_;
  Workspace ws_;
};

class BertReranker final : public Reranker {
 public:
  explicit BertReranker(Runtime r) : r_(std::move(r)), ws_(r_.options.threads) {}

  Result<std::vector<float>> Score(const std::string& query, const std::vector<std::string>& passages) override {
    std::vector<std::vector<int32_t>> ids, types;
    for (const std::string& p : passages) {
      Encoding e = r_.tokenizer->EncodePair(query, p);
      ids.push_back(std::move(e.ids));
      types.push_back(std::move(e.type_ids));
    }
    std::vector<float> out(passages.size());
    std::lock_guard<std::mutex> lock(mu_);
    ENGRAM_RETURN_IF_ERROR(RunPacked(r_, ids, &types, &ws_, [&](const PackedBatch& batch,
                                                                 const std::vector<size_t>& members) -> Status {
      ENGRAM_ASSIGN_OR_RETURN(std::vector<float> scores, r_.model->Score(batch, &ws_));
      for (size_t j = 0; j < members.size(); ++j) out[members[j]] = scores[j];
      return Status::Ok();
    }));
    return out;
  }

 private:
  Runtime r_;
  std::mutex mu_;
  Workspace ws_;
};

}  // namespace

Result<std::unique_ptr<Embedder>> OpenBertEmbedder(const std::filesystem::path& dir, const BertOptions& options) {
  ENGRAM_ASSIGN_OR_RETURN(Runtime r, OpenRuntime(dir, options));
  if (r.spec.bert.num_labels > 0) {
    return Status::InvalidArgument(dir.string() + ": a cross-encoder (BertForSequenceClassification) scores pairs; "
                                   "it is not an embedding model");
  }
  return std::unique_ptr<Embedder>(new BertEmbedder(std::move(r)));
}

Result<std::unique_ptr<Reranker>> OpenReranker(const std::filesystem::path& dir, const BertOptions& options) {
  ENGRAM_ASSIGN_OR_RETURN(Runtime r, OpenRuntime(dir, options));
  if (r.spec.bert.num_labels == 0) {
    return Status::InvalidArgument(dir.string() + ": not a cross-encoder (config.json architectures must be "
                                   "BertForSequenceClassification)");
  }
  return std::unique_ptr<Reranker>(new BertReranker(std::move(r)));
}

}  // namespace engram::embed
