// The searchable side of a store's knowledge collections: one lexical
// index per collection (kb/lexical_index.h) and each entry's filter values,
// built from the store on first use and caught up from the change log
// (ChangeStream::kKbEntries) before every search, so a search sees every
// write committed before it started, from this process or any other.
//
// Thread safety: none; its owner serialises calls. A process shares one per
// database (SharedKbIndexFor): every connection searches the same index,
// each call reading through the connection it is given (Rebind).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engram/status.h"
#include "engram/store/change_log.h"
#include "engram/store/kb_store.h"
#include "engram/store/page_store.h"
#include "engram/store/read_scope.h"
#include "kb/filter.h"
#include "kb/lexical_index.h"

namespace engram::kb {

struct SearchOptions {
  size_t top_k = 5;
  double threshold = 0.8;  // hits score at least this (inclusive)
};

struct Hit {
  KbEntry entry;
  double score = 0;
};

// Entries' vectors in one row-major array (a row per slot; freed slots are reused).
class VectorRows {
 public:
  void Put(int64_t key, const std::vector<float>& v);  // v: L2-normalised, dims() long (the first sets dims)
  void Erase(int64_t key);
  int dims() const { return dims_; }
  // Every live row's key and its dot product with q (dims() floats) when at least min_dot.
  std::vector<ScoredKey> Score(const float* q, double min_dot) const;

 private:
  int dims_ = 0;
  std::vector<float> rows_;
  std::vector<int64_t> keys_;  // by slot; -1 = free
  std::unordered_map<int64_t, uint32_t> slots_;
  std::vector<uint32_t> free_;
};

class KbIndex {
 public:
  KbIndex(KbStore& store, ChangeLog& changes, PageStore& pages) : store_(&store), changes_(&changes), pages_(&pages) {}

  // Reads through these stores from now on (the caller's connection to the same database).
  void Rebind(KbStore& store, ChangeLog& changes, PageStore& pages) {
    store_ = &store;
    changes_ = &changes;
    pages_ = &pages;
  }

  // The named collection as stored now; NotFound when there is none.
  Result<KbCollection> Collection(std::string_view name);

  // The entries of a collection kept from a folder of pages (kb/page_entry.h),
  // as the pages stand now, by id (the page's slug): those of the pages scope
  // sees (a private page's entry exists only for a reader of private pages).
  Result<std::vector<KbEntry>> FolderEntries(std::string_view name, const ReadScope& scope);

  // The entries of the collection most similar to text that pass filters
  // (kb/filter.h, parsed against the collection's fields), best first (ties
  // by key), at most top_k, each scoring >= threshold. A collection with an
  // embedder is scored by the cosine of the text's embedding — embed(the
  // collection), asked only then — with each entry's vector, both
  // L2-normalised; one without, lexically. In a collection kept from a
  // folder, an entry of a private page exists only for a scope that sees
  // private pages: for any other it is not returned, not counted and does
  // not weigh in the scores (the idf of the public entries alone), so what
  // such a reader gets is what it would get were the private pages absent.
  // searched (optional) receives the collection as it was searched.
  using EmbedQuery = std::function<Result<std::vector<float>>(const KbCollection&)>;
  Result<std::vector<Hit>> Search(std::string_view collection, const ReadScope& scope, std::string_view text,
                                  const nlohmann::json& filters, const SearchOptions& options,
                                  const EmbedQuery& embed = {}, KbCollection* searched = nullptr);

 private:
  struct Indexed {
    KbCollection info;
    std::vector<KbField> fields;  // FilterableFields(info)
    LexicalIndex lexical;  // a collection without an embedder
    // A folder collection: the entries of public pages alone, scored for
    // readers who may not see private pages; and which entries are private.
    LexicalIndex public_lexical;
    std::unordered_set<int64_t> private_keys;
    VectorRows vectors;    // with one: each entry's, L2-normalised
    std::unordered_map<int64_t, EntryValues> values;
    // A folder collection: each page of the folder by slug (its content hash,
    // its entry's key = -page id or 0), the entries by key, and whether pages
    // changed since they were read.
    std::map<std::string, std::pair<std::string, int64_t>, std::less<>> folder_pages;
    std::unordered_map<int64_t, KbEntry> folder_entries;
    bool folder_stale = true;
  };
  // Re-reads the folder's pages whose content changed, drops the ones gone.
  Status SyncFolder(Indexed& ix);
  Status CatchUp();
  void Index(Indexed& ix, const KbEntry& e);
  void Unindex(int64_t key);
  // The collection's index, built from a scan when it is new to this index or was re-created.
  Result<Indexed*> Open(std::string_view name);

  KbStore* store_;
  ChangeLog* changes_;
  PageStore* pages_;
  std::map<std::string, Indexed, std::less<>> collections_;
  std::unordered_map<int64_t, std::string> key_collection_;
  int64_t generation_ = -1;  // -1: nothing read yet
};

// One index per database for the whole process, and the lock its users take.
struct SharedKbIndex {
  std::mutex mu;
  std::unique_ptr<KbIndex> index;  // made by the first user, bound to its stores
};
std::shared_ptr<SharedKbIndex> SharedKbIndexFor(const std::string& store_identity);

}  // namespace engram::kb
