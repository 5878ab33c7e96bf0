// The on-disk form of a term's posting list: one blob per term.
//
// Layout (all varints):
//   count, max_tf, min_dl, block_count
//   block_count x (last_doc delta from the previous block's last doc, byte size)
//   blocks: per posting: doc delta (from the previous posting, across blocks),
//           page, tf, dl
// Blocks hold kPostingBlock postings (the last may hold fewer). max_tf and
// min_dl give a BM25 upper bound for the whole list; the block table lets a
// cursor skip to the block that may hold a doc without decoding the others.
// Chunk postings use the chunk id as doc; title postings use the page id as
// both doc and page.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::store {

constexpr size_t kPostingBlock = 128;

struct Posting {
  int64_t doc = 0;
  int64_t page = 0;
  uint32_t tf = 0;
  uint32_t dl = 0;
  bool operator==(const Posting&) const = default;
};

struct PostingListInfo {
  uint64_t count = 0;
  uint32_t max_tf = 0;
  uint32_t min_dl = 0;
};

// postings must be sorted by doc with no duplicates.
std::string EncodePostings(const std::vector<Posting>& postings);

// Corruption when the blob is truncated, overlong or out of order.
Status DecodePostings(std::string_view blob, std::vector<Posting>* out);

// Header fields without decoding the postings (all zero for an empty blob).
Result<PostingListInfo> ReadPostingInfo(std::string_view blob);

// Forward-only access with skipping. The blob must outlive the cursor.
class PostingCursor {
 public:
  // Corruption when the header or block table is damaged.
  Status Open(std::string_view blob);
  // The first posting with doc >= target, or nullptr when none is left.
  // Targets must not decrease between calls. Corruption is reported by
  // status() and ends the list.
  const Posting* NextGeq(int64_t target);
  const PostingListInfo& info() const { return info_; }
  const Status& status() const { return status_; }

 private:
  bool LoadBlock(size_t block);

  std::string_view blob_;
  PostingListInfo info_;
  std::vector<int64_t> block_last_;      // last doc of each block
  std::vector<size_t> block_offset_;     // byte offset of each block
  bool loaded_ = false;                  // buffer_ holds block block_
  size_t block_ = 0;
  size_t search_from_ = 0;               // blocks before this one are behind the cursor
  std::vector<Posting> buffer_;
  size_t pos_ = 0;
  Status status_;
};

}  // namespace engram::store
