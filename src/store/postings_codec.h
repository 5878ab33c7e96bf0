// The on-disk form of a term's posting list: one blob per term.
//
// Layout: varint count, then per posting (sorted by doc, strictly increasing)
// varint doc delta, varint page, varint tf, varint dl. Chunk postings use the
// chunk id as doc; title postings use the page id as both doc and page.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::store {

struct Posting {
  int64_t doc = 0;
  int64_t page = 0;
  uint32_t tf = 0;
  uint32_t dl = 0;
  bool operator==(const Posting&) const = default;
};

// postings must be sorted by doc with no duplicates.
std::string EncodePostings(const std::vector<Posting>& postings);

// Corruption when the blob is truncated, overlong or out of order.
Status DecodePostings(std::string_view blob, std::vector<Posting>* out);

// Number of postings in a blob without decoding it (0 for an empty blob).
Result<uint64_t> PostingCount(std::string_view blob);

void AppendVarint(uint64_t v, std::string* out);
// Reads a varint at *pos; false when truncated or longer than 10 bytes.
bool ReadVarint(std::string_view s, size_t* pos, uint64_t* v);

}  // namespace engram::store
