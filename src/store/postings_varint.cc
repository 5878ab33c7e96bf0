// The varint layouts of posting lists, written before the packed layout
// (postings_codec.h): still read, and written for tests only.
#include "store/postings_varint.h"

#include <algorithm>

#include "store/varint.h"

namespace engram::store {

std::string EncodeVarintPostings(const std::vector<Posting>& postings, size_t block) {
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
  size_t block = kPostingBlockV2;  // postings per block: the layout
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
  if (blocks == (count + kPostingBlockV2 - 1) / kPostingBlockV2) {
    h->block = kPostingBlockV2;
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

Result<PostingListInfo> ReadVarintPostingInfo(std::string_view blob) {
  Header h;
  ENGRAM_RETURN_IF_ERROR(ReadHeader(blob, &h));
  return h.info;
}

Status DecodeVarintPostings(std::string_view blob, std::vector<Posting>* out) {
  out->clear();
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

}  // namespace engram::store
