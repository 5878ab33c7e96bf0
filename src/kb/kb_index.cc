#include "kb/kb_index.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "kb/page_entry.h"
#include "vector/distance.h"

namespace engram::kb {

namespace {

constexpr size_t kScanPage = 1000;
constexpr const char* kPageSource = "default";  // the brain's own Markdown folder

// A folder page's entry: id = slug, text = the question, source = the file, meta as a governed entry's.
KbEntry FolderEntry(const StoredPage& page, const PageEntry& e, const std::string& collection) {
  KbEntry out;
  out.key = -page.id.value();
  out.collection = collection;
  out.id = page.slug;
  out.text = e.question;
  out.source = page.path;
  out.meta = nlohmann::json{{"safeChat", e.answer}, {"className", e.class_name},
                            {"type", e.type.empty() ? "none" : e.type}}
                 .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  out.updated_at = page.indexed_at;
  out.updated_by = "sync";
  return out;
}

bool SameCollection(const KbCollection& a, const KbCollection& b) {
  return a.name == b.name && a.fields == b.fields && a.embedder == b.embedder && a.dimension == b.dimension &&
         a.created_at == b.created_at && a.folder == b.folder;
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
  ENGRAM_ASSIGN_OR_RETURN(int64_t generation, changes_->Generation());
  if (generation == generation_) return Status::Ok();
  std::optional<std::vector<int64_t>> keys;
  if (generation_ >= 0) {
    ENGRAM_ASSIGN_OR_RETURN(keys, changes_->ChangesSince(ChangeStream::kKbEntries, generation_));
  }
  if (!keys) {  // the first look, or the log no longer reaches back: every collection is rebuilt on use
    collections_.clear();
    key_collection_.clear();
    generation_ = generation;
    return Status::Ok();
  }
  ENGRAM_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> pages,
                          changes_->ChangesSince(ChangeStream::kPages, generation_));
  if (!pages || !pages->empty()) {
    for (auto& [name, ix] : collections_) ix.folder_stale = true;
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<KbEntry> entries, store_->KbEntriesByKey(*keys));
  for (int64_t key : *keys) Unindex(key);
  for (const KbEntry& e : entries) {
    auto c = collections_.find(e.collection);
    if (c != collections_.end()) Index(c->second, e);  // a collection not open yet is scanned when opened
  }
  generation_ = generation;
  return Status::Ok();
}

Result<KbCollection> KbIndex::Collection(std::string_view name) {
  ENGRAM_ASSIGN_OR_RETURN(std::optional<KbCollection> c, store_->FindKbCollection(name));
  if (!c) return Status::NotFound("no knowledge collection '" + std::string(name) + "'");
  return *c;
}

Status KbIndex::SyncFolder(Indexed& ix) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<SourceFile> files, pages_->ListSourceFiles(kPageSource));
  std::erase_if(files, [&](const SourceFile& f) { return !InFolder(f.path, ix.info.folder); });
  auto drop = [&](int64_t key) {
    if (key == 0) return;
    ix.lexical.Remove(key);
    ix.public_lexical.Remove(key);
    ix.private_keys.erase(key);
    ix.values.erase(key);
    ix.folder_entries.erase(key);
  };
  // Pages gone first: a renamed page keeps its id, so its entry's key, under its new slug.
  std::set<std::string, std::less<>> seen;
  for (const SourceFile& f : files) seen.insert(f.slug);
  for (auto it = ix.folder_pages.begin(); it != ix.folder_pages.end();) {
    if (seen.count(it->first) != 0) {
      ++it;
      continue;
    }
    drop(it->second.second);
    it = ix.folder_pages.erase(it);
  }
  for (const SourceFile& f : files) {
    auto known = ix.folder_pages.find(f.slug);
    if (known != ix.folder_pages.end() && known->second.first == f.content_hash) continue;
    auto page = pages_->GetPage(ReadScope::All(kPageSource), f.slug);
    if (!page.ok() && page.status().code() == StatusCode::kNotFound) continue;  // gone since the listing
    ENGRAM_RETURN_IF_ERROR(page.status());
    if (known != ix.folder_pages.end()) drop(known->second.second);
    int64_t key = 0;
    std::optional<PageEntry> e = ReadPageEntry(page->frontmatter_json, page->content);
    if (e && e->online) {
      KbEntry entry = FolderEntry(*page, *e, ix.info.name);
      key = entry.key;
      ix.lexical.Put(key, entry.text);
      if (page->is_private) {
        ix.private_keys.insert(key);
      } else {
        ix.public_lexical.Put(key, entry.text);
      }
      ix.values[key] = ReadEntryValues(ix.fields, entry.source, entry.meta);
      ix.folder_entries[key] = std::move(entry);
    }
    ix.folder_pages[f.slug] = {f.content_hash, key};
  }
  ix.folder_stale = false;
  return Status::Ok();
}

Result<std::vector<KbEntry>> KbIndex::FolderEntries(std::string_view name, const ReadScope& scope) {
  ENGRAM_RETURN_IF_ERROR(CatchUp());
  ENGRAM_ASSIGN_OR_RETURN(Indexed * ix, Open(name));
  std::vector<KbEntry> out;
  for (const auto& [key, e] : ix->folder_entries) {
    if (scope.Sees(ix->private_keys.count(key) != 0)) out.push_back(e);
  }
  std::sort(out.begin(), out.end(), [](const KbEntry& a, const KbEntry& b) { return a.id < b.id; });
  return out;
}

Result<KbIndex::Indexed*> KbIndex::Open(std::string_view name) {
  ENGRAM_ASSIGN_OR_RETURN(KbCollection info, Collection(name));
  auto it = collections_.find(name);
  if (it != collections_.end() && SameCollection(it->second.info, info)) {
    if (!info.folder.empty() && it->second.folder_stale) ENGRAM_RETURN_IF_ERROR(SyncFolder(it->second));
    return &it->second;
  }
  if (it != collections_.end()) {  // dropped and made again since it was opened
    for (const auto& [key, values] : it->second.values) key_collection_.erase(key);
    collections_.erase(it);
  }
  Indexed& ix = collections_[info.name];
  ix.info = info;
  ix.fields = FilterableFields(info);
  if (!info.folder.empty()) {
    ENGRAM_RETURN_IF_ERROR(SyncFolder(ix));
    return &ix;
  }
  // Entries written after CatchUp read the generation are scanned here too;
  // the next catch-up applies them again, which is harmless.
  for (int64_t after = 0;;) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<KbEntry> page, store_->ScanKbEntries(info.name, after, kScanPage));
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

Result<std::vector<Hit>> KbIndex::Search(std::string_view collection, const ReadScope& scope, std::string_view text,
                                         const nlohmann::json& filters, const SearchOptions& options,
                                         const EmbedQuery& embed, KbCollection* searched) {
  ENGRAM_RETURN_IF_ERROR(CatchUp());
  ENGRAM_ASSIGN_OR_RETURN(Indexed * ix, Open(collection));
  if (searched != nullptr) *searched = ix->info;
  ENGRAM_ASSIGN_OR_RETURN(Filter filter, Filter::Parse(ix->fields, filters));
  std::vector<ScoredKey> scored;
  if (ix->info.embedder.empty()) {
    const bool public_only = !ix->info.folder.empty() && !scope.include_private;
    scored = (public_only ? ix->public_lexical : ix->lexical).Score(text, options.threshold);
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
  std::vector<Hit> hits;
  if (!ix->info.folder.empty()) {
    for (const ScoredKey& s : scored) {
      auto e = ix->folder_entries.find(s.key);
      if (e != ix->folder_entries.end()) hits.push_back({e->second, s.score});
    }
    return hits;
  }
  std::vector<int64_t> keys;
  for (const ScoredKey& s : scored) keys.push_back(s.key);
  ENGRAM_ASSIGN_OR_RETURN(std::vector<KbEntry> entries, store_->KbEntriesByKey(keys));
  std::unordered_map<int64_t, KbEntry*> by_key;
  for (KbEntry& e : entries) by_key[e.key] = &e;
  for (const ScoredKey& s : scored) {
    auto e = by_key.find(s.key);
    if (e != by_key.end()) hits.push_back({std::move(*e->second), s.score});
  }
  return hits;
}

std::shared_ptr<SharedKbIndex> SharedKbIndexFor(const std::string& store_identity) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<SharedKbIndex>> shared;
  std::lock_guard<std::mutex> lock(mu);
  auto it = shared.find(store_identity);
  if (it != shared.end()) return it->second;
  if (shared.size() >= 32) {  // stores come and go (tests): drop the indexes nobody holds
    for (auto s = shared.begin(); s != shared.end();) s = s->second.use_count() == 1 ? shared.erase(s) : std::next(s);
  }
  return shared.emplace(store_identity, std::make_shared<SharedKbIndex>()).first->second;
}

}  // namespace engram::kb
