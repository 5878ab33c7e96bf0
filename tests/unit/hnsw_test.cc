// The vector index against exact search: recall, deletes and replacement,
// filters, compaction, the index file (round trip and every kind of damage),
// the int8 distance against fp32, and the fvecs reader.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <unistd.h>

#include "vector/distance.h"
#include "vector/exact.h"
#include "vector/fvecs.h"
#include "vector/hnsw_index.h"

namespace engram::vector {
namespace {

namespace fs = std::filesystem;

// n clustered unit vectors of d dimensions.
std::vector<float> Clustered(size_t n, int d, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g;
  std::vector<float> centres(20 * static_cast<size_t>(d));
  for (float& x : centres) x = g(rng);
  std::vector<float> out(n * d);
  for (size_t i = 0; i < n; ++i) {
    const float* c = centres.data() + (rng() % 20) * d;
    double s = 0;
    for (int j = 0; j < d; ++j) {
      out[i * d + j] = c[j] + 0.6f * g(rng);
      s += out[i * d + j] * out[i * d + j];
    }
    for (int j = 0; j < d; ++j) out[i * d + j] /= static_cast<float>(std::sqrt(s));
  }
  return out;
}

double Recall(const HnswIndex& index, const std::vector<float>& base, const std::vector<float>& queries, int d,
              size_t k, size_t ef) {
  const size_t nq = queries.size() / d, n = base.size() / d;
  size_t hits = 0;
  for (size_t q = 0; q < nq; ++q) {
    std::set<int64_t> want;
    for (const auto& s : ExactTopK(base.data(), n, d, queries.data() + q * d, k)) want.insert(static_cast<int64_t>(s.row));
    for (const auto& nb : index.Search(queries.data() + q * d, k, ef)) hits += want.count(nb.label);
  }
  return static_cast<double>(hits) / static_cast<double>(nq * k);
}

std::unique_ptr<HnswIndex> Build(const std::vector<float>& base, int d, int m = 12) {
  auto index = std::make_unique<HnswIndex>(d, HnswParams{.m = m, .ef_construction = 100});
  for (size_t i = 0; i < base.size() / d; ++i) EXPECT_TRUE(index->Add(static_cast<int64_t>(i), base.data() + i * d).ok());
  return index;
}

TEST(Hnsw, RecallAgainstExactSearch) {
  const int d = 48;
  auto base = Clustered(3000, d, 1), queries = Clustered(100, d, 2);
  auto owned = Build(base, d);
  HnswIndex& index = *owned;
  EXPECT_EQ(index.size(), 3000u);
  EXPECT_GE(Recall(index, base, queries, d, 10, 64), 0.95);
  // Scores are exact inner products, best first.
  auto hits = index.Search(queries.data(), 5, 64);
  ASSERT_EQ(hits.size(), 5u);
  for (size_t i = 0; i < hits.size(); ++i) {
    EXPECT_NEAR(hits[i].score, Dot(queries.data(), base.data() + hits[i].label * d, d), 1e-5);
    if (i > 0) {
      EXPECT_GE(hits[i - 1].score, hits[i].score);
    }
  }
}

TEST(Hnsw, EmptyAndTinyIndexes) {
  HnswIndex index(8, {});
  std::vector<float> q(8, 0.0f);
  q[0] = 1;
  EXPECT_TRUE(index.Search(q.data(), 10, 10).empty());
  ASSERT_TRUE(index.Add(7, q.data()).ok());
  auto hits = index.Search(q.data(), 10, 10);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].label, 7);
  EXPECT_NEAR(hits[0].score, 1.0f, 1e-6);
  q[1] = NAN;
  EXPECT_EQ(index.Add(8, q.data()).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index.size(), 1u);
}

TEST(Hnsw, RemovedAndReplacedLabels) {
  const int d = 32;
  auto base = Clustered(1500, d, 3);
  auto owned = Build(base, d);
  HnswIndex& index = *owned;
  for (int64_t l = 0; l < 1500; l += 3) EXPECT_TRUE(index.Remove(l));
  EXPECT_FALSE(index.Remove(0));
  EXPECT_EQ(index.size(), 1000u);
  EXPECT_EQ(index.deleted(), 500u);
  for (size_t q = 0; q < 50; ++q) {
    for (const auto& nb : index.Search(base.data() + q * d, 10, 50)) EXPECT_NE(nb.label % 3, 0) << nb.label;
  }
  // Replacing label 1's vector with label 2's: a search for it finds both at score 1.
  ASSERT_TRUE(index.Add(1, base.data() + 2 * d).ok());
  EXPECT_EQ(index.size(), 1000u);
  auto hits = index.Search(base.data() + 2 * d, 2, 50);
  ASSERT_EQ(hits.size(), 2u);
  std::set<int64_t> labels{hits[0].label, hits[1].label};
  EXPECT_EQ(labels, (std::set<int64_t>{1, 2}));
  EXPECT_NEAR(hits[1].score, 1.0f, 1e-5);
  // Compaction keeps exactly the live vectors and their neighbourhoods.
  auto compact = index.Compact();
  EXPECT_EQ(compact->size(), 1000u);
  EXPECT_EQ(compact->deleted(), 0u);
  EXPECT_EQ(compact->slots(), 1000u);
  size_t same = 0;
  for (size_t q = 0; q < 50; ++q) {
    auto a = index.Search(base.data() + q * d, 10, 80), b = compact->Search(base.data() + q * d, 10, 80);
    std::set<int64_t> sa, sb;
    for (auto& x : a) sa.insert(x.label);
    for (auto& x : b) sb.insert(x.label);
    for (int64_t l : sb) same += sa.count(l);
  }
  EXPECT_GE(same, 480u);
}

TEST(Hnsw, FilterReturnsOnlyPassingLabels) {
  const int d = 32;
  auto base = Clustered(2000, d, 4);
  auto owned = Build(base, d);
  HnswIndex& index = *owned;
  LabelFilter even = [](int64_t l) { return l % 2 == 0; };
  size_t hits = 0, total = 0;
  for (size_t q = 0; q < 40; ++q) {
    auto got = index.Search(base.data() + q * d, 10, 100, &even);
    EXPECT_EQ(got.size(), 10u);
    std::function<bool(size_t)> keep = [](size_t r) { return r % 2 == 0; };
    std::set<int64_t> want;
    for (const auto& s : ExactTopK(base.data(), 2000, d, base.data() + q * d, 10, &keep)) want.insert(s.row);
    for (const auto& nb : got) {
      EXPECT_EQ(nb.label % 2, 0);
      hits += want.count(nb.label);
    }
    total += 10;
  }
  EXPECT_GE(static_cast<double>(hits) / total, 0.95);
}

class HnswFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("engram-hnsw-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  void Spit(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary | std::ios::trunc) << s; }
  fs::path dir_;
};

TEST_F(HnswFile, RoundTripKeepsResultsAndGeneration) {
  const int d = 24;
  auto base = Clustered(800, d, 5);
  auto owned = Build(base, d);
  HnswIndex& index = *owned;
  index.Remove(5);
  const fs::path file = dir_ / "index.hnsw";
  ASSERT_TRUE(index.Save(file, 42).ok());
  uint64_t generation = 0;
  auto loaded = HnswIndex::Load(file, &generation);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(generation, 42u);
  EXPECT_EQ((*loaded)->size(), index.size());
  EXPECT_EQ((*loaded)->deleted(), 1u);
  EXPECT_FALSE((*loaded)->Contains(5));
  for (size_t q = 0; q < 30; ++q) {
    auto a = index.Search(base.data() + q * d, 10, 40), b = (*loaded)->Search(base.data() + q * d, 10, 40);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].label, b[i].label);
      EXPECT_EQ(a[i].score, b[i].score);
    }
  }
  // The loaded index keeps taking inserts.
  ASSERT_TRUE((*loaded)->Add(5000, base.data()).ok());
  EXPECT_TRUE((*loaded)->Contains(5000));
}

TEST_F(HnswFile, EmptyIndexRoundTrips) {
  HnswIndex empty(8, {});
  ASSERT_TRUE(empty.Save(dir_ / "empty.hnsw", 3).ok());
  uint64_t generation = 0;
  auto loaded = HnswIndex::Load(dir_ / "empty.hnsw", &generation);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(generation, 3u);
  EXPECT_EQ((*loaded)->size(), 0u);
  std::vector<float> q(8, 0.0f);
  q[0] = 1;
  EXPECT_TRUE((*loaded)->Search(q.data(), 3, 10).empty());
  ASSERT_TRUE((*loaded)->Add(1, q.data()).ok());
  EXPECT_EQ((*loaded)->Search(q.data(), 3, 10).size(), 1u);
}

TEST_F(HnswFile, DamageIsRefusedNeverTrusted) {
  const int d = 16;
  auto base = Clustered(300, d, 6);
  auto owned = Build(base, d);
  HnswIndex& index = *owned;
  const fs::path file = dir_ / "index.hnsw";
  ASSERT_TRUE(index.Save(file, 1).ok());
  const std::string good = Slurp(file);
  auto expect_refused = [&](const std::string& bytes, const std::string& why) -> std::string {
    Spit(file, bytes);
    auto r = HnswIndex::Load(file, nullptr);
    if (r.ok()) {
      ADD_FAILURE() << why << ": loaded";
      return "";
    }
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << why;
    EXPECT_NE(r.status().message().find(file.string()), std::string::npos) << r.status().ToString();
    return r.status().message();
  };
  expect_refused(good.substr(0, good.size() / 2), "truncated");
  expect_refused("", "empty");
  expect_refused("not an index at all, just text", "garbage");
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x40;
  EXPECT_NE(expect_refused(flipped, "bit flip").find("checksum"), std::string::npos);
  std::string version = good;
  version[8] = 9;
  EXPECT_NE(expect_refused(version, "version").find("version 9"), std::string::npos);
  // A link outside the graph under a valid checksum (what the fuzz target
  // produces) is caught by the structural checks.
  std::string bad_link = good;
  const size_t header = 8 + 4 * 4 + 8 * 3 + 4 + 4;
  const size_t links0 = header + 300 * (8 + 1 + 1 + 4 * d);
  uint32_t count = 1, target = 100000;
  std::memcpy(&bad_link[links0], &count, 4);
  std::memcpy(&bad_link[links0 + 4], &target, 4);
  const uint64_t seal = HnswIndex::FileChecksum(bad_link.data(), bad_link.size() - 8);
  std::memcpy(&bad_link[bad_link.size() - 8], &seal, 8);
  EXPECT_NE(expect_refused(bad_link, "bad link").find("link outside the graph"), std::string::npos);
  EXPECT_EQ(HnswIndex::Load(dir_ / "missing.hnsw", nullptr).status().code(), StatusCode::kNotFound);
}

TEST(Distance, CodesApproximateTheInnerProduct) {
  const int d = 384;
  auto v = Clustered(200, d, 7);
  std::vector<int8_t> code(CodeBytes(d));
  std::vector<uint8_t> qcode(CodeBytes(d));
  double worst = 0;
  for (bool native : {true, false}) {
    const bool previous = UseNativeDistance(native);
    for (int i = 0; i < 100; ++i) {
      const float* q = v.data() + i * d;
      const float* x = v.data() + (i + 100) * d;
      CodeInfo xi = EncodeVector(x, d, code.data());
      CodeInfo qi = EncodeQuery(q, d, qcode.data());
      double exact = 0;
      for (int j = 0; j < d; ++j) exact += static_cast<double>(q[j]) * x[j];
      EXPECT_NEAR(Dot(q, x, d), exact, 1e-5);
      int32_t raw = 0;
      for (size_t j = 0; j < CodeBytes(d); ++j) raw += static_cast<int32_t>(qcode[j]) * code[j];
      EXPECT_EQ(DotU8S8(qcode.data(), code.data(), CodeBytes(d)), raw);
      worst = std::max(worst, std::fabs(ApproxDot(raw, qi, xi) - exact));
    }
    UseNativeDistance(previous);
  }
  EXPECT_LT(worst, 0.02);
}

TEST(Exact, TopKOrderTiesAndFilter) {
  const float base[] = {1, 0, 0, 1, 1, 0, 0.5f, 0.5f};  // rows 0 and 2 tie
  const float q[] = {1, 0};
  auto top = ExactTopK(base, 4, 2, q, 3);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].row, 0u);
  EXPECT_EQ(top[1].row, 2u);
  EXPECT_EQ(top[2].row, 3u);
  std::function<bool(size_t)> odd = [](size_t r) { return r % 2 == 1; };
  top = ExactTopK(base, 4, 2, q, 5, &odd);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].row, 3u);
  EXPECT_TRUE(ExactTopK(base, 4, 2, q, 0).empty());
}

TEST_F(HnswFile, FvecsRoundTripAndErrors) {
  VecFile<float> v{3, 2, {1, 2, 3, 4, 5, 6}};
  ASSERT_TRUE(WriteFvecs(dir_ / "a.fvecs", v).ok());
  auto back = ReadFvecs(dir_ / "a.fvecs");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->rows, 3u);
  EXPECT_EQ(back->data, v.data);
  std::string bytes = Slurp(dir_ / "a.fvecs");
  Spit(dir_ / "b.fvecs", bytes.substr(0, bytes.size() - 2));
  auto cut = ReadFvecs(dir_ / "b.fvecs");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("record 2"), std::string::npos) << cut.status().ToString();
  int32_t three = 3;
  std::memcpy(&bytes[12], &three, 4);  // record 1 claims 3 dimensions
  Spit(dir_ / "c.fvecs", bytes);
  auto mixed = ReadFvecs(dir_ / "c.fvecs");
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("record 1: dimension 3"), std::string::npos) << mixed.status().ToString();
}

}  // namespace
}  // namespace engram::vector
