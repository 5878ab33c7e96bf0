#include "store/postings_codec.h"

namespace engram::store {

void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool ReadVarint(std::string_view s, size_t* pos, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 70 && *pos < s.size(); shift += 7) {
    auto c = static_cast<unsigned char>(s[(*pos)++]);
    result |= static_cast<uint64_t>(c & 0x7F) << shift;
    if ((c & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

std::string EncodePostings(const std::vector<Posting>& postings) {
  std::string out;
  out.reserve(postings.size() * 5 + 2);
  AppendVarint(postings.size(), &out);
  int64_t prev = 0;
  for (const Posting& p : postings) {
    AppendVarint(static_cast<uint64_t>(p.doc - prev), &out);
    AppendVarint(static_cast<uint64_t>(p.page), &out);
    AppendVarint(p.tf, &out);
    AppendVarint(p.dl, &out);
    prev = p.doc;
  }
  return out;
}

Status DecodePostings(std::string_view blob, std::vector<Posting>* out) {
  out->clear();
  if (blob.empty()) return Status::Ok();
  size_t pos = 0;
  uint64_t count = 0;
  if (!ReadVarint(blob, &pos, &count) || count > blob.size()) {
    return Status::Corruption("posting list header is damaged");
  }
  out->reserve(count);
  int64_t doc = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t delta, page, tf, dl;
    if (!ReadVarint(blob, &pos, &delta) || !ReadVarint(blob, &pos, &page) || !ReadVarint(blob, &pos, &tf) ||
        !ReadVarint(blob, &pos, &dl) || (delta == 0 && i > 0)) {
      return Status::Corruption("posting list is truncated or out of order at entry " + std::to_string(i));
    }
    doc += static_cast<int64_t>(delta);
    out->push_back({doc, static_cast<int64_t>(page), static_cast<uint32_t>(tf), static_cast<uint32_t>(dl)});
  }
  if (pos != blob.size()) return Status::Corruption("posting list has trailing bytes");
  return Status::Ok();
}

Result<uint64_t> PostingCount(std::string_view blob) {
  if (blob.empty()) return uint64_t{0};
  size_t pos = 0;
  uint64_t count = 0;
  if (!ReadVarint(blob, &pos, &count)) return Status::Corruption("posting list header is damaged");
  return count;
}

}  // namespace engram::store
