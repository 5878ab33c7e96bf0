// The on-disk form of a term's posting list: one blob per term.
//
// Layout (the packed layout, written since 2026-12-02):
//   0x00 0x03                     marker: this layout
//   varint count, max_tf, min_dl, block_count
//   4 bytes: bit widths of the block table's four columns
//   block table: four packed columns of block_count values each (bit_packing.h):
//     last doc of the block, byte offset of the block in the body,
//     the block's max tf, the block's min dl
//   body: per block of kPostingBlock postings (the last may hold fewer):
//     4 bytes: bit widths of the doc, page, tf and dl columns
//     varint page_base, tf_base
//     packed columns: doc - (last doc of the previous block, 0 for the first),
//     page - page_base, tf - tf_base, dl - the block's min dl
// max_tf and min_dl bound a term's BM25 contribution over the whole list,
// and the block's max tf and min dl over one block (the pruned search's
// threshold seed reads its candidates from the best blocks by them); the
// table lets a cursor find the block that may hold a doc, and the columns
// let it find the doc in the block by binary search and decode only that
// posting, without the ones before it. Chunk postings use the chunk id as
// doc; title postings use the page id as both doc and page.
//
// Earlier layouts are still read (DecodePostings; a cursor transcodes them):
// varint postings (doc delta, page, tf, dl) behind a table of (last doc
// delta, byte size) per block, 128 postings per block before 2026-12-02 and
// 32 for a day after, the header's block count telling the two apart. A
// merge rewrites a list in the packed layout.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "store/bit_packing.h"
#include "store/varint.h"

namespace engram::store {

constexpr size_t kPostingBlock = 32;
// The varint layouts' blocks, still read.
constexpr size_t kPostingBlockV1 = 128;
constexpr size_t kPostingBlockV2 = 32;
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

// postings must be sorted by doc with no duplicates.
std::string EncodePostings(const std::vector<Posting>& postings);
// The same in a varint layout (block: kPostingBlockV1 or kPostingBlockV2), as
// brains written before the packed layout hold lists; for tests.
std::string EncodeVarintPostings(const std::vector<Posting>& postings, size_t block);

// Any layout. Corruption when the blob is truncated, overlong, out of order,
// or its bounds or block table disagree with its postings.
Status DecodePostings(std::string_view blob, std::vector<Posting>* out);

// True when the blob is in the packed layout (or empty).
bool IsPackedPostings(std::string_view blob);
// The list in the packed layout: the blob itself when it already is one,
// else decoded and encoded again. Corruption as DecodePostings.
Result<std::string> RepackPostings(std::string_view blob);

// Header fields without decoding the postings (all zero for an empty blob).
Result<PostingListInfo> ReadPostingInfo(std::string_view blob);

// Forward-only access with skipping. The blob must outlive the cursor. A
// target beyond the current block is found in the block table (galloping,
// then binary search), a doc in its block by a few steps then a binary
// search over the packed doc column, and a posting's page, tf and dl are
// unpacked only when the cursor stops on it. The block table is read in
// place: opening a list costs the same for ten postings as for a million. A
// list in a varint layout is transcoded to the packed one on Open (once per
// cursor; the bm25 module repacks such lists once per search instead).
class PostingCursor {
 public:
  // Corruption when the header or block table is damaged (damage further in
  // is found when the cursor reaches it).
  Status Open(std::string_view blob);
  // The first posting with doc >= target, or nullptr when none is left; the
  // pointer is valid until the next call. Targets must not decrease between
  // calls. The docs returned never go backwards, whatever the blob holds.
  // Corruption (of the blocks read on the way) is reported by status() and
  // ends the list.
  const Posting* NextGeq(int64_t target) {
    if (loaded_) {
      if (current_.doc >= target) return &current_;
      if (target <= block_last_) return StepTo(index_ + 1, target);
    }
    return SeekBlock(target);
  }

  // The block table: the list's blocks, and block b's last doc and bounds,
  // read in place (no block is entered). b < blocks().
  size_t blocks() const { return blocks_; }
  void BlockEntry(size_t b, int64_t* last, uint32_t* max_tf, uint32_t* min_dl) const {
    *last = static_cast<int64_t>(std::min<uint64_t>(Table(0, b), kMaxPostingId));
    *max_tf = static_cast<uint32_t>(std::min<uint64_t>(Table(2, b), UINT32_MAX));
    *min_dl = static_cast<uint32_t>(std::min<uint64_t>(Table(3, b), UINT32_MAX));
  }

  const PostingListInfo& info() const { return info_; }
  const Status& status() const { return status_; }

  // Every posting of the list just opened, with every check DecodePostings
  // makes (the block table ordered, each block's and the list's bounds
  // exact); the cursor is spent afterwards.
  Status DecodeAll(std::vector<Posting>* out);

 private:
  // The block table's column c (0 last doc, 1 offset, 2 max tf, 3 min dl) at block b.
  uint64_t Table(int c, size_t b) const { return PackedAt(table_[c], end_, b, table_width_[c]); }
  // The first block at or after search_from_ whose last doc is >= target (blocks_ when none).
  size_t FindBlock(int64_t target) const;
  // Doc i of the loaded block.
  int64_t Doc(size_t i) const { return doc_base_ + static_cast<int64_t>(PackedAt(doc_column_, end_, i, widths_[0])); }
  // Stops on the first posting at or after index i of the loaded block whose
  // doc is >= target (the block's last doc is): a few steps forward, then a
  // binary search. Only the docs on the way are unpacked.
  const Posting* StepTo(size_t i, int64_t target) {
    for (size_t steps = 0; i < block_size_; ++i, ++steps) {
      const int64_t doc = Doc(i);
      if (doc >= target) return Stop(i, doc);
      if (steps == 3) return Search(i + 1, target);
    }
    return Damaged();
  }
  const Posting* Search(size_t from, int64_t target);
  // Enters the block that may hold target and stops on its first doc >= target.
  const Posting* SeekBlock(int64_t target);
  bool LoadBlock(size_t b);
  // Stops on posting i of the loaded block (its doc given): unpacks its
  // page, tf and dl. Docs returned only move forward: every stop is at a
  // target above the posting before, whatever a damaged block holds.
  const Posting* Stop(size_t i, int64_t doc) {
    index_ = i;
    const uint64_t page = page_base_ + PackedAt(columns_[0], end_, i, widths_[1]);
    const uint64_t tf = tf_base_ + PackedAt(columns_[1], end_, i, widths_[2]);
    const uint64_t dl = block_min_dl_ + PackedAt(columns_[2], end_, i, widths_[3]);
    if (doc > block_last_ || page > kMaxPostingId || tf > block_max_tf_ || dl > UINT32_MAX) return Damaged();
    current_ = {doc, static_cast<int64_t>(page), static_cast<uint32_t>(tf), static_cast<uint32_t>(dl)};
    return &current_;
  }
  const Posting* Damaged();
  bool Fail(const char* what);

  std::unique_ptr<std::string> transcoded_;  // a varint-layout list, rewritten packed (stays put when moved)
  const unsigned char* end_ = nullptr;  // end of the blob
  PostingListInfo info_;
  size_t blocks_ = 0;
  const unsigned char* table_[4] = {};
  unsigned table_width_[4] = {};
  const unsigned char* body_ = nullptr;
  size_t body_size_ = 0;
  size_t search_from_ = 0;  // blocks before this one are behind the cursor
  // The loaded block.
  bool loaded_ = false;
  size_t block_ = 0;
  size_t block_size_ = 0;
  size_t index_ = 0;
  uint32_t block_max_tf_ = 0, block_min_dl_ = 0;
  uint64_t page_base_ = 0, tf_base_ = 0;
  unsigned widths_[4] = {};                    // doc, page, tf, dl
  const unsigned char* columns_[3] = {};       // page, tf, dl
  const unsigned char* doc_column_ = nullptr;
  int64_t doc_base_ = 0;    // the last doc of the block before (0 for the first)
  int64_t block_last_ = 0;
  Posting current_;
  Status status_;
};

}  // namespace engram::store
