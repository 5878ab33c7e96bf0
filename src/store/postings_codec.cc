// The packed posting-list layout (postings_codec.h): encoding, full
// decoding with every check, and the skipping cursor.
#include "store/postings_codec.h"

#include <algorithm>

#include "store/postings_varint.h"

namespace engram::store {

namespace {

constexpr unsigned char kPackedMarker[2] = {0x00, 0x03};
// Widest columns a valid list can have: ids stay below 2^62 (kMaxPostingId),
// tf and dl are 32-bit.
constexpr unsigned kMaxIdBits = 62;
constexpr unsigned kMaxCountBits = 32;

bool IsPacked(std::string_view blob) {
  return blob.size() >= 2 && static_cast<unsigned char>(blob[0]) == kPackedMarker[0] &&
         static_cast<unsigned char>(blob[1]) == kPackedMarker[1];
}

// Appends n values at the width the largest needs, and returns that width.
unsigned AppendColumn(const uint64_t* values, size_t n, std::string* out) {
  uint64_t most = 0;
  for (size_t i = 0; i < n; ++i) most = std::max(most, values[i]);
  const unsigned w = BitWidth(most);
  AppendPacked(values, n, w, out);
  return w;
}

// Postings [begin, end) as one block of the body; prev_last is the last doc
// of the block before (0 for the first).
void AppendBlock(const Posting* begin, const Posting* end, int64_t prev_last, uint32_t min_dl, std::string* body) {
  const size_t n = static_cast<size_t>(end - begin);
  uint64_t page_base = UINT64_MAX, tf_base = UINT64_MAX;
  for (const Posting* p = begin; p != end; ++p) {
    page_base = std::min(page_base, static_cast<uint64_t>(p->page));
    tf_base = std::min<uint64_t>(tf_base, p->tf);
  }
  uint64_t cols[4][kPostingBlock];
  for (size_t i = 0; i < n; ++i) {
    cols[0][i] = static_cast<uint64_t>(begin[i].doc - prev_last);
    cols[1][i] = static_cast<uint64_t>(begin[i].page) - page_base;
    cols[2][i] = begin[i].tf - tf_base;
    cols[3][i] = begin[i].dl - min_dl;
  }
  const size_t widths_at = body->size();
  body->append(4, '\0');
  AppendVarint(page_base, body);
  AppendVarint(tf_base, body);
  for (int c = 0; c < 4; ++c) (*body)[widths_at + c] = static_cast<char>(AppendColumn(cols[c], n, body));
}

}  // namespace

std::string EncodePostings(const std::vector<Posting>& postings) {
  const size_t n = postings.size();
  const size_t blocks = (n + kPostingBlock - 1) / kPostingBlock;
  std::vector<uint64_t> table[4];
  for (auto& column : table) column.resize(blocks);
  uint32_t max_tf = 0, min_dl = n == 0 ? 0 : UINT32_MAX;
  std::string body;
  body.reserve(n * 3);
  int64_t prev_last = 0;
  for (size_t b = 0; b < blocks; ++b) {
    const Posting* begin = postings.data() + b * kPostingBlock;
    const Posting* end = postings.data() + std::min(n, (b + 1) * kPostingBlock);
    uint32_t block_tf = 0, block_dl = UINT32_MAX;
    for (const Posting* p = begin; p != end; ++p) {
      block_tf = std::max(block_tf, p->tf);
      block_dl = std::min(block_dl, p->dl);
    }
    table[0][b] = static_cast<uint64_t>(end[-1].doc);
    table[1][b] = body.size();
    table[2][b] = block_tf;
    table[3][b] = block_dl;
    max_tf = std::max(max_tf, block_tf);
    min_dl = std::min(min_dl, block_dl);
    AppendBlock(begin, end, prev_last, block_dl, &body);
    prev_last = end[-1].doc;
  }
  std::string out(reinterpret_cast<const char*>(kPackedMarker), 2);
  AppendVarint(n, &out);
  AppendVarint(max_tf, &out);
  AppendVarint(min_dl, &out);
  AppendVarint(blocks, &out);
  const size_t widths_at = out.size();
  out.append(4, '\0');
  for (int c = 0; c < 4; ++c) out[widths_at + c] = static_cast<char>(AppendColumn(table[c].data(), blocks, &out));
  out += body;
  return out;
}

bool IsPackedPostings(std::string_view blob) { return blob.empty() || IsPacked(blob); }

Result<std::string> RepackPostings(std::string_view blob) {
  if (IsPackedPostings(blob)) return std::string(blob);
  std::vector<Posting> list;
  ENGRAM_RETURN_IF_ERROR(DecodeVarintPostings(blob, &list));
  return EncodePostings(list);
}

Result<PostingListInfo> ReadPostingInfo(std::string_view blob) {
  if (blob.empty()) return PostingListInfo{};
  if (!IsPacked(blob)) return ReadVarintPostingInfo(blob);
  PostingCursor cursor;
  ENGRAM_RETURN_IF_ERROR(cursor.Open(blob));
  return cursor.info();
}

Status DecodePostings(std::string_view blob, std::vector<Posting>* out) {
  out->clear();
  if (blob.empty()) return Status::Ok();
  if (!IsPacked(blob)) return DecodeVarintPostings(blob, out);
  PostingCursor cursor;
  ENGRAM_RETURN_IF_ERROR(cursor.Open(blob));
  return cursor.DecodeAll(out);
}

Status PostingCursor::Open(std::string_view blob) {
  *this = PostingCursor();
  if (blob.empty()) return status_;
  if (!IsPacked(blob)) {
    std::vector<Posting> list;
    status_ = DecodeVarintPostings(blob, &list);
    if (!status_.ok()) return status_;
    transcoded_ = std::make_unique<std::string>(EncodePostings(list));
    blob = *transcoded_;
  }
  const auto* begin = reinterpret_cast<const unsigned char*>(blob.data());
  end_ = begin + blob.size();
  size_t pos = 2;
  uint64_t count, max_tf, min_dl, blocks;
  if (!ReadVarint(blob, &pos, &count) || !ReadVarint(blob, &pos, &max_tf) || !ReadVarint(blob, &pos, &min_dl) ||
      !ReadVarint(blob, &pos, &blocks) || count > blob.size() * 8 || max_tf > UINT32_MAX || min_dl > UINT32_MAX ||
      blocks != (count + kPostingBlock - 1) / kPostingBlock || blob.size() - pos < 4) {
    status_ = Status::Corruption("posting list header is damaged");
    return status_;
  }
  info_ = {count, static_cast<uint32_t>(max_tf), static_cast<uint32_t>(min_dl)};
  blocks_ = blocks;
  const unsigned limits[4] = {kMaxIdBits, 64, kMaxCountBits, kMaxCountBits};
  const unsigned char* at = begin + pos + 4;
  for (int c = 0; c < 4; ++c) {
    table_width_[c] = begin[pos + c];
    const size_t bytes = PackedBytes(blocks, table_width_[c]);
    if (table_width_[c] > limits[c] || bytes > static_cast<size_t>(end_ - at)) {
      status_ = Status::Corruption("posting list block table is damaged");
      return status_;
    }
    table_[c] = at;
    at += bytes;
  }
  body_ = at;
  body_size_ = static_cast<size_t>(end_ - at);
  return status_;
}

bool PostingCursor::Fail(const char* what) {
  status_ = Status::Corruption(std::string("posting list block ").append(std::to_string(block_)).append(what));
  loaded_ = false;
  return false;
}

size_t PostingCursor::FindBlock(int64_t target) const {
  // Galloping from the cursor (Bentley & Yao): targets mostly land a few
  // blocks ahead, so doubling steps find the range before a binary search
  // over the rest of the table would.
  const auto t = static_cast<uint64_t>(std::max<int64_t>(target, 0));
  size_t lo = search_from_, step = 1, hi = lo;
  while (hi < blocks_ && Table(0, hi) < t) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  hi = std::min(hi + 1, blocks_);
  while (lo < hi) {  // the first block in [lo, hi) whose last doc is >= t
    const size_t mid = lo + (hi - lo) / 2;
    if (Table(0, mid) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const Posting* PostingCursor::Damaged() {
  Fail(" is damaged (its docs are out of order or outside its bounds)");
  return nullptr;
}

const Posting* PostingCursor::Search(size_t from, int64_t target) {
  size_t lo = from, hi = block_size_;
  while (lo < hi) {  // the first index in [lo, hi) whose doc is >= target
    const size_t mid = lo + (hi - lo) / 2;
    if (Doc(mid) < target) lo = mid + 1;
    else hi = mid;
  }
  if (lo == block_size_) return Damaged();  // the last doc is the block's, and not below target
  return Stop(lo, Doc(lo));
}

bool PostingCursor::LoadBlock(size_t b) {
  block_ = b;
  loaded_ = false;
  const uint64_t offset = Table(1, b);
  const uint64_t next = b + 1 < blocks_ ? Table(1, b + 1) : body_size_;
  if (offset > next || next > body_size_ || (b == 0 && offset != 0)) return Fail(" is outside the list");
  const unsigned char* p = body_ + offset;
  const unsigned char* end = body_ + next;
  const std::string_view bytes(reinterpret_cast<const char*>(p), next - offset);
  block_size_ = b + 1 < blocks_ ? kPostingBlock : info_.count - kPostingBlock * b;
  size_t pos = 4;
  if (bytes.size() < 4 || !ReadVarint(bytes, &pos, &page_base_) || !ReadVarint(bytes, &pos, &tf_base_) ||
      page_base_ > kMaxPostingId || tf_base_ > UINT32_MAX) {
    return Fail(" is damaged");
  }
  const unsigned limits[4] = {kMaxIdBits, kMaxIdBits, kMaxCountBits, kMaxCountBits};
  const unsigned char* column = p + pos;
  for (int c = 0; c < 4; ++c) {
    widths_[c] = p[c];
    if (widths_[c] > limits[c]) return Fail(" is damaged");
    (c == 0 ? doc_column_ : columns_[c - 1]) = column;
    const size_t size = PackedBytes(block_size_, widths_[c]);
    if (size > static_cast<size_t>(end - column)) return Fail(" is damaged");
    column += size;
  }
  if (column != end) return Fail(" is damaged (its size disagrees with the block table)");
  const uint64_t last = Table(0, b), max_tf = Table(2, b), min_dl = Table(3, b);
  const uint64_t base = b == 0 ? 0 : Table(0, b - 1);
  const bool only_doc_zero = b == 0 && last == 0;  // a list whose one posting is doc 0
  if (last > kMaxPostingId || (base >= last && !only_doc_zero) || max_tf > UINT32_MAX || min_dl > UINT32_MAX ||
      tf_base_ > max_tf) {
    return Fail(" disagrees with the block table");
  }
  doc_base_ = static_cast<int64_t>(base);
  block_last_ = static_cast<int64_t>(last);
  block_max_tf_ = static_cast<uint32_t>(max_tf);
  block_min_dl_ = static_cast<uint32_t>(min_dl);
  if (Doc(block_size_ - 1) != block_last_) return Fail(" disagrees with the block table");
  loaded_ = true;
  return true;
}

const Posting* PostingCursor::SeekBlock(int64_t target) {
  if (!status_.ok()) return nullptr;
  const size_t b = FindBlock(target);
  if (b >= blocks_) {
    search_from_ = blocks_;
    loaded_ = false;
    return nullptr;
  }
  if (!LoadBlock(b)) return nullptr;
  search_from_ = b + 1;
  return StepTo(0, target);
}

Status PostingCursor::DecodeAll(std::vector<Posting>* out) {
  out->clear();
  out->reserve(info_.count);
  uint32_t max_tf = 0, min_dl = info_.count == 0 ? 0 : UINT32_MAX;
  for (size_t b = 0; b < blocks_; ++b) {
    if (b > 0 && Table(1, b) <= Table(1, b - 1)) Fail(" is outside the list");
    if (!status_.ok() || !LoadBlock(b)) return status_;
    uint32_t block_tf = 0, block_dl = UINT32_MAX;
    for (size_t i = 0; i < block_size_; ++i) {
      const int64_t doc = Doc(i);
      if (!out->empty() && doc <= out->back().doc) Fail(" is out of order");
      const Posting* p = status_.ok() ? Stop(i, doc) : nullptr;
      if (p == nullptr) return status_;
      out->push_back(*p);
      block_tf = std::max(block_tf, p->tf);
      block_dl = std::min(block_dl, p->dl);
    }
    if (block_tf != block_max_tf_ || block_dl != block_min_dl_) Fail(" disagrees with its bounds in the table");
    max_tf = std::max(max_tf, block_tf);
    min_dl = std::min(min_dl, block_dl);
  }
  if (status_.ok() && (max_tf != info_.max_tf || min_dl != info_.min_dl)) {
    status_ = Status::Corruption("posting list header disagrees with its postings");
  }
  loaded_ = false;
  return status_;
}

}  // namespace engram::store
