// Strong ids. A page's id and a chunk's id are both 64-bit integers in every
// store, and a bare int64_t would let one pass where the other is meant (a
// page selector asked about chunk ids compiles and silently filters nothing).
// PageId and ChunkId are distinct types with the integer inside: they are
// built explicitly from a store's value, compared and hashed, and give the
// integer back with value() where it leaves engram's contracts (SQL binds,
// posting codecs, index labels, JSON).
//
// 0 is "no id" (SearchHit::chunk_id of a title hit); stores hand out ids > 0.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace engram {

template <class Tag>
class Id {
 public:
  constexpr Id() = default;
  constexpr explicit Id(int64_t value) : value_(value) {}

  constexpr int64_t value() const { return value_; }
  constexpr bool valid() const { return value_ != 0; }

  friend constexpr bool operator==(Id, Id) = default;
  friend constexpr auto operator<=>(Id, Id) = default;

 private:
  int64_t value_ = 0;
};

struct PageIdTag {};
struct ChunkIdTag {};
using PageId = Id<PageIdTag>;
using ChunkId = Id<ChunkIdTag>;

// Conversions of whole lists at a contract's edge.
template <class IdT>
std::vector<int64_t> IdValues(const std::vector<IdT>& ids) {
  std::vector<int64_t> out;
  out.reserve(ids.size());
  for (const IdT id : ids) out.push_back(id.value());
  return out;
}
template <class IdT>
std::vector<IdT> ToIds(const std::vector<int64_t>& values) {
  std::vector<IdT> out;
  out.reserve(values.size());
  for (const int64_t v : values) out.emplace_back(v);
  return out;
}

}  // namespace engram

template <class Tag>
struct std::hash<engram::Id<Tag>> {
  size_t operator()(engram::Id<Tag> id) const noexcept { return std::hash<int64_t>{}(id.value()); }
};
