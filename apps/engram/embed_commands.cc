#include "embed_commands.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>

#include "embed/bert_model.h"
#include "embed/embedder.h"
#include "embed/kernels.h"
#include "engram/status.h"
#include "output.h"

namespace engram::cli {

namespace {

using Json = nlohmann::json;

double PeakRssMb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

struct VectorizeArgs {
  std::string model;
  bool query = false;
  int threads = 0;
  std::string precision = "fp32";
  std::vector<std::string> texts;
};

int RunVectorize(const VectorizeArgs& a, bool json) {
  auto precision = embed::ParsePrecision(a.precision);
  if (!precision.ok()) return Fail(precision.status(), json);
  auto e = embed::OpenBertEmbedder(a.model, {.threads = a.threads, .precision = *precision});
  if (!e.ok()) return Fail(e.status(), json);
  std::vector<std::string> texts = a.texts;
  if (texts.empty()) {
    for (std::string line; std::getline(std::cin, line);) texts.push_back(line);
  }
  auto v = (*e)->Embed(texts, a.query ? embed::EmbedKind::kQuery : embed::EmbedKind::kDocument);
  if (!v.ok()) return Fail(v.status(), json);
  const int d = (*e)->info().dims;
  Json vectors = Json::array();
  for (size_t i = 0; i < texts.size(); ++i) {
    vectors.push_back(std::vector<float>(v->begin() + static_cast<std::ptrdiff_t>(i * d),
                                         v->begin() + static_cast<std::ptrdiff_t>((i + 1) * d)));
  }
  std::cout << engram::ops::Dump(Json{{"model", (*e)->info().model}, {"dims", d}, {"vectors", vectors}}) << "\n";
  return 0;
}

struct BenchArgs {
  std::string model;
  int batch = 32;
  int seq = 128;
  int threads = 0;
  int repeats = 5;
  std::string precision = "fp32";
};

// Reduced precision: the smallest cosine between this model's and the fp32
// model's per-sequence outputs (first token and mean of the last hidden
// state) over batch.
Result<double> MinCosineToFp32(const embed::ModelSpec& spec, const embed::BertModel& model,
                               const embed::PackedBatch& big, embed::Workspace* ws) {
  double min_cosine = 1.0;
  ENGRAM_RETURN_IF_ERROR(model.Forward(big, ws));
  const std::vector<float> low = ws->hidden;
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<embed::BertModel> exact, embed::BertModel::Load(spec));
  ENGRAM_RETURN_IF_ERROR(exact->Forward(big, ws));
  const int h = spec.bert.hidden;
  auto cosine = [&](const std::vector<float>& x, const std::vector<float>& y) {
    double xy = 0, xx = 0, yy = 0;
    for (int i = 0; i < h; ++i) xy += double(x[i]) * y[i], xx += double(x[i]) * x[i], yy += double(y[i]) * y[i];
    return xy / std::sqrt(xx * yy);
  };
  for (size_t s = 0; s < big.sequences(); ++s) {
    std::vector<float> first_a(h), first_b(h), mean_a(h, 0.0f), mean_b(h, 0.0f);
    const uint32_t t0 = big.offsets[s], t1 = big.offsets[s + 1];
    for (uint32_t t = t0; t < t1; ++t) {
      for (int i = 0; i < h; ++i) {
        const size_t at = static_cast<size_t>(t) * h + i;
        if (t == t0) first_a[i] = low[at], first_b[i] = ws->hidden[at];
        mean_a[i] += low[at], mean_b[i] += ws->hidden[at];
      }
    }
    min_cosine = std::min({min_cosine, cosine(first_a, first_b), cosine(mean_a, mean_b)});
  }
  return min_cosine;
}

// The machine's GEMM peak on the same library and thread count: one
// 4096 x 2048 x 512 sgemm (the FFN shape of a 32 x 128 batch), best of 5.
double GemmPeakGflops(int threads) {
  using Clock = std::chrono::steady_clock;
  double gemm_peak = 0;
  const int m = 4096, n = 2048, k = 512;
  std::vector<float> a(static_cast<size_t>(m) * k, 0.01f), w(static_cast<size_t>(n) * k, 0.02f),
      out(static_cast<size_t>(m) * n);
  embed::kernels::SetBlasThreads(threads);
  for (int r = 0; r < 6; ++r) {
    auto t0 = Clock::now();
    embed::kernels::Linear(a.data(), k, w.data(), nullptr, out.data(), n, m, n, k);
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (r > 0) gemm_peak = std::max(gemm_peak, 2.0 * m * n * k / s / 1e9);
  }
  embed::kernels::SetBlasThreads(1);
  return gemm_peak;
}

int RunBenchEmbed(const BenchArgs& a, bool json) {
  auto precision = embed::ParsePrecision(a.precision);
  if (!precision.ok()) return Fail(precision.status(), json);
  auto spec = embed::LoadModelSpec(a.model);
  if (!spec.ok()) return Fail(spec.status(), json);
  auto model = embed::BertModel::Load(*spec, *precision);
  if (!model.ok()) return Fail(model.status(), json);
  const int threads = a.threads > 0 ? a.threads : 2;
  embed::kernels::SetBlasThreads(1);
  const auto& c = spec->bert;
  if (a.seq > c.max_positions) return Fail(Status::InvalidArgument("--seq exceeds max_position_embeddings"), json);
  std::mt19937 rng(1);
  std::uniform_int_distribution<int32_t> id(c.vocab_size > 2000 ? 1000 : 0, c.vocab_size - 1);
  auto make = [&](int n, int len) {
    embed::PackedBatch b;
    for (int i = 0; i < n; ++i) {
      std::vector<int32_t> ids(static_cast<size_t>(len));
      for (auto& x : ids) x = id(rng);
      b.Add(ids);
    }
    return b;
  };
  using Clock = std::chrono::steady_clock;
  Status failed;
  auto time = [&](const embed::PackedBatch& b, embed::Workspace* ws) {
    auto t0 = Clock::now();
    Status st = (*model)->Forward(b, ws);
    if (!st.ok()) failed = st;
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  embed::Workspace ws(threads);
  embed::PackedBatch big = make(a.batch, a.seq), one = make(1, 16);
  time(big, &ws);
  std::vector<double> batch_s, single_s;
  for (int r = 0; r < a.repeats; ++r) batch_s.push_back(time(big, &ws));
  time(one, &ws);
  for (int r = 0; r < 50; ++r) single_s.push_back(time(one, &ws));
  if (!failed.ok()) return Fail(failed, json);
  const double peak_rss_mb = PeakRssMb();  // before the GEMM probe's buffers
  double min_cosine = 1.0;  // reduced precision against fp32, over the timed batch
  if (*precision != embed::Precision::kFloat32) {
    auto cosine = MinCosineToFp32(*spec, **model, big, &ws);
    if (!cosine.ok()) return Fail(cosine.status(), json);
    min_cosine = *cosine;
  }
  const double gemm_peak = GemmPeakGflops(threads);
  const double per_token = 2.0 * c.layers *
                           (4.0 * c.hidden * c.hidden + 2.0 * c.hidden * c.intermediate + 2.0 * a.seq * c.hidden);
  const double seq_per_s = a.batch / Median(batch_s);
  Json j = {{"model", spec->id},
            {"precision", embed::PrecisionName(*precision)},
            {"native_bf16", embed::kernels::NativeBf16()},
            {"batch", a.batch},
            {"seq", a.seq},
            {"threads", threads},
            {"blas_core", embed::kernels::BlasCore()},
            {"seq_per_s", seq_per_s},
            {"gflops", seq_per_s * a.seq * per_token / 1e9},
            {"gemm_peak_gflops", gemm_peak},
            {"single_ms", 1000.0 * Median(single_s)},
            {"peak_rss_mb", peak_rss_mb},
            {"min_cosine_to_fp32", min_cosine}};
  std::cout << engram::ops::Dump(j, json ? 2 : -1) << "\n";
  return 0;
}

}  // namespace

void AddEmbedCommands(CLI::App& app, const bool* json, int* exit_code) {
  auto va = std::make_shared<VectorizeArgs>();
  auto* vec = app.add_subcommand("vectorize", "Embed texts with a local model and print the vectors as JSON");
  vec->add_option("--model,-m", va->model, "Hugging Face model directory (BERT family, safetensors)")->required();
  vec->add_flag("--query", va->query, "Embed as queries (applies the model's query instruction or prefix)");
  vec->add_option("--threads", va->threads, "Encoder threads (default: all cores)")->check(CLI::Range(1, 256));
  vec->add_option("--precision", va->precision,
                  "fp32 (default) or bf16: bf16 weights and GEMM inputs with fp32 sums (AVX-512 BF16 when present)");
  vec->add_option("TEXT", va->texts, "Texts to embed (default: one per line from stdin)");
  vec->footer(
      "Prints {\"model\", \"dims\", \"vectors\": [[...], ...]}, one vector per text in order. Texts past the\n"
      "model's limit (sentence_bert_config.json max_seq_length) are truncated, as sentence-transformers does.");
  vec->callback([va, json, exit_code] { *exit_code = RunVectorize(*va, *json); });

  auto ba = std::make_shared<BenchArgs>();
  auto* bench = app.add_subcommand("bench", "Benchmarks: embed (the local encoder), vector (the HNSW index), search (latency on this brain)");
  bench->require_subcommand(1);
  auto* be = bench->add_subcommand("embed", "Encoder throughput at batch x seq and latency of one 16-token query");
  be->add_option("--model,-m", ba->model, "Model directory")->required();
  be->add_option("--batch", ba->batch, "Sequences per forward pass (default 32)")->check(CLI::Range(1, 4096));
  be->add_option("--seq", ba->seq, "Tokens per sequence (default 128)")->check(CLI::Range(2, 8192));
  be->add_option("--threads", ba->threads, "Encoder threads (default 2)")->check(CLI::Range(1, 256));
  be->add_option("--precision", ba->precision, "fp32 (default) or bf16");
  be->add_option("--repeats", ba->repeats, "Timed batches; the median is reported (default 5)")
      ->check(CLI::Range(1, 1000));
  be->footer(
      "Prints {\"seq_per_s\", \"single_ms\", \"peak_rss_mb\", \"gflops\", ...}: seq_per_s at batch x seq (median of\n"
      "--repeats), single_ms the median of 50 runs of one 16-token sequence, gflops the effective rate,\n"
      "gemm_peak_gflops one large OpenBLAS sgemm on the same threads (the machine's practical peak).\n"
      "Random token ids; weights as stored. bench/run-embed-bench compares with PyTorch.");
  be->callback([ba, json, exit_code] { *exit_code = RunBenchEmbed(*ba, *json); });
}

}  // namespace engram::cli
