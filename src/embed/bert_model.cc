#include "embed/bert_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "embed/kernels.h"

namespace engram::embed {

namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace

void PackedBatch::Add(const std::vector<int32_t>& seq_ids, const std::vector<int32_t>* seq_types) {
  ids.insert(ids.end(), seq_ids.begin(), seq_ids.end());
  if (seq_types != nullptr) {
    type_ids.resize(offsets.back(), 0);
    type_ids.insert(type_ids.end(), seq_types->begin(), seq_types->end());
  } else if (!type_ids.empty()) {
    type_ids.resize(ids.size(), 0);
  }
  offsets.push_back(static_cast<uint32_t>(ids.size()));
}

BertModel::~BertModel() = default;

const float* BertModel::Own(std::vector<float> values) {
  owned_.push_back(std::make_unique<std::vector<float>>(std::move(values)));
  return owned_.back()->data();
}

size_t BertModel::owned_bytes() const {
  size_t n = 0;
  for (const auto& v : owned_) n += v->size() * sizeof(float);
  return n;
}

Result<const float*> BertModel::Tensor(const std::string& name, std::vector<int64_t> shape) {
  const std::string full = prefix_ + name;
  ENGRAM_ASSIGN_OR_RETURN(const TensorInfo* info, file_->Find(full));
  if (info->shape != shape) {
    return Status::InvalidArgument("tensor '" + full + "' has shape " + ShapeText(info->shape) + ", config.json needs " +
                                   ShapeText(shape));
  }
  ENGRAM_ASSIGN_OR_RETURN(const float* view, file_->F32View(full));
  if (view != nullptr) return view;
  ENGRAM_ASSIGN_OR_RETURN(std::vector<float> values, file_->ReadFloats(full));
  return Own(std::move(values));
}

Result<std::unique_ptr<BertModel>> BertModel::Load(const ModelSpec& spec) {
  std::unique_ptr<BertModel> m(new BertModel());
  m->config_ = spec.bert;
  ENGRAM_ASSIGN_OR_RETURN(m->file_, SafeTensors::Open(spec.dir / "model.safetensors"));
  const auto& names = m->file_->tensors();
  if (names.count("embeddings.word_embeddings.weight") == 0 && names.count("bert.embeddings.word_embeddings.weight")) {
    m->prefix_ = "bert.";
  }
  const BertConfig& c = m->config_;
  const int64_t h = c.hidden, inter = c.intermediate;
  auto load = [&](const std::string& name, std::vector<int64_t> shape) { return m->Tensor(name, std::move(shape)); };
  auto result = [&]() -> Status {
    ENGRAM_ASSIGN_OR_RETURN(m->word_, load("embeddings.word_embeddings.weight", {c.vocab_size, h}));
    ENGRAM_ASSIGN_OR_RETURN(m->pos_, load("embeddings.position_embeddings.weight", {c.max_positions, h}));
    ENGRAM_ASSIGN_OR_RETURN(m->type_, load("embeddings.token_type_embeddings.weight", {c.type_vocab, h}));
    ENGRAM_ASSIGN_OR_RETURN(m->emb_ln_g_, load("embeddings.LayerNorm.weight", {h}));
    ENGRAM_ASSIGN_OR_RETURN(m->emb_ln_b_, load("embeddings.LayerNorm.bias", {h}));
    for (int i = 0; i < c.layers; ++i) {
      const std::string p = "encoder.layer." + std::to_string(i) + ".";
      Layer l{};
      // Q, K and V are fused into one [3h × h] matrix: one GEMM instead of three.
      std::vector<float> qkv_w(static_cast<size_t>(3 * h * h)), qkv_b(static_cast<size_t>(3 * h));
      const char* parts[] = {"query", "key", "value"};
      for (int j = 0; j < 3; ++j) {
        ENGRAM_ASSIGN_OR_RETURN(const float* w, load(p + "attention.self." + parts[j] + ".weight", {h, h}));
        ENGRAM_ASSIGN_OR_RETURN(const float* b, load(p + "attention.self." + parts[j] + ".bias", {h}));
        std::memcpy(qkv_w.data() + j * h * h, w, sizeof(float) * h * h);
        std::memcpy(qkv_b.data() + j * h, b, sizeof(float) * h);
      }
      l.qkv_w = m->Own(std::move(qkv_w));
      l.qkv_b = m->Own(std::move(qkv_b));
      ENGRAM_ASSIGN_OR_RETURN(l.o_w, load(p + "attention.output.dense.weight", {h, h}));
      ENGRAM_ASSIGN_OR_RETURN(l.o_b, load(p + "attention.output.dense.bias", {h}));
      ENGRAM_ASSIGN_OR_RETURN(l.ln1_g, load(p + "attention.output.LayerNorm.weight", {h}));
      ENGRAM_ASSIGN_OR_RETURN(l.ln1_b, load(p + "attention.output.LayerNorm.bias", {h}));
      ENGRAM_ASSIGN_OR_RETURN(l.up_w, load(p + "intermediate.dense.weight", {inter, h}));
      ENGRAM_ASSIGN_OR_RETURN(l.up_b, load(p + "intermediate.dense.bias", {inter}));
      ENGRAM_ASSIGN_OR_RETURN(l.down_w, load(p + "output.dense.weight", {h, inter}));
      ENGRAM_ASSIGN_OR_RETURN(l.down_b, load(p + "output.dense.bias", {h}));
      ENGRAM_ASSIGN_OR_RETURN(l.ln2_g, load(p + "output.LayerNorm.weight", {h}));
      ENGRAM_ASSIGN_OR_RETURN(l.ln2_b, load(p + "output.LayerNorm.bias", {h}));
      m->layers_.push_back(l);
    }
    if (c.num_labels > 0) {
      ENGRAM_ASSIGN_OR_RETURN(m->pooler_w_, load("pooler.dense.weight", {h, h}));
      ENGRAM_ASSIGN_OR_RETURN(m->pooler_b_, load("pooler.dense.bias", {h}));
      m->prefix_.clear();  // the classifier sits beside "bert.", not under it
      ENGRAM_ASSIGN_OR_RETURN(m->cls_w_, load("classifier.weight", {c.num_labels, h}));
      ENGRAM_ASSIGN_OR_RETURN(m->cls_b_, load("classifier.bias", {c.num_labels}));
    }
    return Status::Ok();
  }();
  if (!result.ok()) return result.WithContext((spec.dir / "model.safetensors").string());
  return m;
}

void BertModel::Attention(const PackedBatch& batch, Workspace* ws) const {
  const int h = config_.hidden, heads = config_.heads, d = h / heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  for (size_t s = 0; s < batch.sequences(); ++s) {
    const int start = static_cast<int>(batch.offsets[s]);
    const int len = static_cast<int>(batch.offsets[s + 1]) - start;
    if (len == 0) continue;
    const size_t need = static_cast<size_t>(len) * len;
    if (ws->scores.size() < need) ws->scores.resize(need);
    for (int head = 0; head < heads; ++head) {
      const float* q = ws->qkv.data() + static_cast<size_t>(start) * 3 * h + head * d;
      const float* k = q + h;
      const float* v = q + 2 * h;
      kernels::GemmNT(q, 3 * h, k, 3 * h, ws->scores.data(), len, len, len, d, scale);
      kernels::SoftmaxRows(ws->scores.data(), len, len);
      kernels::GemmNN(ws->scores.data(), len, v, 3 * h, ws->ctx.data() + static_cast<size_t>(start) * h + head * d, h,
                      len, d, len);
    }
  }
}

Status BertModel::Forward(const PackedBatch& batch, Workspace* ws) const {
  const BertConfig& c = config_;
  const int h = c.hidden;
  const size_t tokens = batch.ids.size();
  for (size_t s = 0; s < batch.sequences(); ++s) {
    if (batch.offsets[s + 1] - batch.offsets[s] > static_cast<uint32_t>(c.max_positions)) {
      return Status::InvalidArgument("sequence of " + std::to_string(batch.offsets[s + 1] - batch.offsets[s]) +
                                     " tokens exceeds max_position_embeddings " + std::to_string(c.max_positions));
    }
  }
  ws->hidden.resize(tokens * h);
  ws->qkv.resize(tokens * 3 * h);
  ws->ctx.resize(tokens * h);
  ws->tmp.resize(tokens * h);
  ws->up.resize(tokens * c.intermediate);
  // Embeddings: word + position + token type, then LayerNorm.
  for (size_t s = 0; s < batch.sequences(); ++s) {
    for (uint32_t t = batch.offsets[s]; t < batch.offsets[s + 1]; ++t) {
      int32_t id = batch.ids[t];
      int32_t type = batch.type_ids.empty() ? 0 : batch.type_ids[t];
      if (id < 0 || id >= c.vocab_size) {
        return Status::InvalidArgument("token id " + std::to_string(id) + " outside the vocabulary");
      }
      if (type < 0 || type >= c.type_vocab) {
        return Status::InvalidArgument("token type " + std::to_string(type) + " outside type_vocab_size");
      }
      float* row = ws->hidden.data() + static_cast<size_t>(t) * h;
      const float* w = word_ + static_cast<size_t>(id) * h;
      const float* p = pos_ + static_cast<size_t>(t - batch.offsets[s]) * h;
      const float* y = type_ + static_cast<size_t>(type) * h;
      for (int i = 0; i < h; ++i) row[i] = w[i] + p[i] + y[i];
    }
  }
  const int m = static_cast<int>(tokens);
  if (m == 0) return Status::Ok();
  kernels::AddLayerNorm(ws->hidden.data(), nullptr, emb_ln_g_, emb_ln_b_, m, h, c.layer_norm_eps);
  for (const Layer& l : layers_) {
    kernels::Linear(ws->hidden.data(), h, l.qkv_w, l.qkv_b, ws->qkv.data(), 3 * h, m, 3 * h, h);
    Attention(batch, ws);
    kernels::Linear(ws->ctx.data(), h, l.o_w, l.o_b, ws->tmp.data(), h, m, h, h);
    kernels::AddLayerNorm(ws->hidden.data(), ws->tmp.data(), l.ln1_g, l.ln1_b, m, h, c.layer_norm_eps);
    kernels::Linear(ws->hidden.data(), h, l.up_w, l.up_b, ws->up.data(), c.intermediate, m, c.intermediate, h);
    kernels::Gelu(ws->up.data(), ws->up.size());
    kernels::Linear(ws->up.data(), c.intermediate, l.down_w, l.down_b, ws->tmp.data(), h, m, h, c.intermediate);
    kernels::AddLayerNorm(ws->hidden.data(), ws->tmp.data(), l.ln2_g, l.ln2_b, m, h, c.layer_norm_eps);
  }
  return Status::Ok();
}

Result<std::vector<float>> BertModel::Score(const PackedBatch& batch, Workspace* ws) const {
  if (config_.num_labels == 0) return Status::FailedPrecondition("not a cross-encoder (no classifier head)");
  const int h = config_.hidden;
  std::vector<float> cls(batch.sequences() * h), pooled(batch.sequences() * h);
  for (size_t s = 0; s < batch.sequences(); ++s) {
    std::memcpy(cls.data() + s * h, ws->hidden.data() + static_cast<size_t>(batch.offsets[s]) * h, sizeof(float) * h);
  }
  const int n = static_cast<int>(batch.sequences());
  kernels::Linear(cls.data(), h, pooler_w_, pooler_b_, pooled.data(), h, n, h, h);
  for (float& x : pooled) x = std::tanh(x);
  std::vector<float> scores(batch.sequences());
  kernels::Linear(pooled.data(), h, cls_w_, cls_b_, scores.data(), 1, n, 1, h);
  return scores;
}

}  // namespace engram::embed
