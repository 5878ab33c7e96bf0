#include "store/varint.h"

#include <limits>

namespace engram::store {

void AppendVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool ReadVarintSlow(std::string_view s, size_t* pos, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64 && *pos < s.size(); shift += 7) {
    const auto c = static_cast<unsigned char>(s[(*pos)++]);
    // The 10th byte holds bit 63 only: anything more would be lost.
    if (shift == 63 && (c & 0x7E) != 0) return false;
    result |= static_cast<uint64_t>(c & 0x7F) << shift;
    if ((c & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;  // truncated, or a continuation bit on the 10th byte
}

std::string EncodeIds(const std::vector<int64_t>& ids) {
  std::string out;
  for (int64_t id : ids) AppendVarint(static_cast<uint64_t>(id), &out);
  return out;
}

bool DecodeIds(std::string_view blob, std::vector<int64_t>* ids) {
  ids->clear();
  for (size_t pos = 0; pos < blob.size();) {
    uint64_t v = 0;
    if (!ReadVarint(blob, &pos, &v) || v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      ids->clear();
      return false;
    }
    ids->push_back(static_cast<int64_t>(v));
  }
  return true;
}

}  // namespace engram::store
