// The C++ runtime against PyTorch: tests/fixtures/models holds tiny
// random-weight models written by tools/bert_reference.py and PyTorch's
// outputs for them (reference.json). Token ids must match exactly, hidden
// states and embeddings within the recorded tolerance (1e-4).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "embed/bert_model.h"
#include "embed/embedder.h"
#include "embed/kernels.h"
#include "embed/model_config.h"
#include "embed/wordpiece.h"

namespace engram::embed {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

fs::path FixtureDir() { return fs::path(ENGRAM_SOURCE_DIR) / "tests" / "fixtures" / "models"; }

const Json& Reference() {
  static const Json j = [] {
    std::ifstream in(FixtureDir() / "reference.json");
    std::stringstream ss;
    ss << in.rdbuf();
    return Json::parse(ss.str());
  }();
  return j;
}

std::unique_ptr<WordPieceTokenizer> TokenizerFor(const ModelSpec& spec) {
  auto t = LoadTokenizer(spec);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return std::move(t).value();
}

double MaxAbsDiff(const float* got, const Json& want) {
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(got[i] - want[i].get<double>()));
  return worst;
}

class BertFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(BertFixture, TokenIdsMatchExactly) {
  const std::string name = GetParam();
  auto spec = LoadModelSpec(FixtureDir() / name);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  auto tok = TokenizerFor(*spec);
  const Json& m = Reference()["models"][name];
  for (const char* kind : {"documents", "queries"}) {
    const std::string& prompt = std::string(kind) == "queries" ? spec->query_prompt : spec->document_prompt;
    for (const Json& row : m[kind]) {
      std::vector<int32_t> want = row["ids"].get<std::vector<int32_t>>();
      EXPECT_EQ(tok->Encode(prompt + row["text"].get<std::string>()).ids, want) << name << " " << row["name"];
    }
  }
}

TEST_P(BertFixture, HiddenStatesMatchPyTorch) {
  const std::string name = GetParam();
  auto spec = LoadModelSpec(FixtureDir() / name);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  auto model = BertModel::Load(*spec);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const double tol = Reference()["tolerance"];
  int compared = 0;
  for (const Json& row : Reference()["models"][name]["documents"]) {
    if (!row.contains("last_hidden_state")) continue;
    PackedBatch batch;
    batch.Add(row["ids"].get<std::vector<int32_t>>());
    Workspace ws;
    ASSERT_TRUE((*model)->Forward(batch, &ws).ok());
    const int h = spec->bert.hidden;
    const Json& rows = row["last_hidden_state"];
    ASSERT_EQ(rows.size() * h, ws.hidden.size());
    for (size_t t = 0; t < rows.size(); ++t) {
      EXPECT_LE(MaxAbsDiff(ws.hidden.data() + t * h, rows[t]), tol) << name << " " << row["name"] << " token " << t;
    }
    ++compared;
  }
  EXPECT_GE(compared, 3);
}

// The whole provider, batched: packing mixed lengths (and over-long inputs
// truncated to the model's limit) gives each text PyTorch's unbatched
// embedding; queries get the query prompt.
TEST_P(BertFixture, BatchedEmbeddingsMatchPyTorch) {
  const std::string name = GetParam();
  for (size_t max_batch_tokens : {size_t{8192}, size_t{40}, size_t{0}}) {
    // 0: the portable kernels (no AVX-512), packed by 40 tokens.
    const bool previous = kernels::UseNativeKernels(max_batch_tokens != 0);
    if (max_batch_tokens == 0) max_batch_tokens = 40;
    auto e = OpenBertEmbedder(FixtureDir() / name, {.threads = 1, .max_batch_tokens = max_batch_tokens});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    const Json& m = Reference()["models"][name];
    EXPECT_EQ((*e)->info().dims, m["dims"].get<int>());
    EXPECT_EQ((*e)->info().max_tokens, m["max_tokens"].get<int>());
    EXPECT_EQ((*e)->info().pooling, m["pooling"].get<std::string>());
    for (auto [kind, field] : {std::pair{EmbedKind::kDocument, "documents"}, std::pair{EmbedKind::kQuery, "queries"}}) {
      std::vector<std::string> texts;
      for (const Json& row : m[field]) texts.push_back(row["text"]);
      auto v = (*e)->Embed(texts, kind);
      ASSERT_TRUE(v.ok()) << v.status().ToString();
      ASSERT_EQ(v->size(), texts.size() * 32);
      for (size_t i = 0; i < texts.size(); ++i) {
        EXPECT_LE(MaxAbsDiff(v->data() + i * 32, m[field][i]["embedding"]), 1e-4)
            << name << " " << m[field][i]["name"] << " batch tokens " << max_batch_tokens;
      }
    }
    kernels::UseNativeKernels(previous);
  }
}

double Cosine(const float* a, const Json& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    const double y = b[i].get<double>();
    ab += a[i] * y, aa += static_cast<double>(a[i]) * a[i], bb += y * y;
  }
  return ab / std::sqrt(aa * bb);
}

// The reduced-precision path on both its implementations (AVX-512 BF16
// where the CPU has it, the emulation always): every embedding within
// cosine 0.999 of PyTorch's fp32, and measurably not the fp32 numbers (the
// bf16 path really ran).
TEST_P(BertFixture, Bf16EmbeddingsStayWithinCosine) {
  const std::string name = GetParam();
  const Json& m = Reference()["models"][name];
  for (bool native : {true, false}) {
    if (native && !kernels::NativeBf16()) continue;
    const bool previous = kernels::UseNativeKernels(native);
    auto e = OpenBertEmbedder(FixtureDir() / name,
                              {.threads = 2, .max_batch_tokens = 40, .precision = Precision::kBFloat16});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    double worst = 1, largest_diff = 0;
    for (auto [kind, field] : {std::pair{EmbedKind::kDocument, "documents"}, std::pair{EmbedKind::kQuery, "queries"}}) {
      std::vector<std::string> texts;
      for (const Json& row : m[field]) texts.push_back(row["text"]);
      auto v = (*e)->Embed(texts, kind);
      ASSERT_TRUE(v.ok()) << v.status().ToString();
      for (size_t i = 0; i < texts.size(); ++i) {
        const Json& want = m[field][i]["embedding"];
        if (want.empty() || Cosine(v->data() + i * 32, want) != Cosine(v->data() + i * 32, want)) continue;
        worst = std::min(worst, Cosine(v->data() + i * 32, want));
        largest_diff = std::max(largest_diff, MaxAbsDiff(v->data() + i * 32, want));
      }
    }
    kernels::UseNativeKernels(previous);
    EXPECT_GE(worst, 0.999) << name << (native ? " native" : " emulated");
    EXPECT_GT(largest_diff, 1e-5) << name << ": bf16 gave fp32's numbers";
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, BertFixture,
                         ::testing::Values("tiny-bge-zh", "tiny-bge-en", "tiny-minilm", "tiny-e5"));

TEST(BertFixture, SpecFollowsSentenceTransformers) {
  auto zh = LoadModelSpec(FixtureDir() / "tiny-bge-zh");
  ASSERT_TRUE(zh.ok());
  EXPECT_FALSE(zh->tokenizer.lowercase);    // tokenizer_config: do_lower_case false
  EXPECT_TRUE(zh->tokenizer.pre_lowercase);  // sentence_bert_config: do_lower_case true
  EXPECT_EQ(zh->pooling, Pooling::kCls);
  auto minilm = LoadModelSpec(FixtureDir() / "tiny-minilm");
  ASSERT_TRUE(minilm.ok());
  EXPECT_EQ(minilm->tokenizer.max_length, 256u);  // not tokenizer.json's 128
  EXPECT_EQ(minilm->pooling, Pooling::kMean);
  EXPECT_EQ(minilm->vocab.filename(), "tokenizer.json");
  auto e5 = LoadModelSpec(FixtureDir() / "tiny-e5");
  ASSERT_TRUE(e5.ok());
  EXPECT_EQ(e5->query_prompt, "query: ");
  EXPECT_EQ(e5->document_prompt, "passage: ");
}

TEST(BertFixture, RerankerScoresMatchPyTorch) {
  auto r = OpenReranker(FixtureDir() / "tiny-reranker", {.threads = 1});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Json& pairs = Reference()["models"]["tiny-reranker"]["pairs"];
  for (const Json& p : pairs) {
    auto s = (*r)->Score(p["query"], {p["passage"].get<std::string>()});
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_NEAR((*s)[0], p["score"].get<double>(), 1e-4) << p["query"];
  }
  // Several passages in one call, in input order.
  std::vector<std::string> passages;
  for (const Json& p : pairs) passages.push_back(p["passage"]);
  auto all = (*r)->Score(pairs[0]["query"], passages);
  ASSERT_TRUE(all.ok());
  EXPECT_NEAR((*all)[0], pairs[0]["score"].get<double>(), 1e-4);
  // The pair encoding matches too.
  auto spec = LoadModelSpec(FixtureDir() / "tiny-reranker");
  ASSERT_TRUE(spec.ok());
  auto tok = TokenizerFor(*spec);
  for (const Json& p : pairs) {
    Encoding e = tok->EncodePair(p["query"].get<std::string>(), p["passage"].get<std::string>());
    EXPECT_EQ(e.ids, p["ids"].get<std::vector<int32_t>>());
    EXPECT_EQ(e.type_ids, p["type_ids"].get<std::vector<int32_t>>());
  }
  EXPECT_FALSE(OpenBertEmbedder(FixtureDir() / "tiny-reranker").ok());
  EXPECT_FALSE(OpenReranker(FixtureDir() / "tiny-e5").ok());
}

TEST(Kernels, ExpAndErfAreAccurate) {
  std::vector<float> xs;
  for (float x = -20.0f; x <= 20.0f; x += 0.01f) xs.push_back(x);
  std::vector<float> e = xs, f = xs;
  kernels::ExpInPlace(e.data(), e.size());
  kernels::ErfInPlace(f.data(), f.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_NEAR(e[i], std::exp(xs[i]), 3e-7 * std::exp(xs[i])) << xs[i];
    EXPECT_NEAR(f[i], std::erf(xs[i]), 3e-7) << xs[i];
  }
}

// bf16 rounding is to nearest, ties to even.
TEST(Kernels, Bf16RoundsToNearestEven) {
  const float in[] = {1.0f, 1.0f + 1.0f / 256, 1.0f + 3.0f / 256, 1.0f + 1.0f / 512, -2.5f, 0.0f, 1e-40f};
  std::vector<uint16_t> out(8);
  kernels::ToBf16(in, 7, 1, 7, out.data());
  EXPECT_EQ(out[0], 0x3f80);  // 1
  EXPECT_EQ(out[1], 0x3f80);  // a tie: 1 + 2^-8 → 1 (even)
  EXPECT_EQ(out[2], 0x3f82);  // a tie: 1 + 3·2^-8 → 1 + 2^-6 (even)
  EXPECT_EQ(out[3], 0x3f80);  // below the tie
  EXPECT_EQ(out[4], 0xc020);  // -2.5 is exact
  EXPECT_EQ(out[5], 0x0000);
  EXPECT_EQ(out[7], 0x0000);  // k padded to even with zero
}

// The packed GEMMs (fp32 and bf16) against a double-precision oracle on the
// same inputs: odd k, a partial last panel, row counts around both register
// tiles, and a column range starting at a later panel — on the CPU's best
// kernels and on the portable ones.
TEST(Kernels, PackedGemmsMatchOracle) {
  uint32_t state = 7;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / static_cast<float>(1u << 24) - 0.5f;
  };
  auto widen = [](uint16_t h) {
    const uint32_t u = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return static_cast<double>(f);
  };
  const int n = 77, k = 53;
  const size_t ks = kernels::Bf16RowStride(k);
  std::vector<float> w(static_cast<size_t>(n) * k), bias(n);
  for (float& x : w) x = next();
  for (float& x : bias) x = next();
  std::vector<float> packed32(kernels::PackedSize(n, k));
  kernels::Pack(w.data(), n, k, packed32.data());
  std::vector<uint16_t> packed16(kernels::PackedBf16Size(n, k)), wlow(static_cast<size_t>(n) * ks);
  kernels::PackBf16(w.data(), n, k, packed16.data());
  kernels::ToBf16(w.data(), k, n, k, wlow.data());
  for (bool native : {true, false}) {
    const bool previous = kernels::UseNativeKernels(native);
    for (int m : {1, 3, 5, 12, 13, 40, 70}) {
      std::vector<float> a(static_cast<size_t>(m) * k);
      for (float& x : a) x = next();
      std::vector<uint16_t> low(static_cast<size_t>(m) * ks);
      kernels::ToBf16(a.data(), k, m, k, low.data());
      for (bool bf16 : {false, true}) {
        for (int n0 : {0, 32}) {
          std::vector<float> c(static_cast<size_t>(m) * n, -7.0f);
          const float* b = n0 == 0 ? nullptr : bias.data();
          if (bf16) {
            kernels::LinearBf16(low.data(), packed16.data(), b, c.data(), n, m, k, n0, n);
          } else {
            kernels::LinearPacked(a.data(), k, packed32.data(), b, c.data(), n, m, k, n0, n);
          }
          for (int i = 0; i < m; ++i) {
            for (int j = 0; j < n; ++j) {
              const float got = c[static_cast<size_t>(i) * n + j];
              if (j < n0) {
                ASSERT_EQ(got, -7.0f) << "column outside [n0, n1) written";
                continue;
              }
              double want = b == nullptr ? 0.0 : bias[j];
              for (int kk = 0; kk < k; ++kk) {
                want += bf16 ? widen(low[i * ks + kk]) * widen(wlow[j * ks + kk])
                             : static_cast<double>(a[static_cast<size_t>(i) * k + kk]) * w[static_cast<size_t>(j) * k + kk];
              }
              ASSERT_NEAR(got, want, 1e-5) << (native ? "native " : "portable ") << (bf16 ? "bf16" : "fp32") << " m "
                                           << m << " row " << i << " col " << j;
            }
          }
        }
      }
    }
    kernels::UseNativeKernels(previous);
  }
}

TEST(HashEmbedder, DeterministicAndWordSensitive) {
  auto e = NewHashEmbedder(64);
  auto v = e->Embed({"Hybrid search 混合检索", "hybrid SEARCH 混合检索", "completely different words"}, EmbedKind::kQuery);
  ASSERT_TRUE(v.ok());
  auto dot = [&](int a, int b) {
    double s = 0;
    for (int i = 0; i < 64; ++i) s += (*v)[a * 64 + i] * (*v)[b * 64 + i];
    return s;
  };
  EXPECT_NEAR(dot(0, 0), 1.0, 1e-6);
  EXPECT_NEAR(dot(0, 1), 1.0, 1e-6);  // case-insensitive
  EXPECT_LT(dot(0, 2), 0.5);
  auto empty = e->Embed({""}, EmbedKind::kDocument);
  ASSERT_TRUE(empty.ok());
  for (float x : *empty) EXPECT_EQ(x, 0.0f);
}

}  // namespace
}  // namespace engram::embed
