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
//
// Layouts: lists written before 2026-12-02 hold kPostingBlockV1 (128)
// postings per block; lists written since hold kPostingBlock (32). The
// header's block_count is the version marker: ceil(count / 32) or
// ceil(count / 128). Up to 32 postings both are one block and the bytes are
// the same; past 32 they always differ. Lists are read in either layout and
// written in the new one (a merge rewrites an old list), so a brain needs no
// migration. Smaller blocks because a probe of a long list (MaxScore's
// non-essential lists) decodes from its block's start: 16 postings on
// average instead of 64.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "store/varint.h"

namespace engram::store {

constexpr size_t kPostingBlock = 32;
constexpr size_t kPostingBlockV1 = 128;  // the first layout's block, still read
// Ids beyond this are not SQLite rowids we wrote: a damaged list. Checking
// before adding also keeps the running sums from overflowing.
constexpr uint64_t kMaxPostingId = uint64_t{1} << 62;

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

// postings must be sorted by doc with no duplicates. block: postings per
// block, kPostingBlock or (to write the first layout, for tests) kPostingBlockV1.
std::string EncodePostings(const std::vector<Posting>& postings, size_t block = kPostingBlock);

// Corruption when the blob is truncated, overlong or out of order.
Status DecodePostings(std::string_view blob, std::vector<Posting>* out);

// Header fields without decoding the postings (all zero for an empty blob).
Result<PostingListInfo> ReadPostingInfo(std::string_view blob);

// Forward-only access with skipping. The blob must outlive the cursor. A
// target beyond the current block is found in the block table; within a
// block, postings are decoded one at a time only as far as the target, so a
// probe for one doc decodes half a block on average, not all of it.
class PostingCursor {
 public:
  // Corruption when the header or block table is damaged.
  Status Open(std::string_view blob);
  // The first posting with doc >= target, or nullptr when none is left; the
  // pointer is valid until the next call. Targets must not decrease between
  // calls. Corruption (of the postings decoded on the way) is reported by
  // status() and ends the list.
  const Posting* NextGeq(int64_t target) {
    if (loaded_) {
      if (current_.doc >= target) return &current_;
      // The block ends with block_last_[block_], so a target up to it is inside.
      if (target <= block_last_[block_]) {
        do {
          if (!DecodeNext()) return nullptr;
        } while (current_.doc < target);
        return &current_;
      }
    }
    return SeekBlock(target);
  }
  const PostingListInfo& info() const { return info_; }
  const Status& status() const { return status_; }

 private:
  // Decodes the next posting of block_ into current_; false (status_ set)
  // when it is damaged. Inline: it runs once per posting a query reads.
  bool DecodeNext() {
    if (in_block_ >= block_size_) return Fail(" is damaged (longer than its block table says)");
    uint64_t delta, page, tf, dl;
    const uint64_t prev = in_block_ == 0 ? (block_ == 0 ? 0 : static_cast<uint64_t>(block_last_[block_ - 1]))
                                         : static_cast<uint64_t>(current_.doc);
    if (!ReadVarint(blob_, &at_, &delta) || !ReadVarint(blob_, &at_, &page) || !ReadVarint(blob_, &at_, &tf) ||
        !ReadVarint(blob_, &at_, &dl) || (delta == 0 && !(block_ == 0 && in_block_ == 0)) ||
        delta > kMaxPostingId - prev || page > kMaxPostingId || tf > UINT32_MAX || dl > UINT32_MAX) {
      return Fail(" is damaged");
    }
    const auto doc = static_cast<int64_t>(prev + delta);
    ++in_block_;
    if (doc > block_last_[block_] || (in_block_ == block_size_ && doc != block_last_[block_])) {
      return Fail(" disagrees with the block table");
    }
    current_ = {doc, static_cast<int64_t>(page), static_cast<uint32_t>(tf), static_cast<uint32_t>(dl)};
    return true;
  }
  // Moves to the block that may hold target and decodes up to it.
  const Posting* SeekBlock(int64_t target);
  bool Fail(const char* what);

  std::string_view blob_;
  PostingListInfo info_;
  std::vector<int64_t> block_last_;      // last doc of each block
  std::vector<size_t> block_offset_;     // byte offset of each block
  bool loaded_ = false;                  // current_ is a posting of block block_
  size_t block_ = 0;
  size_t search_from_ = 0;               // blocks before this one are behind the cursor
  size_t at_ = 0;                        // byte offset of the next posting of block_
  size_t in_block_ = 0;                  // postings of block_ decoded so far
  size_t block_size_ = 0;                // postings in block_
  size_t block_postings_ = kPostingBlock;  // postings per block in this list
  Posting current_;
  Status status_;
};

}  // namespace engram::store
