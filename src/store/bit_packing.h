// Fixed-width bit packing for the posting-list codec: n values of w bits
// each (0 <= w <= 64), low bits first, in ceil(n * w / 8) bytes, so the k-th
// value is read without the ones before it. Internal to the store module.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

namespace engram::store {

// Bits needed for v (0 for 0).
inline unsigned BitWidth(uint64_t v) { return static_cast<unsigned>(std::bit_width(v)); }

// Bytes that n values of w bits take.
inline size_t PackedBytes(size_t n, unsigned w) { return (n * w + 7) / 8; }

// Appends values[0..n) at w bits each (every value must fit in w bits).
inline void AppendPacked(const uint64_t* values, size_t n, unsigned w, std::string* out) {
  uint64_t acc = 0;   // bits not yet written, low first
  unsigned used = 0;  // how many (fewer than 8 between values)
  for (size_t i = 0; i < n && w > 0; ++i) {
    const uint64_t v = values[i];
    acc |= v << used;
    unsigned total = used + w;
    if (total > 64) {  // v's top bits did not fit in acc: write acc whole, keep them
      for (int b = 0; b < 8; ++b) out->push_back(static_cast<char>(acc >> (8 * b)));
      acc = v >> (64 - used);
      total -= 64;
    }
    for (; total >= 8; total -= 8) {
      out->push_back(static_cast<char>(acc));
      acc >>= 8;
    }
    used = total;
  }
  if (used > 0) out->push_back(static_cast<char>(acc));
}

// The k-th w-bit value of the packed array at p, whose bytes are inside a
// buffer that ends at end (the array's own bytes are all there; a read may
// use up to 8 bytes past the value only when the buffer has them).
inline uint64_t PackedAt(const unsigned char* p, const unsigned char* end, size_t k, unsigned w) {
  if (w == 0) return 0;
  const uint64_t bit = static_cast<uint64_t>(k) * w;
  const unsigned char* at = p + bit / 8;
  const unsigned shift = bit % 8;
  uint64_t word = 0;
  if (end - at >= 8) {
    std::memcpy(&word, at, 8);
    if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
  } else {
    for (ptrdiff_t i = 0; i < end - at; ++i) word |= uint64_t{at[i]} << (8 * i);
  }
  uint64_t v = word >> shift;
  if (shift + w > 64) v |= uint64_t{at[8]} << (64 - shift);  // the value's last bits are in its 9th byte
  return w == 64 ? v : v & ((uint64_t{1} << w) - 1);
}

}  // namespace engram::store
