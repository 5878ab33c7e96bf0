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

// Reads the varint at *pos and advances *pos past it; false (and *pos
// unspecified) when the bytes there are not one valid varint.
bool ReadVarint(std::string_view s, size_t* pos, uint64_t* v);

// A list of non-negative ids as consecutive varints.
std::string EncodeIds(const std::vector<int64_t>& ids);
// False when blob is not a whole number of valid varints or an id exceeds
// INT64_MAX; *ids then holds nothing.
bool DecodeIds(std::string_view blob, std::vector<int64_t>* ids);

}  // namespace engram::store
