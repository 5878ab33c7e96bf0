// The C++ runtime against PyTorch: tests/fixtures/models holds tiny
// random-weight models written by tools/bert_reference.py and PyTorch's
// outputs for them (reference.json). Token ids must match exactly, hidden
// states and embeddings within the recorded tolerance (1e-4).
#include <gtest/gtest.h>

#include <cmath>
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
  for (size_t max_batch_tokens : {size_t{8192}, size_t{40}}) {
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
