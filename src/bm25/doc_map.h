// Per-query state indexed by doc or page id, through a dense mapping owned
// by the bm25 module: a store's ids need not be dense (a PostgreSQL sequence
// leaves gaps, SQLite ids grow with every rewrite), so ids below a cap set
// from the field's size live in a flat array (the fast path: accumulating a
// list is then a sequential walk), and any id above it in a hash map. Either
// way memory stays proportional to the field, never to the largest id.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace engram::bm25 {

// The cap for a field of `docs` docs: flat up to 8 ids per doc.
inline size_t DirectCap(int64_t docs) { return static_cast<size_t>(docs > 0 ? docs : 0) * 8 + 65536; }

template <typename T>
class DocMap {
 public:
  // Ids below cap are held in a flat array (grown as they are met), others
  // hashed. Keeps what is held; call Clear first to start over.
  void SetCap(size_t cap) { cap_ = cap; }

  // The entry of id (a value-initialised T when new).
  T& operator[](int64_t id) {
    auto i = static_cast<uint64_t>(id);
    if (i < direct_.size()) return direct_[i];
    if (i < cap_) {
      Grow(id);
      return direct_[i];
    }
    return hashed_[id];
  }
  // Makes every id up to last (below the cap) reachable without growing.
  void Grow(int64_t last) {
    auto i = static_cast<uint64_t>(last);
    if (i < direct_.size()) return;
    size_t n = static_cast<size_t>(i) + 1;
    n += n / 4;
    direct_.resize(n < cap_ ? n : cap_, T{});
  }
  // Resets the entries of ids to T{} and forgets every hashed entry: cost
  // proportional to ids, not to the array.
  void Clear(const std::vector<int64_t>& ids) {
    for (int64_t id : ids) {
      auto i = static_cast<uint64_t>(id);
      if (i < direct_.size()) direct_[i] = T{};
    }
    hashed_.clear();
  }

 private:
  size_t cap_ = 0;
  std::vector<T> direct_;
  std::unordered_map<int64_t, T> hashed_;
};

}  // namespace engram::bm25
