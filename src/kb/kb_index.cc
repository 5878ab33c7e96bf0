#include "kb/kb_index.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "vector/distance.h"

namespace engram::kb {

namespace {

constexpr size_t kScanPage = 1000;

bool SameCollection(const KbCollection& a, const KbCollection& b) {
  return a.name == b.name && a.fields == b.fields && a.embedder == b.embedder && a.dimension == b.dimension &&
         a.created_at == b.created_at;
}

// v scaled to length 1 (all zeros stays zeros).
std::vector<float> Normalized(const std::vector<float>& v) {
  double sum = 0;
  for (float x : v) sum += static_cast<double>(x) * x;
  std::vector<float> out(v);
  if (sum > 0) {
    const auto inv = static_cast<float>(1.0 / std::sqrt(sum));
    for (float& x : out) x *= inv;
  }
  return out;
}

}  // namespace

void KbIndex::Index(Indexed& ix, const KbEntry& e) {
  if (ix.info.embedder.empty()) {
    ix.lexical.Put(e.key, e.text);
  } else if (static_cast<int>(e.vector.size()) == ix.info.dimension) {
    ix.vectors.Put(e.key, Normalized(e.vector));
  } else {
    ix.vectors.Erase(e.key);  // no vector of the collection's space: it cannot be found by similarity
  }
  ix.values[e.key] = ReadEntryValues(ix.fields, e.source, e.meta);
  key_collection_[e.key] = ix.info.name;
}

void KbIndex::Unindex(int64_t key) {
  auto it = key_collection_.find(key);
  if (it == key_collection_.end()) return;
  auto c = collections_.find(it->second);
  if (c != collections_.end()) {
    c->second.lexical.Remove(key);
    c->second.vectors.Erase(key);
    c->second.values.erase(key);
  }
  key_collection_.erase(it);
}

Status KbIndex::CatchUp() {
  ENGRAM_ASSIGN_OR_RETURN(int64_t generation, changes_.Generation());
  if (generation == generation_) return Status::Ok();
  std::optional<std::vector<int64_t>> keys;
  if (generation_ >= 0) {
    ENGRAM_ASSIGN_OR_RETURN(keys, changes_.ChangesSince(ChangeStream::kKbEntries, generation_));
  }
  if (!keys) {  // the first look, or the log no longer reaches back: every collection is rebuilt on use
    collections_.clear();
    key_collection_.clear();
    generation_ = generation;
    return Status::Ok();
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<KbEntry> entries, store_.KbEntriesByKey(*keys));
  for (int64_t key : *keys) Unindex(key);
  for (const KbEntry& e : entries) {
    auto c = collections_.find(e.collection);
    if (c != collections_.end()) Index(c->second, e);  // a collection not open yet is scanned when opened
  }
  generation_ = generation;
  return Status::Ok();
}

Result<KbCollection> KbIndex::Collection(std::string_view name) {
  ENGRAM_ASSIGN_OR_RETURN(std::optional<KbCollection> c, store_.FindKbCollection(name));
  if (!c) return Status::NotFound("no knowledge collection '" + std::string(name) + "'");
  return *c;
}

Result<KbIndex::Indexed*> KbIndex::Open(std::string_view name) {
  ENGRAM_ASSIGN_OR_RETURN(KbCollection info, Collection(name));
  auto it = collections_.find(name);
  if (it != collections_.end() && SameCollection(it->second.info, info)) return &it->second;
  if (it != collections_.end()) {  // dropped and made again since it was opened
    for (const auto& [key, values] : it->second.values) key_collection_.erase(key);
    collections_.erase(it);
  }
  Indexed& ix = collections_[info.name];
  ix.info = info;
  ix.fields = FilterableFields(info);
  // Entries written after CatchUp read the generation are scanned here too;
  // the next catch-up applies them again, which is harmless.
  for (int64_t after = 0;;) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<KbEntry> page, store_.ScanKbEntries(info.name, after, kScanPage));
    for (const KbEntry& e : page) Index(ix, e);
    if (page.size() < kScanPage) break;
    after = page.back().key;
  }
  return &ix;
}

void VectorRows::Put(int64_t key, const std::vector<float>& v) {
  if (dims_ == 0) dims_ = static_cast<int>(v.size());
  if (static_cast<int>(v.size()) != dims_ || dims_ == 0) return;
  uint32_t slot;
  if (auto it = slots_.find(key); it != slots_.end()) {
    slot = it->second;
  } else if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = static_cast<uint32_t>(keys_.size());
    keys_.push_back(-1);
    rows_.resize(rows_.size() + static_cast<size_t>(dims_));
  }
  keys_[slot] = key;
  slots_[key] = slot;
  std::copy(v.begin(), v.end(), rows_.begin() + static_cast<std::ptrdiff_t>(slot) * dims_);
}

void VectorRows::Erase(int64_t key) {
  auto it = slots_.find(key);
  if (it == slots_.end()) return;
  keys_[it->second] = -1;
  free_.push_back(it->second);
  slots_.erase(it);
}

std::vector<ScoredKey> VectorRows::Score(const float* q, double min_dot) const {
  std::vector<ScoredKey> out;
  const auto n = static_cast<size_t>(dims_);
  for (size_t slot = 0; slot < keys_.size(); ++slot) {
    if (keys_[slot] < 0) continue;
    const double dot = vector::Dot(q, rows_.data() + slot * n, n);
    if (dot >= min_dot) out.push_back({keys_[slot], std::min(1.0, dot)});
  }
  return out;
}

Result<std::vector<Hit>> KbIndex::Search(std::string_view collection, std::string_view text,
                                         const nlohmann::json& filters, const SearchOptions& options,
                                         const EmbedQuery& embed) {
  ENGRAM_RETURN_IF_ERROR(CatchUp());
  ENGRAM_ASSIGN_OR_RETURN(Indexed * ix, Open(collection));
  ENGRAM_ASSIGN_OR_RETURN(Filter filter, Filter::Parse(ix->fields, filters));
  std::vector<ScoredKey> scored;
  if (ix->info.embedder.empty()) {
    scored = ix->lexical.Score(text, options.threshold);
  } else {
    if (!embed) return Status::FailedPrecondition("collection '" + ix->info.name + "' needs a query embedding");
    ENGRAM_ASSIGN_OR_RETURN(std::vector<float> query, embed(ix->info));
    if (static_cast<int>(query.size()) != ix->info.dimension) {
      return Status::FailedPrecondition("collection '" + ix->info.name + "' holds " +
                                        std::to_string(ix->info.dimension) + "-dimension vectors of " +
                                        ix->info.embedder + "; the query's has " + std::to_string(query.size()));
    }
    const std::vector<float> q = Normalized(query);
    scored = ix->vectors.Score(q.data(), options.threshold);
  }
  if (!filter.empty()) {
    std::erase_if(scored, [&](const ScoredKey& s) {
      auto v = ix->values.find(s.key);
      return v == ix->values.end() || !filter.Matches(v->second);
    });
  }
  const auto better = [](const ScoredKey& a, const ScoredKey& b) {
    return a.score != b.score ? a.score > b.score : a.key < b.key;
  };
  const size_t n = std::min(options.top_k, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(n), scored.end(), better);
  scored.resize(n);
  std::vector<int64_t> keys;
  for (const ScoredKey& s : scored) keys.push_back(s.key);
  ENGRAM_ASSIGN_OR_RETURN(std::vector<KbEntry> entries, store_.KbEntriesByKey(keys));
  std::unordered_map<int64_t, KbEntry*> by_key;
  for (KbEntry& e : entries) by_key[e.key] = &e;
  std::vector<Hit> hits;
  for (const ScoredKey& s : scored) {
    auto e = by_key.find(s.key);
    if (e != by_key.end()) hits.push_back({std::move(*e->second), s.score});
  }
  return hits;
}

}  // namespace engram::kb
