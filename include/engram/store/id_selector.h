// Which ids a search may return, as one interface every arm takes (like
// FAISS's IDSelector): the BM25 arms ask it about pages, the vector arm
// about chunks. A filter's matches, the chunks a remote caller may not see,
// and both at once are selectors; no arm builds its own set.
//
// Contains() is called on the hot path of every arm (once per candidate),
// so implementations answer in O(log n) or better and never allocate.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace engram {

class IdSelector {
 public:
  virtual ~IdSelector() = default;
  virtual bool Contains(int64_t id) const = 0;
  // A sorted list holding every id the selector contains (it may hold more),
  // or nullptr when there is none: an arm may walk it instead of its whole
  // index when it is short (a selective filter).
  virtual const std::vector<int64_t>* Candidates() const { return nullptr; }
};

// The ids of a list (a filter's matches).
class IdListSelector final : public IdSelector {
 public:
  explicit IdListSelector(std::vector<int64_t> ids) : ids_(std::move(ids)) {
    std::sort(ids_.begin(), ids_.end());
    ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
  }
  bool Contains(int64_t id) const override { return std::binary_search(ids_.begin(), ids_.end(), id); }
  const std::vector<int64_t>* Candidates() const override { return &ids_; }

 private:
  std::vector<int64_t> ids_;
};

// Every id but those of a list (the chunks of private pages, for a caller
// who may not see them).
class IdNotInSelector final : public IdSelector {
 public:
  explicit IdNotInSelector(std::vector<int64_t> ids) : out_(std::move(ids)) {
    std::sort(out_.begin(), out_.end());
    out_.erase(std::unique(out_.begin(), out_.end()), out_.end());
  }
  bool Contains(int64_t id) const override { return !std::binary_search(out_.begin(), out_.end(), id); }
  const std::vector<int64_t>& left_out() const { return out_; }

 private:
  std::vector<int64_t> out_;
};

// The ids both selectors contain. Either may be null (it then contains
// every id); the selectors must outlive it.
class IdAndSelector final : public IdSelector {
 public:
  IdAndSelector(const IdSelector* a, const IdSelector* b) : a_(a), b_(b) {}
  bool Contains(int64_t id) const override {
    return (a_ == nullptr || a_->Contains(id)) && (b_ == nullptr || b_->Contains(id));
  }
  const std::vector<int64_t>* Candidates() const override {
    const std::vector<int64_t>* ca = a_ == nullptr ? nullptr : a_->Candidates();
    const std::vector<int64_t>* cb = b_ == nullptr ? nullptr : b_->Candidates();
    if (ca == nullptr) return cb;
    if (cb == nullptr) return ca;
    return ca->size() <= cb->size() ? ca : cb;
  }

 private:
  const IdSelector* a_;
  const IdSelector* b_;
};

}  // namespace engram
