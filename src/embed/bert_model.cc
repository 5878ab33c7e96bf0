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

// C = A·W + b for a transposed weight wt [k × n] on the pool: row blocks on
// the BLAS library when there are many rows, else our few-row kernel on
// blocks of output columns (one query: m is ~16, n is 1536 or 2048).
void ParallelLinear(ThreadPool& pool, const float* a, int lda, const float* wt, const float* bias, float* c, int ldc,
                    int m, int n, int k) {
  const int threads = pool.size();
  if (m <= 64) {
    const int blocks = (n + 31) / 32;
    const int tasks = std::min(threads, blocks);
    pool.ParallelFor(tasks, [&](int t, int) {
      const int c0 = 32 * (blocks * t / tasks), c1 = std::min(n, 32 * (blocks * (t + 1) / tasks));
      if (c1 > c0) kernels::LinearFewRows(a, lda, wt, bias, c, ldc, m, n, k, c0, c1);
    });
    return;
  }
  const int tasks = std::min(m / 16, threads * 4);
  pool.ParallelFor(tasks, [&](int t, int) {
    const int r0 = static_cast<int>(static_cast<int64_t>(m) * t / tasks);
    const int r1 = static_cast<int>(static_cast<int64_t>(m) * (t + 1) / tasks);
    kernels::LinearT(a + static_cast<size_t>(r0) * lda, lda, wt, bias, c + static_cast<size_t>(r0) * ldc, ldc, r1 - r0,
                     n, k);
  });
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

void BertModel::FreeDeleter::operator()(float* p) const { std::free(p); }

float* BertModel::Allocate(size_t n) {
  constexpr size_t kHuge = 2u << 20;
  const size_t bytes = std::max<size_t>(n * sizeof(float), 64);
  void* p = nullptr;
  if (bytes >= kHuge) {
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    if (::posix_memalign(&p, kHuge, rounded) == 0) ::madvise(p, rounded, MADV_HUGEPAGE);
  } else if (::posix_memalign(&p, 64, bytes) != 0) {
    p = nullptr;
  }
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  owned_.emplace_back(static_cast<float*>(p), n);
  return static_cast<float*>(p);
}

const float* BertModel::Own(std::vector<float> values) {
  float* p = Allocate(values.size());
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

Result<const float*> BertModel::Transposed(const std::vector<std::string>& names, int64_t out, int64_t in) {
  const int64_t total = out * static_cast<int64_t>(names.size());
  float* t = Allocate(static_cast<size_t>(total * in));
  for (size_t part = 0; part < names.size(); ++part) {
    ENGRAM_ASSIGN_OR_RETURN(const float* w, Tensor(names[part], {out, in}));
    const int64_t col0 = static_cast<int64_t>(part) * out;
    for (int64_t o = 0; o < out; ++o) {
      for (int64_t i = 0; i < in; ++i) t[static_cast<size_t>(i * total + col0 + o)] = w[o * in + i];
    }
    file_->Release(prefix_ + names[part]);
  }
  return t;
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
      // Q, K and V are fused into one matrix: one GEMM instead of three.
      const std::string attn = p + "attention.self.";
      ENGRAM_ASSIGN_OR_RETURN(l.qkv_t, m->Transposed({attn + "query.weight", attn + "key.weight", attn + "value.weight"}, h, h));
      std::vector<float> qkv_b(static_cast<size_t>(3 * h));
      const char* parts[] = {"query", "key", "value"};
      for (int j = 0; j < 3; ++j) {
        ENGRAM_ASSIGN_OR_RETURN(const float* b, load(attn + parts[j] + ".bias", {h}));
        std::memcpy(qkv_b.data() + j * h, b, sizeof(float) * h);
      }
      l.qkv_b = m->Own(std::move(qkv_b));
      ENGRAM_ASSIGN_OR_RETURN(l.o_t, m->Transposed({p + "attention.output.dense.weight"}, h, h));
      ENGRAM_ASSIGN_OR_RETURN(l.o_b, load(p + "attention.output.dense.bias", {h}));
      ENGRAM_ASSIGN_OR_RETURN(l.ln1_g, load(p + "attention.output.LayerNorm.weight", {h}));
      ENGRAM_ASSIGN_OR_RETURN(l.ln1_b, load(p + "attention.output.LayerNorm.bias", {h}));
      ENGRAM_ASSIGN_OR_RETURN(l.up_t, m->Transposed({p + "intermediate.dense.weight"}, inter, h));
      ENGRAM_ASSIGN_OR_RETURN(l.up_b, load(p + "intermediate.dense.bias", {inter}));
      ENGRAM_ASSIGN_OR_RETURN(l.down_t, m->Transposed({p + "output.dense.weight"}, h, inter));
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
    ParallelLinear(pool, x, h, l.qkv_t, l.qkv_b, ws->qkv.data(), 3 * h, m, 3 * h, h);
    Attention(batch, ws);
    ParallelLinear(pool, ws->ctx.data(), h, l.o_t, l.o_b, ws->tmp.data(), h, m, h, h);
    add_norm(ws->tmp.data(), l.ln1_g, l.ln1_b);
    ParallelLinear(pool, x, h, l.up_t, l.up_b, ws->up.data(), inter, m, inter, h);
    ParallelRows(pool, m, [&](int r0, int r1) {
      kernels::Gelu(ws->up.data() + static_cast<size_t>(r0) * inter, static_cast<size_t>(r1 - r0) * inter);
    });
    ParallelLinear(pool, ws->up.data(), inter, l.down_t, l.down_b, ws->tmp.data(), h, m, h, inter);
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
