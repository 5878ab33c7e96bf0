#include "store/postings_codec.h"

#include "store/varint.h"

#include <algorithm>

namespace engram::store {

std::string EncodePostings(const std::vector<Posting>& postings, size_t block) {
  uint32_t max_tf = 0, min_dl = UINT32_MAX;
  for (const Posting& p : postings) {
    max_tf = std::max(max_tf, p.tf);
    min_dl = std::min(min_dl, p.dl);
  }
  if (postings.empty()) min_dl = 0;
  std::string body;
  body.reserve(postings.size() * 5);
  std::string table;
  int64_t prev = 0, prev_block_last = 0;
  size_t block_start = 0;
  for (size_t i = 0; i < postings.size(); ++i) {
    const Posting& p = postings[i];
    AppendVarint(static_cast<uint64_t>(p.doc - prev), &body);
    AppendVarint(static_cast<uint64_t>(p.page), &body);
    AppendVarint(p.tf, &body);
    AppendVarint(p.dl, &body);
    prev = p.doc;
    if ((i + 1) % block == 0 || i + 1 == postings.size()) {
      AppendVarint(static_cast<uint64_t>(p.doc - prev_block_last), &table);
      AppendVarint(body.size() - block_start, &table);
      prev_block_last = p.doc;
      block_start = body.size();
    }
  }
  std::string out;
  out.reserve(body.size() + table.size() + 16);
  AppendVarint(postings.size(), &out);
  AppendVarint(max_tf, &out);
  AppendVarint(min_dl, &out);
  AppendVarint((postings.size() + block - 1) / block, &out);
  out += table;
  out += body;
  return out;
}

namespace {

constexpr uint64_t kMaxId = kMaxPostingId;

struct Header {
  PostingListInfo info;
  uint64_t blocks = 0;
  size_t block = kPostingBlock;  // postings per block: the layout
  size_t table_at = 0;
};

Status ReadHeader(std::string_view blob, Header* h) {
  size_t pos = 0;
  uint64_t count, max_tf, min_dl, blocks;
  if (!ReadVarint(blob, &pos, &count) || !ReadVarint(blob, &pos, &max_tf) || !ReadVarint(blob, &pos, &min_dl) ||
      !ReadVarint(blob, &pos, &blocks) || count > blob.size() || max_tf > UINT32_MAX || min_dl > UINT32_MAX) {
    return Status::Corruption("posting list header is damaged");
  }
  // The block count tells the layout (postings_codec.h).
  if (blocks == (count + kPostingBlock - 1) / kPostingBlock) {
    h->block = kPostingBlock;
  } else if (blocks == (count + kPostingBlockV1 - 1) / kPostingBlockV1) {
    h->block = kPostingBlockV1;
  } else {
    return Status::Corruption("posting list header is damaged");
  }
  h->info = {count, static_cast<uint32_t>(max_tf), static_cast<uint32_t>(min_dl)};
  h->blocks = blocks;
  h->table_at = pos;
  return Status::Ok();
}

// Decodes n postings at *pos, continuing from doc *prev.
bool DecodeRun(std::string_view blob, size_t* pos, size_t n, int64_t* prev, bool first_may_be_zero,
               std::vector<Posting>* out) {
  for (size_t i = 0; i < n; ++i) {
    uint64_t delta, page, tf, dl;
    if (!ReadVarint(blob, pos, &delta) || !ReadVarint(blob, pos, &page) || !ReadVarint(blob, pos, &tf) ||
        !ReadVarint(blob, pos, &dl) || (delta == 0 && !(first_may_be_zero && i == 0)) ||
        delta > kMaxId - static_cast<uint64_t>(*prev) || page > kMaxId || tf > UINT32_MAX || dl > UINT32_MAX) {
      return false;
    }
    *prev += static_cast<int64_t>(delta);
    out->push_back({*prev, static_cast<int64_t>(page), static_cast<uint32_t>(tf), static_cast<uint32_t>(dl)});
  }
  return true;
}

}  // namespace

Result<PostingListInfo> ReadPostingInfo(std::string_view blob) {
  if (blob.empty()) return PostingListInfo{};
  Header h;
  ENGRAM_RETURN_IF_ERROR(ReadHeader(blob, &h));
  return h.info;
}

Status DecodePostings(std::string_view blob, std::vector<Posting>* out) {
  out->clear();
  if (blob.empty()) return Status::Ok();
  Header h;
  ENGRAM_RETURN_IF_ERROR(ReadHeader(blob, &h));
  size_t pos = h.table_at;
  for (uint64_t b = 0; b < h.blocks; ++b) {
    uint64_t last, size;
    if (!ReadVarint(blob, &pos, &last) || !ReadVarint(blob, &pos, &size)) {
      return Status::Corruption("posting list block table is damaged");
    }
  }
  out->reserve(h.info.count);
  int64_t prev = 0;
  if (!DecodeRun(blob, &pos, h.info.count, &prev, true, out)) {
    return Status::Corruption("posting list is truncated or out of order");
  }
  if (pos != blob.size()) return Status::Corruption("posting list has trailing bytes");
  return Status::Ok();
}

Status PostingCursor::Open(std::string_view blob) {
  blob_ = blob;
  info_ = {};
  block_last_.clear();
  block_offset_.clear();
  loaded_ = false;
  block_ = 0;
  search_from_ = 0;
  at_ = 0;
  in_block_ = 0;
  block_size_ = 0;
  current_ = {};
  status_ = Status::Ok();
  if (blob.empty()) return status_;
  Header h;
  status_ = ReadHeader(blob, &h);
  if (!status_.ok()) return status_;
  info_ = h.info;
  block_postings_ = h.block;
  size_t pos = h.table_at;
  int64_t last = 0;
  for (uint64_t b = 0; b < h.blocks; ++b) {
    uint64_t delta, size;
    if (!ReadVarint(blob, &pos, &delta) || !ReadVarint(blob, &pos, &size) || (delta == 0 && b > 0) ||
        delta > kMaxId - static_cast<uint64_t>(last)) {
      status_ = Status::Corruption("posting list block table is damaged");
      return status_;
    }
    last += static_cast<int64_t>(delta);
    block_last_.push_back(last);
    block_offset_.push_back(static_cast<size_t>(size));  // sizes for now, offsets below
  }
  size_t offset = pos;
  for (size_t& entry : block_offset_) {
    const size_t size = entry;
    entry = offset;
    if (size > blob.size() - offset) {
      status_ = Status::Corruption("posting list block table points past the end");
      return status_;
    }
    offset += size;
  }
  return status_;
}

bool PostingCursor::Fail(const char* what) {
  status_ = Status::Corruption(std::string("posting list block ").append(std::to_string(block_)).append(what));
  loaded_ = false;
  return false;
}

const Posting* PostingCursor::SeekBlock(int64_t target) {
  if (!status_.ok()) return nullptr;
  // Galloping from the cursor (Bentley & Yao): targets mostly land a few
  // blocks ahead, so doubling steps find the range before a binary search
  // over the rest of the table would.
  size_t lo = search_from_, step = 1, hi = lo;
  while (hi < block_last_.size() && block_last_[hi] < target) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  hi = std::min(hi + 1, block_last_.size());
  auto it = std::lower_bound(block_last_.begin() + static_cast<long>(lo), block_last_.begin() + static_cast<long>(hi),
                             target);
  if (it == block_last_.end()) {
    search_from_ = block_last_.size();
    loaded_ = false;
    return nullptr;
  }
  block_ = static_cast<size_t>(it - block_last_.begin());
  search_from_ = block_ + 1;
  at_ = block_offset_[block_];
  in_block_ = 0;
  block_size_ = block_ + 1 < block_last_.size() ? block_postings_ : info_.count - block_postings_ * block_;
  loaded_ = true;
  do {
    if (!DecodeNext()) return nullptr;
  } while (current_.doc < target);
  return &current_;
}

}  // namespace engram::store
