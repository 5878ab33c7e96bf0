// The posting-storage contract: everything BM25 (src/bm25) reads from a
// store, and nothing more. A store keeps, per field and per term, one
// encoded posting list (the format of store/postings_codec.h: sorted by doc,
// with a header giving the list's length, max tf and min doc length, and a
// block table for skipping), plus the field's collection statistics. It
// writes and merges those lists in the same transaction as the page they
// come from; it never scores, ranks or prunes. Scoring over the lists is the
// bm25 module's, so every engine that honours this contract gives the same
// rankings, bit for bit.
//
// Docs: in the chunk field a doc is a chunk (doc = chunk id, page = its
// page); in the title field a doc is a page's title and aliases (doc = page
// = page id). Ids are positive and need not be dense: the bm25 module maps
// them to dense slots itself.
//
// Threading: a PostingStore belongs to its engine and follows the engine's
// rule (one thread at a time). Everything it returns reflects one committed
// state of the store when read outside a write transaction, and the
// caller's own pending writes inside one.
//
// Errors: IOError / Unavailable when the store cannot be read, Corruption
// when what it holds is damaged; the bm25 module adds which term or list it
// was reading and returns them unchanged.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engram/ids.h"
#include "engram/status.h"

namespace engram {

// The two fields BM25 ranks: chunk text, and page titles with aliases.
enum class PostingField { kChunks, kTitles };

// Collection statistics of a field.
struct FieldStatistics {
  int64_t docs = 0;    // docs with a non-empty field (chunks; pages with a title term)
  int64_t tokens = 0;  // their total length in tokens
};

// What private pages add to a field's statistics: a query that may not see
// them is scored as if they did not exist, so its scores (and anything a
// remote caller can observe) never depend on private content.
struct PrivateFieldStatistics {
  FieldStatistics totals;                   // private docs and their tokens
  std::unordered_map<int64_t, int64_t> df;  // term id -> private docs holding the term
};

class PostingStore {
 public:
  virtual ~PostingStore() = default;
  PostingStore(const PostingStore&) = delete;
  PostingStore& operator=(const PostingStore&) = delete;

  // The id of an analysed term, or nothing when no doc of any field was ever
  // indexed with it (its lists are then empty). Ids are stable while the
  // term is stored. Cost: a hash probe; an indexed look-up on a miss.
  virtual Result<std::optional<int64_t>> FindTerm(std::string_view term) = 0;

  // The term's encoded list in field: never null, empty when the field has
  // no posting of the term. Immutable, and valid as long as the caller holds
  // it, whatever the store does meanwhile. The df of the term is the list's
  // count (store::ReadPostingInfo). Cost: an indexed read and a copy of the
  // list the first time; a store may keep lists it handed out and return
  // them again, without a copy, until it changes.
  virtual Result<std::shared_ptr<const std::string>> ReadPostingList(PostingField field, int64_t term_id) = 0;

  // Docs and tokens of the field over every page, private ones included.
  // Cost: one row read.
  virtual Result<FieldStatistics> Statistics(PostingField field) = 0;

  // What private pages contribute to the field's statistics (zero when there
  // are none). The returned snapshot is immutable and stays valid as long
  // as the caller holds it. Cost: recomputed only after the store changed
  // (a scan of the private pages' term lists), otherwise a cached pointer.
  virtual Result<std::shared_ptr<const PrivateFieldStatistics>> PrivateStatistics(PostingField field) = 0;

  // Ids of the private pages, ascending (what a caller who may not see them
  // must never get back). Cost: an index scan over the private pages.
  virtual Result<std::vector<PageId>> PrivatePageIds() = 0;

  // Ids of a page's chunks (its docs in the chunk field), ascending; none
  // for an unknown page. Cost: one indexed look-up.
  virtual Result<std::vector<ChunkId>> PageChunkIds(PageId page_id) = 0;

  // The batched forms of FindTerm, ReadPostingList and PageChunkIds, one
  // answer per item in the order asked: what one stage of a search needs,
  // read together. A store whose every read is a round trip to a server
  // answers each with one statement (and checks once whether it changed);
  // the defaults ask item by item.
  virtual Result<std::vector<std::optional<int64_t>>> FindTerms(const std::vector<std::string>& terms) {
    std::vector<std::optional<int64_t>> out;
    out.reserve(terms.size());
    for (const std::string& t : terms) {
      ENGRAM_ASSIGN_OR_RETURN(std::optional<int64_t> id, FindTerm(t));
      out.push_back(id);
    }
    return out;
  }
  virtual Result<std::vector<std::shared_ptr<const std::string>>> ReadPostingLists(
      PostingField field, const std::vector<int64_t>& term_ids) {
    std::vector<std::shared_ptr<const std::string>> out;
    out.reserve(term_ids.size());
    for (const int64_t id : term_ids) {
      ENGRAM_ASSIGN_OR_RETURN(std::shared_ptr<const std::string> list, ReadPostingList(field, id));
      out.push_back(std::move(list));
    }
    return out;
  }
  virtual Result<std::vector<std::vector<ChunkId>>> PagesChunkIds(const std::vector<PageId>& page_ids) {
    std::vector<std::vector<ChunkId>> out;
    out.reserve(page_ids.size());
    for (const PageId id : page_ids) {
      ENGRAM_ASSIGN_OR_RETURN(std::vector<ChunkId> chunks, PageChunkIds(id));
      out.push_back(std::move(chunks));
    }
    return out;
  }

 protected:
  PostingStore() = default;
};

}  // namespace engram
