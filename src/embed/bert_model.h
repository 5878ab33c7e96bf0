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
#include "engram/status.h"

namespace engram::embed {

struct PackedBatch {
  std::vector<int32_t> ids;
  std::vector<int32_t> type_ids;    // empty: all 0
  std::vector<uint32_t> offsets{0};  // sequence i is [offsets[i], offsets[i+1])
  size_t sequences() const { return offsets.size() - 1; }
  void Add(const std::vector<int32_t>& seq_ids, const std::vector<int32_t>* seq_types = nullptr);
};

struct Workspace {
  std::vector<float> hidden, qkv, ctx, tmp, up, scores;
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
  // Bytes of weights held in memory beyond the mapped file (converted or fused tensors).
  size_t owned_bytes() const;

 private:
  struct Layer {
    const float *qkv_w, *qkv_b, *o_w, *o_b, *ln1_g, *ln1_b, *up_w, *up_b, *down_w, *down_b, *ln2_g, *ln2_b;
  };
  BertModel() = default;
  Result<const float*> Tensor(const std::string& name, std::vector<int64_t> shape);
  const float* Own(std::vector<float> values);
  void Attention(const PackedBatch& batch, Workspace* ws) const;

  BertConfig config_;
  std::unique_ptr<SafeTensors> file_;
  std::string prefix_;
  std::vector<std::unique_ptr<std::vector<float>>> owned_;
  const float *word_ = nullptr, *pos_ = nullptr, *type_ = nullptr, *emb_ln_g_ = nullptr, *emb_ln_b_ = nullptr;
  const float *pooler_w_ = nullptr, *pooler_b_ = nullptr, *cls_w_ = nullptr, *cls_b_ = nullptr;
  std::vector<Layer> layers_;
};

}  // namespace engram::embed
