#include "search/vector_arm.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <unordered_set>

#include "vector/distance.h"
#include "vector/exact.h"

namespace engram::search {

namespace {

constexpr size_t kPage = 4096;

std::string Seconds(std::chrono::steady_clock::time_point t0) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return buf;
}

}  // namespace

VectorArm::~VectorArm() = default;

size_t VectorArm::size() const { return hnsw_ ? hnsw_->size() : ids_.size(); }

const float* VectorArm::Find(int64_t chunk_id) const {
  if (hnsw_) return hnsw_->Find(chunk_id);
  auto it = row_.find(chunk_id);
  return it == row_.end() ? nullptr : data_.data() + it->second * static_cast<size_t>(dims_);
}

void VectorArm::AddFlat(int64_t id, const std::vector<float>& v) {
  auto it = row_.find(id);
  if (it != row_.end()) {
    std::copy(v.begin(), v.end(), data_.begin() + static_cast<std::ptrdiff_t>(it->second * dims_));
    return;
  }
  row_[id] = ids_.size();
  ids_.push_back(id);
  data_.insert(data_.end(), v.begin(), v.end());
}

void VectorArm::RemoveFlat(int64_t id) {
  auto it = row_.find(id);
  if (it == row_.end()) return;
  const size_t row = it->second, last = ids_.size() - 1;
  if (row != last) {
    std::copy(data_.begin() + static_cast<std::ptrdiff_t>(last * dims_),
              data_.begin() + static_cast<std::ptrdiff_t>((last + 1) * dims_),
              data_.begin() + static_cast<std::ptrdiff_t>(row * dims_));
    ids_[row] = ids_[last];
    row_[ids_[row]] = row;
  }
  ids_.pop_back();
  data_.resize(ids_.size() * static_cast<size_t>(dims_));
  row_.erase(it);
}

Status VectorArm::Rebuild(VectorStore& store) {
  ENGRAM_ASSIGN_OR_RETURN(EmbeddingCounts counts, store.CountEmbeddings(model_, ReadScope::All("")));
  const bool graph = static_cast<size_t>(counts.current) >= options_.exact_below;
  hnsw_.reset();
  ids_.clear(), data_.clear(), row_.clear();
  if (graph) {
    hnsw_ = std::make_unique<vector::HnswIndex>(
        dims_, vector::HnswParams{.m = options_.m, .ef_construction = options_.ef_construction});
    hnsw_->Reserve(static_cast<size_t>(counts.current));
  }
  for (ChunkId after;;) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<ChunkVector> page, store.ChunkVectors(model_, after, kPage));
    if (page.empty()) break;
    for (const ChunkVector& cv : page) {
      if (static_cast<int>(cv.vector.size()) != dims_) {
        return Status::InvalidArgument("chunk " + std::to_string(cv.chunk_id.value()) + " has a vector of " +
                                       std::to_string(cv.vector.size()) + " dimensions, the brain's model " +
                                       std::to_string(dims_) + ": run `engram embed --all`");
      }
      if (hnsw_) {
        ENGRAM_RETURN_IF_ERROR(hnsw_->Add(cv.chunk_id.value(), cv.vector.data()));
      } else {
        AddFlat(cv.chunk_id.value(), cv.vector);
      }
    }
    after = page.back().chunk_id;
  }
  return Status::Ok();
}

Status VectorArm::Apply(VectorStore& store, const std::vector<int64_t>& changed, bool* changed_any) {
  for (size_t i = 0; i < changed.size(); i += kPage) {
    std::vector<int64_t> ids(changed.begin() + static_cast<std::ptrdiff_t>(i),
                             changed.begin() + static_cast<std::ptrdiff_t>(std::min(changed.size(), i + kPage)));
    ENGRAM_ASSIGN_OR_RETURN(std::vector<ChunkVector> present, store.ChunkVectorsById(model_, ToIds<ChunkId>(ids)));
    std::unordered_set<int64_t> have;
    for (const ChunkVector& cv : present) {
      if (static_cast<int>(cv.vector.size()) != dims_) continue;
      have.insert(cv.chunk_id.value());
      if (hnsw_) {
        ENGRAM_RETURN_IF_ERROR(hnsw_->Add(cv.chunk_id.value(), cv.vector.data()));
      } else {
        AddFlat(cv.chunk_id.value(), cv.vector);
      }
      *changed_any = true;
    }
    for (int64_t id : ids) {
      if (have.count(id) != 0) continue;
      if (hnsw_) {
        *changed_any = hnsw_->Remove(id) || *changed_any;
      } else if (row_.count(id) != 0) {
        RemoveFlat(id);
        *changed_any = true;
      }
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<VectorArm>> VectorArm::Open(VectorStore& store, ChangeLog& log, const std::filesystem::path& file,
                                                   const std::string& model, int dims,
                                                   const VectorIndexOptions& options, std::string* note) {
  std::unique_ptr<VectorArm> arm(new VectorArm());
  arm->model_ = model;
  arm->dims_ = dims;
  arm->options_ = options;
  auto t0 = std::chrono::steady_clock::now();
  ENGRAM_ASSIGN_OR_RETURN(int64_t generation, log.Generation());
  arm->generation_ = generation;
  ENGRAM_ASSIGN_OR_RETURN(EmbeddingCounts counts, store.CountEmbeddings(model, ReadScope::All("")));
  if (static_cast<size_t>(counts.current) < options.exact_below) {
    ENGRAM_RETURN_IF_ERROR(arm->Rebuild(store));
    return arm;
  }
  std::string why;
  uint64_t file_generation = 0;
  auto loaded = vector::HnswIndex::Load(file, &file_generation);
  bool rebuild = true, changed = false;
  if (!loaded.ok()) {
    why = loaded.status().code() == StatusCode::kNotFound ? "no index file" : loaded.status().message();
  } else if ((*loaded)->dims() != dims || (*loaded)->params().m != options.m) {
    why = "index file of another model or parameters";
  } else if (static_cast<int64_t>(file_generation) > generation) {
    why = "index file newer than the database";
  } else {
    ENGRAM_ASSIGN_OR_RETURN(auto changes, log.ChangesSince(ChangeStream::kVectors, static_cast<int64_t>(file_generation)));
    if (!changes.has_value()) {
      why = "index file older than the change log";
    } else {
      arm->hnsw_ = std::move(*loaded);
      ENGRAM_RETURN_IF_ERROR(arm->Apply(store, *changes, &changed));
      rebuild = false;
      if (arm->hnsw_->deleted() > options.compact_share * static_cast<double>(arm->hnsw_->slots())) {
        arm->hnsw_ = arm->hnsw_->Compact();
        changed = true;
      }
      if (changed && note != nullptr) *note = "vector index caught up with " + std::to_string(changes->size()) + " changes";
    }
  }
  if (rebuild) {
    ENGRAM_RETURN_IF_ERROR(arm->Rebuild(store));
    changed = true;
    if (note != nullptr) {
      *note = "vector index built (" + why + "): " + std::to_string(arm->size()) + " vectors in " + Seconds(t0);
    }
  }
  if (changed && arm->hnsw_) {
    Status saved = arm->hnsw_->Save(file, static_cast<uint64_t>(generation));
    if (!saved.ok() && note != nullptr) *note += "; not saved: " + saved.message();
  }
  return arm;
}

Status VectorArm::CatchUp(VectorStore& store, ChangeLog& log) {
  ENGRAM_ASSIGN_OR_RETURN(int64_t generation, log.Generation());
  if (generation == generation_) return Status::Ok();
  ENGRAM_ASSIGN_OR_RETURN(auto changes, log.ChangesSince(ChangeStream::kVectors, generation_));
  if (!changes.has_value() || (!hnsw_ && ids_.size() + changes->size() >= options_.exact_below)) {
    ENGRAM_RETURN_IF_ERROR(Rebuild(store));
  } else {
    bool changed = false;
    ENGRAM_RETURN_IF_ERROR(Apply(store, *changes, &changed));
    if (hnsw_ && hnsw_->deleted() > options_.compact_share * static_cast<double>(hnsw_->slots())) {
      hnsw_ = hnsw_->Compact();
    }
  }
  generation_ = generation;
  return Status::Ok();
}

std::vector<vector::Neighbor> VectorArm::Search(const float* q, size_t k, const ChunkSelector* selector) const {
  std::vector<vector::Neighbor> out;
  const size_t d = static_cast<size_t>(dims_);
  auto pass = [selector](int64_t id) { return selector == nullptr || selector->Contains(ChunkId(id)); };
  const bool filtered = selector != nullptr;
  const std::vector<ChunkId>* candidates = filtered ? selector->Candidates() : nullptr;
  if (hnsw_ && (candidates == nullptr || candidates->size() >= options_.exact_filter_max)) {
    vector::LabelFilter filter = pass;
    return hnsw_->Search(q, k, static_cast<size_t>(std::max(options_.ef_search, static_cast<int>(k))),
                         filtered ? &filter : nullptr);
  }
  if (hnsw_) {  // a selective filter: exact over its candidates
    for (const ChunkId chunk : *candidates) {
      const int64_t id = chunk.value();
      if (!pass(id)) continue;
      if (const float* v = hnsw_->Find(id)) out.push_back({id, vector::Dot(q, v, d)});
    }
    std::sort(out.begin(), out.end(), [](const vector::Neighbor& a, const vector::Neighbor& b) {
      return a.score != b.score ? a.score > b.score : a.label < b.label;
    });
    if (out.size() > k) out.resize(k);
    return out;
  }
  std::function<bool(size_t)> keep = [&](size_t row) { return pass(ids_[row]); };
  for (const auto& s : vector::ExactTopK(data_.data(), ids_.size(), d, q, k, filtered ? &keep : nullptr)) {
    out.push_back({ids_[s.row], s.score});
  }
  return out;
}

std::vector<float> VectorArm::SampleCosines(const float* q, size_t n, const IdNotInSelector<ChunkId>* hidden) const {
  if (hidden != nullptr && hidden->left_out().empty()) hidden = nullptr;
  if (hnsw_) {
    vector::LabelFilter filter = [hidden](int64_t id) { return hidden->Contains(ChunkId(id)); };
    return hnsw_->SampleScores(q, n, hidden != nullptr ? &filter : nullptr);
  }
  std::vector<float> out;
  if (n == 0 || ids_.empty()) return out;
  const size_t d = static_cast<size_t>(dims_);
  const size_t stride = std::max<size_t>(VisibleSize(hidden) / n, 1);
  size_t seen = 0;
  for (size_t row = 0; row < ids_.size() && out.size() < n; ++row) {
    if (hidden != nullptr && !hidden->Contains(ChunkId(ids_[row]))) continue;
    if (seen++ % stride == 0) out.push_back(vector::Dot(q, data_.data() + row * d, d));
  }
  return out;
}

size_t VectorArm::VisibleSize(const IdNotInSelector<ChunkId>* hidden) const {
  size_t n = size();
  if (hidden == nullptr) return n;
  for (const ChunkId id : hidden->left_out()) n -= Find(id.value()) != nullptr ? 1 : 0;
  return n;
}

std::optional<float> VectorArm::Cosine(const float* q, ChunkId chunk_id) const {
  const float* v = Find(chunk_id.value());
  if (v == nullptr) return std::nullopt;
  return vector::Dot(q, v, static_cast<size_t>(dims_));
}

}  // namespace engram::search
