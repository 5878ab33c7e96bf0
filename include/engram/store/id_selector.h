// Which ids a search may return, as one interface every arm takes (like
// FAISS's IDSelector): the BM25 arms ask a PageSelector about pages, the
// vector arm a ChunkSelector about chunks (the id types keep the two apart).
// A filter's matches, the chunks a remote caller may not see, and both at
// once are selectors; no arm builds its own set.
//
// Contains() is called on the hot path of every arm (once per candidate),
// so implementations answer in O(log n) or better and never allocate.
#pragma once

#include <algorithm>
#include <vector>

#include "engram/ids.h"

namespace engram {

template <class IdT>
class IdSelector {
 public:
  virtual ~IdSelector() = default;
  virtual bool Contains(IdT id) const = 0;
  // A sorted list holding every id the selector contains (it may hold more),
  // or nullptr when there is none: an arm may walk it instead of its whole
  // index when it is short (a selective filter).
  virtual const std::vector<IdT>* Candidates() const { return nullptr; }
};

// The ids of a list (a filter's matches).
template <class IdT>
class IdListSelector final : public IdSelector<IdT> {
 public:
  explicit IdListSelector(std::vector<IdT> ids) : ids_(std::move(ids)) {
    std::sort(ids_.begin(), ids_.end());
    ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
  }
  bool Contains(IdT id) const override { return std::binary_search(ids_.begin(), ids_.end(), id); }
  const std::vector<IdT>* Candidates() const override { return &ids_; }

 private:
  std::vector<IdT> ids_;
};

// Every id but those of a list (the chunks of private pages, for a caller
// who may not see them).
template <class IdT>
class IdNotInSelector final : public IdSelector<IdT> {
 public:
  explicit IdNotInSelector(std::vector<IdT> ids) : out_(std::move(ids)) {
    std::sort(out_.begin(), out_.end());
    out_.erase(std::unique(out_.begin(), out_.end()), out_.end());
  }
  bool Contains(IdT id) const override { return !std::binary_search(out_.begin(), out_.end(), id); }
  const std::vector<IdT>& left_out() const { return out_; }

 private:
  std::vector<IdT> out_;
};

// The ids both selectors contain. Either may be null (it then contains
// every id); the selectors must outlive it.
template <class IdT>
class IdAndSelector final : public IdSelector<IdT> {
 public:
  IdAndSelector(const IdSelector<IdT>* a, const IdSelector<IdT>* b) : a_(a), b_(b) {}
  bool Contains(IdT id) const override {
    return (a_ == nullptr || a_->Contains(id)) && (b_ == nullptr || b_->Contains(id));
  }
  const std::vector<IdT>* Candidates() const override {
    const std::vector<IdT>* ca = a_ == nullptr ? nullptr : a_->Candidates();
    const std::vector<IdT>* cb = b_ == nullptr ? nullptr : b_->Candidates();
    if (ca == nullptr) return cb;
    if (cb == nullptr) return ca;
    return ca->size() <= cb->size() ? ca : cb;
  }

 private:
  const IdSelector<IdT>* a_;
  const IdSelector<IdT>* b_;
};

using PageSelector = IdSelector<PageId>;
using ChunkSelector = IdSelector<ChunkId>;

}  // namespace engram
