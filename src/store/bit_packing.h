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
  const size_t start = out->size();
  out->resize(start + PackedBytes(n, w), '\0');
  auto* p = reinterpret_cast<unsigned char*>(out->data() + start);
  uint64_t bit = 0;
  for (size_t i = 0; i < n; ++i, bit += w) {
    const uint64_t v = values[i];
    for (unsigned done = 0; done < w;) {
      const size_t byte = (bit + done) / 8;
      const unsigned shift = (bit + done) % 8;
      const unsigned take = std::min(8 - shift, w - done);
      p[byte] = static_cast<unsigned char>(p[byte] | (((v >> done) & ((1u << take) - 1)) << shift));
      done += take;
    }
  }
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
