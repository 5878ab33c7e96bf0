#include "embed/bert_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>

#include <sys/mman.h>

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

// Runs fn(row0, row1) over row blocks of at least 8 rows on the pool.
template <typename Fn>
void ParallelRows(ThreadPool& pool, int rows, Fn fn) {
  const int tasks = std::max(1, std::min(pool.size(), rows / 8));
  pool.ParallelFor(tasks, [&](int t, int) {
    fn(static_cast<int>(static_cast<int64_t>(rows) * t / tasks), static_cast<int>(static_cast<int64_t>(rows) * (t + 1) / tasks));
  });
}

}  // namespace

Workspace::Workspace(int threads) : pool(std::max(1, threads)), scores(static_cast<size_t>(std::max(1, threads))) {}

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

void BertModel::FreeDeleter::operator()(void* p) const { std::free(p); }

void* BertModel::Allocate(size_t bytes) {
  constexpr size_t kHuge = 2u << 20;
  bytes = std::max<size_t>(bytes, 64);
  void* p = nullptr;
  if (bytes >= kHuge) {
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    if (::posix_memalign(&p, kHuge, rounded) == 0) ::madvise(p, rounded, MADV_HUGEPAGE);
  } else if (::posix_memalign(&p, 64, bytes) != 0) {
    p = nullptr;
  }
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  owned_.emplace_back(p);
  return p;
}

const float* BertModel::Own(std::vector<float> values) {
  float* p = static_cast<float*>(Allocate(values.size() * sizeof(float)));
  std::copy(values.begin(), values.end(), p);
  return p;
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

Result<BertModel::Dense> BertModel::LoadDense(const std::vector<std::string>& names, int64_t out, int64_t in) {
  Dense d;
  d.out = static_cast<int>(out * static_cast<int64_t>(names.size()));
  d.in = static_cast<int>(in);
  std::vector<float> bias, stacked;  // several parts: one after another, [d.out × in]
  auto pack = [&](const float* w) {
    if (precision_ == Precision::kFloat32) {
      float* p = static_cast<float*>(Allocate(kernels::PackedSize(d.out, d.in) * sizeof(float)));
      kernels::Pack(w, d.out, d.in, p);
      d.w32 = p;
    } else {
      uint16_t* p = static_cast<uint16_t*>(Allocate(kernels::PackedBf16Size(d.out, d.in) * sizeof(uint16_t)));
      kernels::PackBf16(w, d.out, d.in, p);
      d.w16 = p;
    }
  };
  for (const std::string& name : names) {
    ENGRAM_ASSIGN_OR_RETURN(const float* w, Tensor(name + ".weight", {out, in}));
    if (names.size() == 1) {
      pack(w);
    } else {
      stacked.insert(stacked.end(), w, w + out * in);
    }
    file_->Release(prefix_ + name + ".weight");
    ENGRAM_ASSIGN_OR_RETURN(const float* b, Tensor(name + ".bias", {out}));
    bias.insert(bias.end(), b, b + out);
  }
  if (names.size() > 1) pack(stacked.data());
  d.bias = Own(std::move(bias));
  return d;
}

void BertModel::Apply(const Dense& d, const float* a, int lda, float* c, int ldc, int m, Workspace* ws) const {
  ThreadPool& pool = ws->pool;
  const int n = d.out, k = d.in;
  const uint16_t* low = nullptr;
  size_t stride = 0;
  if (d.w16 != nullptr) {
    stride = kernels::Bf16RowStride(k);
    if (ws->low.size() < static_cast<size_t>(m) * stride) ws->low.resize(static_cast<size_t>(m) * stride);
    uint16_t* out = ws->low.data();
    ParallelRows(pool, m, [&](int r0, int r1) {
      kernels::ToBf16(a + static_cast<size_t>(r0) * lda, lda, r1 - r0, k, out + static_cast<size_t>(r0) * stride);
    });
    low = out;
  }
  auto run = [&](int r0, int r1, int c0, int c1) {
    if (low != nullptr) {
      kernels::LinearBf16(low + static_cast<size_t>(r0) * stride, d.w16, d.bias, c + static_cast<size_t>(r0) * ldc,
                          ldc, r1 - r0, k, c0, c1);
    } else {
      kernels::LinearPacked(a + static_cast<size_t>(r0) * lda, lda, d.w32, d.bias, c + static_cast<size_t>(r0) * ldc,
                            ldc, r1 - r0, k, c0, c1);
    }
  };
  if (m <= 64) {  // few rows (a query): the threads split the weight's panels
    const int panels = (n + 31) / 32;
    const int tasks = std::min(pool.size(), panels);
    pool.ParallelFor(tasks, [&](int t, int) {
      const int c0 = 32 * (panels * t / tasks), c1 = std::min(n, 32 * (panels * (t + 1) / tasks));
      if (c1 > c0) run(0, m, c0, c1);
    });
    return;
  }
  ParallelRows(pool, m, [&](int r0, int r1) { run(r0, r1, 0, n); });
}

Result<std::unique_ptr<BertModel>> BertModel::Load(const ModelSpec& spec, Precision precision) {
  std::unique_ptr<BertModel> m(new BertModel());
  m->config_ = spec.bert;
  m->precision_ = precision;
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
      // Q, K and V are fused into one matrix: one GEMM instead of three.
      const std::string attn = p + "attention.self.";
      ENGRAM_ASSIGN_OR_RETURN(l.qkv, m->LoadDense({attn + "query", attn + "key", attn + "value"}, h, h));
      ENGRAM_ASSIGN_OR_RETURN(l.o, m->LoadDense({p + "attention.output.dense"}, h, h));
      ENGRAM_ASSIGN_OR_RETURN(l.ln1_g, load(p + "attention.output.LayerNorm.weight", {h}));
      ENGRAM_ASSIGN_OR_RETURN(l.ln1_b, load(p + "attention.output.LayerNorm.bias", {h}));
      ENGRAM_ASSIGN_OR_RETURN(l.up, m->LoadDense({p + "intermediate.dense"}, inter, h));
      ENGRAM_ASSIGN_OR_RETURN(l.down, m->LoadDense({p + "output.dense"}, h, inter));
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
  const int tasks = static_cast<int>(batch.sequences()) * heads;
  ws->pool.ParallelFor(tasks, [&](int task, int thread) {
    const size_t s = static_cast<size_t>(task / heads);
    const int head = task % heads;
    const int start = static_cast<int>(batch.offsets[s]);
    const int len = static_cast<int>(batch.offsets[s + 1]) - start;
    if (len == 0) return;
    std::vector<float>& scores = ws->scores[static_cast<size_t>(thread)];
    if (scores.size() < static_cast<size_t>(len) * len) scores.resize(static_cast<size_t>(len) * len);
    const float* q = ws->qkv.data() + static_cast<size_t>(start) * 3 * h + head * d;
    const float* k = q + h;
    const float* v = q + 2 * h;
    kernels::GemmNT(q, 3 * h, k, 3 * h, scores.data(), len, len, len, d, scale);
    kernels::SoftmaxRows(scores.data(), len, len);
    kernels::GemmNN(scores.data(), len, v, 3 * h, ws->ctx.data() + static_cast<size_t>(start) * h + head * d, h, len, d,
                    len);
  });
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
  ThreadPool& pool = ws->pool;
  float* x = ws->hidden.data();
  const float eps = c.layer_norm_eps;
  auto add_norm = [&](const float* residual, const float* g, const float* b) {
    ParallelRows(pool, m, [&](int r0, int r1) {
      kernels::AddLayerNorm(x + static_cast<size_t>(r0) * h, residual ? residual + static_cast<size_t>(r0) * h : nullptr,
                            g, b, r1 - r0, h, eps);
    });
  };
  add_norm(nullptr, emb_ln_g_, emb_ln_b_);
  const int inter = c.intermediate;
  for (const Layer& l : layers_) {
    Apply(l.qkv, x, h, ws->qkv.data(), 3 * h, m, ws);
    Attention(batch, ws);
    Apply(l.o, ws->ctx.data(), h, ws->tmp.data(), h, m, ws);
    add_norm(ws->tmp.data(), l.ln1_g, l.ln1_b);
    Apply(l.up, x, h, ws->up.data(), inter, m, ws);
    ParallelRows(pool, m, [&](int r0, int r1) {
      kernels::Gelu(ws->up.data() + static_cast<size_t>(r0) * inter, static_cast<size_t>(r1 - r0) * inter);
    });
    Apply(l.down, ws->up.data(), inter, ws->tmp.data(), h, m, ws);
    add_norm(ws->tmp.data(), l.ln2_g, l.ln2_b);
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
