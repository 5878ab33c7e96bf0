// The one varint codec of the store: unsigned LEB128 (7 bits per byte, low
// group first, the high bit marks "more"), used by posting lists and by the
// term-id lists kept with each chunk. Decoding is strict: a truncated value,
// one longer than 10 bytes, or one whose 10th byte sets bits past 64 is
// rejected, never silently cut short or wrapped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engram::store {

void AppendVarint(uint64_t v, std::string* out);

// The general case of ReadVarint (any length), out of line.
bool ReadVarintSlow(std::string_view s, size_t* pos, uint64_t* v);

// Reads the varint at *pos and advances *pos past it; false (and *pos
// unspecified) when the bytes there are not one valid varint. Inline for
// values of up to three bytes (below 2^21): posting lists are mostly such
// numbers (gaps, frequencies, lengths, page ids), and decoding them is most
// of what a keyword query costs.
inline bool ReadVarint(std::string_view s, size_t* pos, uint64_t* v) {
  const size_t p = *pos;
  if (p + 3 <= s.size()) {
    const auto c0 = static_cast<unsigned char>(s[p]);
    if (c0 < 0x80) {
      *v = c0;
      *pos = p + 1;
      return true;
    }
    const auto c1 = static_cast<unsigned char>(s[p + 1]);
    if (c1 < 0x80) {
      *v = (c0 & 0x7Fu) | (uint64_t{c1} << 7);
      *pos = p + 2;
      return true;
    }
    const auto c2 = static_cast<unsigned char>(s[p + 2]);
    if (c2 < 0x80) {
      *v = (c0 & 0x7Fu) | (uint64_t{c1 & 0x7Fu} << 7) | (uint64_t{c2} << 14);
      *pos = p + 3;
      return true;
    }
  }
  return ReadVarintSlow(s, pos, v);
}

// A list of non-negative ids as consecutive varints.
std::string EncodeIds(const std::vector<int64_t>& ids);
// False when blob is not a whole number of valid varints or an id exceeds
// INT64_MAX; *ids then holds nothing.
bool DecodeIds(std::string_view blob, std::vector<int64_t>* ids);

}  // namespace engram::store
