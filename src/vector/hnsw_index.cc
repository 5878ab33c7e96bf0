#include "vector/hnsw_index.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <queue>

#include <unistd.h>

namespace engram::vector {

namespace {

constexpr size_t kAlign = 64;
size_t RoundUp(size_t n, size_t a) { return (n + a - 1) / a * a; }

void FreeBytes(char* p) { std::free(p); }

// Marks of visited slots for one search, reused across searches of a thread:
// a slot is visited when its mark equals the current tag.
struct Visited {
  std::vector<uint16_t> marks;
  uint16_t tag = 0;
  void Reset(size_t n) {
    if (marks.size() < n) marks.resize(n, 0);
    if (++tag == 0) {
      std::fill(marks.begin(), marks.end(), 0);
      tag = 1;
    }
  }
  bool TestAndSet(uint32_t slot) {
    if (marks[slot] == tag) return true;
    marks[slot] = tag;
    return false;
  }
};

Visited& ThreadVisited() {
  thread_local Visited v;
  return v;
}

struct Better {  // max-heap on score
  template <typename C>
  bool operator()(const C& a, const C& b) const { return a.score < b.score; }
};
struct Worse {  // min-heap on score
  template <typename C>
  bool operator()(const C& a, const C& b) const { return a.score > b.score; }
};

inline void Prefetch(const void* p) { __builtin_prefetch(p, 0, 3); }

}  // namespace

HnswIndex::HnswIndex(int dims, const HnswParams& params)
    : dims_(dims),
      params_(params),
      max0_(static_cast<size_t>(std::max(2, params.m)) * 2),
      max_upper_(static_cast<size_t>(std::max(2, params.m))),
      code_bytes_(CodeBytes(static_cast<size_t>(dims))),
      level_mult_(1.0 / std::log(static_cast<double>(std::max(2, params.m)))),
      rng_(params.seed * 0x9E3779B97F4A7C15ull + 1) {
  block_bytes_ = RoundUp(RoundUp(sizeof(uint32_t) * (1 + max0_), kAlign) + code_bytes_ + sizeof(CodeInfo), kAlign);
  level0_ = std::unique_ptr<char[], void (*)(char*)>(nullptr, FreeBytes);
}

HnswIndex::~HnswIndex() = default;

size_t HnswIndex::MemoryBytes() const {
  size_t upper = 0;
  for (const auto& u : upper_) upper += u.capacity() * sizeof(uint32_t);
  return capacity_ * (block_bytes_ + sizeof(float) * dims_ + sizeof(int64_t) + 2) + upper +
         by_label_.size() * (sizeof(int64_t) + sizeof(uint32_t) + 2 * sizeof(void*));
}

uint32_t* HnswIndex::Links0(uint32_t slot) const {
  return reinterpret_cast<uint32_t*>(level0_.get() + static_cast<size_t>(slot) * block_bytes_);
}

uint32_t* HnswIndex::LinksUpper(uint32_t slot, int level) const {
  auto& u = const_cast<std::vector<uint32_t>&>(upper_[slot]);
  return u.data() + static_cast<size_t>(level - 1) * (1 + max_upper_);
}

const int8_t* HnswIndex::Code(uint32_t slot) const {
  return reinterpret_cast<const int8_t*>(level0_.get() + static_cast<size_t>(slot) * block_bytes_ +
                                         RoundUp(sizeof(uint32_t) * (1 + max0_), kAlign));
}

const CodeInfo& HnswIndex::Info(uint32_t slot) const {
  return *reinterpret_cast<const CodeInfo*>(Code(slot) + code_bytes_);
}

float HnswIndex::Approx(const uint8_t* qcode, const CodeInfo& qinfo, uint32_t slot) const {
  return ApproxDot(DotU8S8(qcode, Code(slot), code_bytes_), qinfo, Info(slot));
}

bool HnswIndex::Hidden(uint32_t slot, const LabelFilter* filter) const {
  return deleted_[slot] != 0 || (filter != nullptr && !(*filter)(labels_[slot]));
}

int HnswIndex::RandomLevel() {
  // xorshift64*: deterministic for a given seed and insertion order.
  rng_ ^= rng_ >> 12, rng_ ^= rng_ << 25, rng_ ^= rng_ >> 27;
  const uint64_t r = rng_ * 0x2545F4914F6CDD1Dull;
  const double u = (static_cast<double>(r >> 11) + 0.5) / 9007199254740992.0;
  return std::min(static_cast<int>(-std::log(u) * level_mult_), 30);
}

void HnswIndex::Grow(size_t want) {
  if (want <= capacity_) return;
  size_t cap = std::max<size_t>(64, capacity_);
  while (cap < want) cap *= 2;
  if (capacity_ == 0 && want > 64) cap = want;  // a first Reserve is exact
  char* p = static_cast<char*>(std::aligned_alloc(kAlign, cap * block_bytes_));
  if (p == nullptr) throw std::bad_alloc();
  if (slots_ > 0) std::memcpy(p, level0_.get(), slots_ * block_bytes_);
  level0_.reset(p);
  vectors_.resize(cap * static_cast<size_t>(dims_));
  capacity_ = cap;
}

std::vector<HnswIndex::Candidate> HnswIndex::SearchLevel(const uint8_t* qcode, const CodeInfo& qinfo,
                                                         std::vector<Candidate> entries, int level, size_t ef,
                                                         bool skip_hidden, const LabelFilter* filter) const {
  Visited& visited = ThreadVisited();
  visited.Reset(slots_);
  std::vector<Candidate> frontier, top;
  frontier.reserve(ef * 4);
  top.reserve(ef + 1);
  for (const Candidate& e : entries) {
    if (visited.TestAndSet(e.slot)) continue;
    frontier.push_back(e);
    std::push_heap(frontier.begin(), frontier.end(), Better());
    if (!skip_hidden || !Hidden(e.slot, filter)) {
      top.push_back(e);
      std::push_heap(top.begin(), top.end(), Worse());
    }
  }
  float bound = top.size() >= ef ? top.front().score : -INFINITY;
  while (!frontier.empty()) {
    const Candidate c = frontier.front();
    if (c.score < bound && top.size() >= ef) break;
    std::pop_heap(frontier.begin(), frontier.end(), Better());
    frontier.pop_back();
    const uint32_t* links = level == 0 ? Links0(c.slot) : LinksUpper(c.slot, level);
    const uint32_t count = links[0];
    for (uint32_t i = 0; i < count; ++i) Prefetch(Code(links[1 + i]));
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t nb = links[1 + i];
      if (visited.TestAndSet(nb)) continue;
      const float s = Approx(qcode, qinfo, nb);
      if (top.size() < ef || s > bound) {
        frontier.push_back({s, nb});
        std::push_heap(frontier.begin(), frontier.end(), Better());
        if (!skip_hidden || !Hidden(nb, filter)) {
          top.push_back({s, nb});
          std::push_heap(top.begin(), top.end(), Worse());
          if (top.size() > ef) {
            std::pop_heap(top.begin(), top.end(), Worse());
            top.pop_back();
          }
          if (top.size() >= ef) bound = top.front().score;
        }
      }
    }
  }
  return top;
}

uint32_t HnswIndex::Greedy(const uint8_t* qcode, const CodeInfo& qinfo, uint32_t entry, int from_level,
                           int to_level) const {
  uint32_t cur = entry;
  float best = Approx(qcode, qinfo, cur);
  for (int level = from_level; level > to_level; --level) {
    bool moved = true;
    while (moved) {
      moved = false;
      const uint32_t* links = LinksUpper(cur, level);
      for (uint32_t i = 0; i < links[0]; ++i) {
        const float s = Approx(qcode, qinfo, links[1 + i]);
        if (s > best) best = s, cur = links[1 + i], moved = true;
      }
    }
  }
  return cur;
}

std::vector<uint32_t> HnswIndex::SelectNeighbors(std::vector<Candidate> candidates, size_t m) const {
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.score != b.score ? a.score > b.score : a.slot < b.slot;
  });
  std::vector<uint32_t> kept;
  if (candidates.size() <= m) {
    for (const Candidate& c : candidates) kept.push_back(c.slot);
    return kept;
  }
  for (const Candidate& c : candidates) {
    if (kept.size() >= m) break;
    bool good = true;
    for (uint32_t k : kept) {
      if (Dot(Vec(c.slot), Vec(k), static_cast<size_t>(dims_)) > c.score) {
        good = false;
        break;
      }
    }
    if (good) kept.push_back(c.slot);
  }
  return kept;
}

void HnswIndex::Connect(uint32_t slot, int level, const std::vector<uint32_t>& neighbors) {
  const size_t cap = level == 0 ? max0_ : max_upper_;
  uint32_t* own = level == 0 ? Links0(slot) : LinksUpper(slot, level);
  own[0] = static_cast<uint32_t>(std::min(neighbors.size(), cap));
  for (uint32_t i = 0; i < own[0]; ++i) own[1 + i] = neighbors[i];
  for (uint32_t nb : neighbors) {
    uint32_t* links = level == 0 ? Links0(nb) : LinksUpper(nb, level);
    if (links[0] < cap) {
      links[1 + links[0]] = slot;
      ++links[0];
      continue;
    }
    // Full: keep the heuristic's choice among the old links and the new one.
    std::vector<Candidate> pool;
    pool.reserve(cap + 1);
    const float* base = Vec(nb);
    pool.push_back({Dot(base, Vec(slot), static_cast<size_t>(dims_)), slot});
    for (uint32_t i = 0; i < links[0]; ++i) {
      pool.push_back({Dot(base, Vec(links[1 + i]), static_cast<size_t>(dims_)), links[1 + i]});
    }
    std::vector<uint32_t> kept = SelectNeighbors(std::move(pool), cap);
    links[0] = static_cast<uint32_t>(kept.size());
    for (size_t i = 0; i < kept.size(); ++i) links[1 + i] = kept[i];
  }
}

Status HnswIndex::Add(int64_t label, const float* v) {
  for (int i = 0; i < dims_; ++i) {
    if (!std::isfinite(v[i])) return Status::InvalidArgument("vector for " + std::to_string(label) + " is not finite");
  }
  auto existing = by_label_.find(label);
  if (existing != by_label_.end()) {
    deleted_[existing->second] = 1;
    ++deleted_count_;
    by_label_.erase(existing);
  }
  Grow(slots_ + 1);
  const uint32_t slot = static_cast<uint32_t>(slots_++);
  std::memcpy(vectors_.data() + static_cast<size_t>(slot) * dims_, v, sizeof(float) * dims_);
  char* block = level0_.get() + static_cast<size_t>(slot) * block_bytes_;
  std::memset(block, 0, block_bytes_);
  CodeInfo info = EncodeVector(v, static_cast<size_t>(dims_), const_cast<int8_t*>(Code(slot)));
  std::memcpy(const_cast<int8_t*>(Code(slot)) + code_bytes_, &info, sizeof info);
  labels_.push_back(label);
  deleted_.push_back(0);
  const int level = RandomLevel();
  levels_.push_back(static_cast<uint8_t>(level));
  upper_.emplace_back();
  if (level > 0) upper_.back().assign(static_cast<size_t>(level) * (1 + max_upper_), 0);
  by_label_[label] = slot;
  if (max_level_ < 0) {
    entry_ = slot;
    max_level_ = level;
    return Status::Ok();
  }
  std::vector<uint8_t> qcode(code_bytes_);
  const CodeInfo qinfo = EncodeQuery(v, static_cast<size_t>(dims_), qcode.data());
  uint32_t cur = Greedy(qcode.data(), qinfo, entry_, max_level_, level);
  std::vector<Candidate> entries{{Approx(qcode.data(), qinfo, cur), cur}};
  for (int l = std::min(level, max_level_); l >= 0; --l) {
    std::vector<Candidate> found = SearchLevel(qcode.data(), qinfo, entries, l,
                                               static_cast<size_t>(params_.ef_construction), false, nullptr);
    // Exact scores for choosing links: the graph's quality does not depend
    // on the codes.
    std::vector<Candidate> exact = found;
    for (Candidate& c : exact) c.score = Dot(v, Vec(c.slot), static_cast<size_t>(dims_));
    std::vector<uint32_t> neighbors = SelectNeighbors(std::move(exact), static_cast<size_t>(params_.m));
    Connect(slot, l, neighbors);
    entries = std::move(found);
  }
  if (level > max_level_) {
    max_level_ = level;
    entry_ = slot;
  }
  return Status::Ok();
}

bool HnswIndex::Remove(int64_t label) {
  auto it = by_label_.find(label);
  if (it == by_label_.end()) return false;
  deleted_[it->second] = 1;
  ++deleted_count_;
  by_label_.erase(it);
  return true;
}

std::vector<Neighbor> HnswIndex::Search(const float* q, size_t k, size_t ef, const LabelFilter* filter) const {
  std::vector<Neighbor> out;
  if (max_level_ < 0 || k == 0 || size() == 0) return out;
  ef = std::max(ef, k);
  std::vector<uint8_t> qcode(code_bytes_);
  const CodeInfo qinfo = EncodeQuery(q, static_cast<size_t>(dims_), qcode.data());
  const uint32_t start = Greedy(qcode.data(), qinfo, entry_, max_level_, 0);
  std::vector<Candidate> found =
      SearchLevel(qcode.data(), qinfo, {{Approx(qcode.data(), qinfo, start), start}}, 0, ef, true, filter);
  for (Candidate& c : found) c.score = Dot(q, Vec(c.slot), static_cast<size_t>(dims_));
  std::sort(found.begin(), found.end(), [&](const Candidate& a, const Candidate& b) {
    return a.score != b.score ? a.score > b.score : labels_[a.slot] < labels_[b.slot];
  });
  for (size_t i = 0; i < found.size() && out.size() < k; ++i) out.push_back({labels_[found[i].slot], found[i].score});
  return out;
}

void HnswIndex::ForEach(const std::function<void(int64_t, const float*)>& fn) const {
  for (uint32_t s = 0; s < slots_; ++s) {
    if (deleted_[s] == 0) fn(labels_[s], Vec(s));
  }
}

std::vector<float> HnswIndex::SampleScores(const float* q, size_t n, const LabelFilter* filter) const {
  std::vector<float> out;
  if (n == 0 || slots_ == 0) return out;
  const size_t d = static_cast<size_t>(dims_);
  // Spread over the labels that pass, in slot order: which ones are drawn
  // depends only on them, never on what the filter hides.
  size_t passing = 0;
  for (size_t s = 0; s < slots_; ++s) passing += Hidden(static_cast<uint32_t>(s), filter) ? 0 : 1;
  const size_t stride = std::max<size_t>(passing / n, 1);
  size_t seen = 0;
  for (size_t s = 0; s < slots_ && out.size() < n; ++s) {
    if (Hidden(static_cast<uint32_t>(s), filter)) continue;
    if (seen++ % stride == 0) out.push_back(Dot(q, Vec(static_cast<uint32_t>(s)), d));
  }
  return out;
}

std::unique_ptr<HnswIndex> HnswIndex::Compact() const {
  auto fresh = std::make_unique<HnswIndex>(dims_, params_);
  fresh->Reserve(size());
  ForEach([&](int64_t label, const float* v) { (void)fresh->Add(label, v); });
  return fresh;
}

}  // namespace engram::vector
