// Inner products for the vector index: exact fp32, and int8 codes of
// L2-normalised vectors for graph traversal (AVX-512 VNNI where the CPU has
// it, portable code elsewhere; chosen at run time).
//
// A code stores round(x / scale) in int8 with scale = max|x_i| / 127, plus the
// scale and the sum of the codes. A query is coded as unsigned bytes q + 128
// so that VPDPBUSD (u8 × s8) applies; the +128 is taken back out with the
// stored sum: dot(q, x) ≈ (Σ (q_i+128)·x_i − 128·Σ x_i) · scale_q · scale_x.
#pragma once

#include <cstddef>
#include <cstdint>

namespace engram::vector {

float Dot(const float* a, const float* b, size_t n);

struct CodeInfo {
  float scale = 0;
  int32_t sum = 0;
};
// Bytes of one code of n dimensions (n rounded up to a multiple of 64, zero-padded).
size_t CodeBytes(size_t n);
CodeInfo EncodeVector(const float* x, size_t n, int8_t* code);
CodeInfo EncodeQuery(const float* q, size_t n, uint8_t* code);
// Σ q_i · x_i over padded bytes (the raw integer product).
int32_t DotU8S8(const uint8_t* q, const int8_t* x, size_t padded);
inline float ApproxDot(int32_t raw, const CodeInfo& q, const CodeInfo& x) {
  return static_cast<float>(raw - 128 * x.sum) * q.scale * x.scale;
}

// Tests: false forces the portable kernels; returns the previous choice.
bool UseNativeDistance(bool on);

}  // namespace engram::vector
