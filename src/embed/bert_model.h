// A BERT encoder (BertModel, and BertForSequenceClassification's pooler and
// classifier) over memory-mapped safetensors weights.
//
// Sequences are packed without padding: a batch is the concatenation of its
// token ids with offsets; attention runs per sequence over exactly its own
// tokens, so a batch gives each sequence the same numbers as running it
// alone, and no FLOPs are spent on padding.
//
// Thread safety: Forward/Score are const and may run concurrently, each
// caller with its own Workspace.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "embed/model_config.h"
#include "embed/safetensors.h"
#include "embed/thread_pool.h"
#include "engram/status.h"

namespace engram::embed {

struct PackedBatch {
  std::vector<int32_t> ids;
  std::vector<int32_t> type_ids;    // empty: all 0
  std::vector<uint32_t> offsets{0};  // sequence i is [offsets[i], offsets[i+1])
  size_t sequences() const { return offsets.size() - 1; }
  void Add(const std::vector<int32_t>& seq_ids, const std::vector<int32_t>* seq_types = nullptr);
};

// Buffers and threads of one caller. The pool splits GEMMs (by rows, or by
// output columns when there are few rows), attention (by sequence x head)
// and the element-wise kernels; the BLAS library itself runs one thread.
struct Workspace {
  explicit Workspace(int threads = 1);
  ThreadPool pool;
  std::vector<float> hidden, qkv, ctx, tmp, up;
  std::vector<std::vector<float>> scores;  // one per pool thread
};

class BertModel {
 public:
  ~BertModel();
  static Result<std::unique_ptr<BertModel>> Load(const ModelSpec& spec);

  // The last hidden state, row-major [tokens × hidden], in ws->hidden.
  // InvalidArgument for an id outside the vocabulary or a sequence longer
  // than max_position_embeddings.
  Status Forward(const PackedBatch& batch, Workspace* ws) const;
  // Cross-encoders: one relevance logit per sequence (after Forward).
  Result<std::vector<float>> Score(const PackedBatch& batch, Workspace* ws) const;

  const BertConfig& config() const { return config_; }

 private:
  // Dense weights are kept transposed ([in × out]) in memory of our own:
  // the GEMMs read them without the library re-packing them per call.
  struct Layer {
    const float *qkv_t, *qkv_b, *o_t, *o_b, *ln1_g, *ln1_b, *up_t, *up_b, *down_t, *down_b, *ln2_g, *ln2_b;
  };
  BertModel() = default;
  Result<const float*> Tensor(const std::string& name, std::vector<int64_t> shape);
  // A [out × in] weight (or several stacked along out) as one owned [in × out] matrix.
  Result<const float*> Transposed(const std::vector<std::string>& names, int64_t out, int64_t in);
  const float* Own(std::vector<float> values);
  // Zeroed memory of our own for n floats; 2 MB-aligned and backed by huge
  // pages where the kernel allows, so that streaming weights misses no TLB.
  float* Allocate(size_t n);
  void Attention(const PackedBatch& batch, Workspace* ws) const;

  BertConfig config_;
  std::unique_ptr<SafeTensors> file_;
  std::string prefix_;
  struct FreeDeleter {
    void operator()(float* p) const;
  };
  std::vector<std::pair<std::unique_ptr<float, FreeDeleter>, size_t>> owned_;
  const float *word_ = nullptr, *pos_ = nullptr, *type_ = nullptr, *emb_ln_g_ = nullptr, *emb_ln_b_ = nullptr;
  const float *pooler_w_ = nullptr, *pooler_b_ = nullptr, *cls_w_ = nullptr, *cls_b_ = nullptr;
  std::vector<Layer> layers_;
};

}  // namespace engram::embed
