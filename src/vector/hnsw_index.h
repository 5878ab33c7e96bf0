// A Hierarchical Navigable Small World graph (Malkov & Yashunin) over
// L2-normalised vectors, scored by inner product (= cosine).
//
// The graph is walked on int8 codes of the vectors (a quarter of the bytes of
// fp32, multiplied with AVX-512 VNNI where present); the candidates it finds
// are re-scored with the exact fp32 vectors, so the returned scores are exact.
// Labels are the caller's 64-bit ids (chunk ids). Remove leaves a tombstone:
// the node still routes searches but is never returned; Add of an existing
// label tombstones the old node. Callers rebuild (Compact) once tombstones
// pass a threshold, so the graph does not grow without bound.
//
// Search may filter labels: nodes that fail the filter route but are not
// returned (for very selective filters, exact search over the passing set is
// the better tool: see exact.h).
//
// Thread safety: Search is const and may run concurrently; Add, Remove and
// Compact need exclusive access.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "engram/status.h"
#include "vector/distance.h"

namespace engram::vector {

struct HnswParams {
  int m = 16;                 // links per node on upper levels; 2m on level 0
  int ef_construction = 200;  // candidate list while inserting
  uint64_t seed = 100;        // level draws
};

struct Neighbor {
  int64_t label = 0;
  float score = 0;  // inner product, higher is closer
};

using LabelFilter = std::function<bool(int64_t label)>;

class HnswIndex {
 public:
  HnswIndex(int dims, const HnswParams& params);
  ~HnswIndex();
  HnswIndex(const HnswIndex&) = delete;
  HnswIndex& operator=(const HnswIndex&) = delete;

  int dims() const { return dims_; }
  const HnswParams& params() const { return params_; }
  size_t size() const { return slots_ - deleted_count_; }  // live vectors
  size_t slots() const { return slots_; }                  // live + tombstones
  size_t deleted() const { return deleted_count_; }
  bool Contains(int64_t label) const { return by_label_.count(label) != 0; }
  // The stored vector of a live label, or nullptr.
  const float* Find(int64_t label) const {
    auto it = by_label_.find(label);
    return it == by_label_.end() ? nullptr : Vec(it->second);
  }
  size_t MemoryBytes() const;

  // v has dims() floats (normalised by the caller; non-finite values are
  // InvalidArgument).
  Status Add(int64_t label, const float* v);
  bool Remove(int64_t label);
  // The k best of the ef candidates found (ef is raised to k), best first.
  std::vector<Neighbor> Search(const float* q, size_t k, size_t ef, const LabelFilter* filter = nullptr) const;
  // A new index over the live vectors only (same parameters).
  std::unique_ptr<HnswIndex> Compact() const;
  // q's scores against up to n live vectors spread evenly over the slots (a
  // sample of the collection, for callers that need the background
  // distribution of scores); deterministic for one index state.
  std::vector<float> SampleScores(const float* q, size_t n, const LabelFilter* filter = nullptr) const;
  // Every live (label, vector), for callers that rebuild or check.
  void ForEach(const std::function<void(int64_t label, const float* v)>& fn) const;

  // File: magic, version, parameters, the caller's generation, the graph,
  // and a checksum of everything before it. Written to a temporary file and
  // renamed into place. Load refuses (InvalidArgument, naming what is wrong)
  // a file of another version, a truncated or damaged one, or links that
  // point outside the graph; the caller then rebuilds.
  Status Save(const std::filesystem::path& file, uint64_t generation) const;
  static Result<std::unique_ptr<HnswIndex>> Load(const std::filesystem::path& file, uint64_t* generation);
  // The file's trailing checksum of data[0, n). Exposed for the fuzz target,
  // which re-seals mutated files so that the structural checks run.
  static uint64_t FileChecksum(const void* data, size_t n);
  // Room for n slots without regrowth (memory is then exactly what n needs).
  void Reserve(size_t n) { Grow(n); }

 private:
  struct Candidate {
    float score;
    uint32_t slot;
  };
  uint32_t* Links0(uint32_t slot) const;
  uint32_t* LinksUpper(uint32_t slot, int level) const;
  const int8_t* Code(uint32_t slot) const;
  const CodeInfo& Info(uint32_t slot) const;
  const float* Vec(uint32_t slot) const { return vectors_.data() + static_cast<size_t>(slot) * dims_; }
  int RandomLevel();
  void Grow(size_t want);
  // Best-first search on one level from the entry points; returns up to ef
  // candidates, unordered. Deleted and filtered nodes route but are left
  // out of the result when skip_hidden.
  std::vector<Candidate> SearchLevel(const uint8_t* qcode, const CodeInfo& qinfo, std::vector<Candidate> entries,
                                     int level, size_t ef, bool skip_hidden, const LabelFilter* filter) const;
  uint32_t Greedy(const uint8_t* qcode, const CodeInfo& qinfo, uint32_t entry, int from_level, int to_level) const;
  // Hnsw's neighbour heuristic: keep a candidate only when it is closer to
  // the base than to every neighbour already kept.
  std::vector<uint32_t> SelectNeighbors(std::vector<Candidate> candidates, size_t m) const;
  void Connect(uint32_t slot, int level, const std::vector<uint32_t>& neighbors);
  float Approx(const uint8_t* qcode, const CodeInfo& qinfo, uint32_t slot) const;
  bool Hidden(uint32_t slot, const LabelFilter* filter) const;

  int dims_;
  HnswParams params_;
  size_t max0_, max_upper_;
  size_t code_bytes_, block_bytes_;
  double level_mult_;
  uint64_t rng_;
  size_t slots_ = 0, capacity_ = 0, deleted_count_ = 0;
  std::vector<float> vectors_;
  std::unique_ptr<char[], void (*)(char*)> level0_{nullptr, nullptr};  // per slot: count, links, code, info
  std::vector<int64_t> labels_;
  std::vector<uint8_t> deleted_;
  std::vector<uint8_t> levels_;
  std::vector<std::vector<uint32_t>> upper_;  // per slot with level > 0: level × (1 + max_upper_)
  std::unordered_map<int64_t, uint32_t> by_label_;
  uint32_t entry_ = 0;
  int max_level_ = -1;
};

}  // namespace engram::vector
