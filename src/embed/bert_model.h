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

#include "embed/embedder.h"
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
  std::vector<uint16_t> low;  // the GEMM input rounded to bf16 (reduced precision)
  std::vector<std::vector<float>> scores;  // one per pool thread
};

class BertModel {
 public:
  ~BertModel();
  // kBFloat16 keeps the dense weights of the layers as bf16 (half the
  // memory) and runs their GEMMs on bf16 inputs with fp32 accumulation;
  // embeddings, LayerNorm, attention and the heads stay fp32.
  static Result<std::unique_ptr<BertModel>> Load(const ModelSpec& spec, Precision precision = Precision::kFloat32);

  // The last hidden state, row-major [tokens × hidden], in ws->hidden.
  // InvalidArgument for an id outside the vocabulary or a sequence longer
  // than max_position_embeddings.
  Status Forward(const PackedBatch& batch, Workspace* ws) const;
  // Cross-encoders: one relevance logit per sequence (after Forward).
  Result<std::vector<float>> Score(const PackedBatch& batch, Workspace* ws) const;

  const BertConfig& config() const { return config_; }

 private:
  // A dense layer y = x·Wᵀ + b with W [out × in] packed in memory of our
  // own (kernels.h): fp32 for kernels::LinearPacked or bf16 for LinearBf16.
  struct Dense {
    const float* w32 = nullptr;
    const uint16_t* w16 = nullptr;
    const float* bias = nullptr;
    int out = 0, in = 0;
  };
  struct Layer {
    Dense qkv, o, up, down;
    const float *ln1_g, *ln1_b, *ln2_g, *ln2_b;
  };
  BertModel() = default;
  Result<const float*> Tensor(const std::string& name, std::vector<int64_t> shape);
  // One dense layer from [out × in] weights (several stack along out, as Q,
  // K and V do) and their biases.
  Result<Dense> LoadDense(const std::vector<std::string>& names, int64_t out, int64_t in);
  const float* Own(std::vector<float> values);
  // Zeroed memory of our own; 2 MB-aligned and backed by huge pages where
  // the kernel allows, so that streaming weights misses no TLB.
  void* Allocate(size_t bytes);
  // C = A·Wᵀ + b on the pool (rows of A and C have strides lda, ldc).
  void Apply(const Dense& d, const float* a, int lda, float* c, int ldc, int m, Workspace* ws) const;
  void Attention(const PackedBatch& batch, Workspace* ws) const;

  BertConfig config_;
  std::unique_ptr<SafeTensors> file_;
  std::string prefix_;
  Precision precision_ = Precision::kFloat32;
  struct FreeDeleter {
    void operator()(void* p) const;
  };
  std::vector<std::unique_ptr<void, FreeDeleter>> owned_;
  const float *word_ = nullptr, *pos_ = nullptr, *type_ = nullptr, *emb_ln_g_ = nullptr, *emb_ln_b_ = nullptr;
  const float *pooler_w_ = nullptr, *pooler_b_ = nullptr, *cls_w_ = nullptr, *cls_b_ = nullptr;
  std::vector<Layer> layers_;
};

}  // namespace engram::embed
