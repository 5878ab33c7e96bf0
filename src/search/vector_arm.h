// The vector arm's index over the brain's chunk vectors. The database is the
// source of truth; this is a cache of it:
//   - collections under exact_below vectors are held flat and searched
//     exactly (read from the database when opened);
//   - larger ones are an HNSW graph persisted in an index file that records
//     the database's vector generation. Opening catches up with the vector
//     log since that generation; a file that is missing, damaged, of another
//     version, model or dimension, or older than the log is rebuilt.
// Filters: an IdSelector of the chunk ids the caller may get. A selective
// one (its candidates fewer than exact_filter_max) is searched exactly over
// those ids only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engram/store/id_selector.h"
#include "engram/store/change_log.h"
#include "engram/store/vector_store.h"
#include "engram/status.h"
#include "vector/hnsw_index.h"

namespace engram::search {

struct VectorIndexOptions {
  size_t exact_below = 10000;     // smaller collections: no graph, exact search
  size_t exact_filter_max = 2000;  // filters allowing fewer ids: exact search over them
  int m = 16;
  int ef_construction = 200;
  int ef_search = 64;
  double compact_share = 0.2;  // rebuild once tombstones pass this share of the graph
};

class VectorArm {
 public:
  // note (optional) receives what happened ("vector index built: 12000 vectors in 4.1 s").
  // The index at file is caught up from log (its vector stream) when the
  // log reaches back to the generation the file records, else rebuilt.
  static Result<std::unique_ptr<VectorArm>> Open(VectorStore& store, ChangeLog& log, const std::filesystem::path& file,
                                                 const std::string& model, int dims, const VectorIndexOptions& options,
                                                 std::string* note = nullptr);
  ~VectorArm();
  // Applies what the log recorded since the arm last read it (other
  // processes' writes, this one's through another connection); rebuilds
  // when the log no longer reaches back, or a flat collection outgrew
  // exact_below. Cost: one row read when nothing changed.
  Status CatchUp(VectorStore& store, ChangeLog& log);

  size_t size() const;
  bool graph() const { return hnsw_ != nullptr; }
  int dims() const { return dims_; }
  // The log's generation the arm reflects.
  int64_t generation() const { return generation_; }
  // The k chunks closest to q (unit length) by cosine, best first, among
  // those the selector contains (nullptr: any).
  std::vector<vector::Neighbor> Search(const float* q, size_t k, const ChunkSelector* selector) const;
  // q's cosines with up to n chunks spread over the collection less the
  // hidden ones: the scores a query gets by chance, against which its best
  // hits are judged. Which chunks are drawn depends only on those not hidden.
  std::vector<float> SampleCosines(const float* q, size_t n, const IdNotInSelector<ChunkId>* hidden = nullptr) const;
  // Vectors in the index that are not hidden.
  size_t VisibleSize(const IdNotInSelector<ChunkId>* hidden) const;
  // cos(q, chunk) for a chunk of the index, else nothing.
  std::optional<float> Cosine(const float* q, ChunkId chunk_id) const;

 private:
  VectorArm() = default;
  Status Rebuild(VectorStore& store);
  Status Apply(VectorStore& store, const std::vector<int64_t>& changed, bool* changed_any);
  const float* Find(int64_t chunk_id) const;
  void AddFlat(int64_t id, const std::vector<float>& v);
  void RemoveFlat(int64_t id);

  std::string model_;
  int dims_ = 0;
  int64_t generation_ = 0;  // the log's generation the arm reflects (read before the vectors)
  VectorIndexOptions options_;
  std::unique_ptr<vector::HnswIndex> hnsw_;
  // Flat store (small collections).
  std::vector<int64_t> ids_;
  std::vector<float> data_;
  std::unordered_map<int64_t, size_t> row_;
};

}  // namespace engram::search
