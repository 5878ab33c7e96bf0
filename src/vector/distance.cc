#include "vector/distance.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ENGRAM_HAVE_X86 1
#else
#define ENGRAM_HAVE_X86 0
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define ENGRAM_DIST_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ENGRAM_DIST_CLONES
#endif

namespace engram::vector {

namespace {

std::atomic<bool> g_native{true};

bool HaveVnni() {
#if ENGRAM_HAVE_X86
  static const bool v = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                        __builtin_cpu_supports("avx512vnni");
  return v;
#else
  return false;
#endif
}

typedef float F16 __attribute__((vector_size(64)));

ENGRAM_DIST_CLONES
float DotPortable(const float* a, const float* b, size_t n) {
  F16 acc0{}, acc1{};
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    F16 x0, y0, x1, y1;
    std::memcpy(&x0, a + i, sizeof x0);
    std::memcpy(&y0, b + i, sizeof y0);
    std::memcpy(&x1, a + i + 16, sizeof x1);
    std::memcpy(&y1, b + i + 16, sizeof y1);
    acc0 += x0 * y0;
    acc1 += x1 * y1;
  }
  acc0 += acc1;
  float s = 0;
  for (int j = 0; j < 16; ++j) s += acc0[j];
  for (; i < n; ++i) s += a[i] * b[i];
  return s;
}

ENGRAM_DIST_CLONES
int32_t DotU8S8Portable(const uint8_t* q, const int8_t* x, size_t padded) {
  int32_t s = 0;
  for (size_t i = 0; i < padded; ++i) s += static_cast<int32_t>(q[i]) * static_cast<int32_t>(x[i]);
  return s;
}

#if ENGRAM_HAVE_X86
__attribute__((target("avx512f,avx512bw,avx512vnni"))) int32_t DotU8S8Vnni(const uint8_t* q, const int8_t* x,
                                                                           size_t padded) {
  __m512i acc0 = _mm512_setzero_si512(), acc1 = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 128 <= padded; i += 128) {
    acc0 = _mm512_dpbusd_epi32(acc0, _mm512_loadu_si512(q + i), _mm512_loadu_si512(x + i));
    acc1 = _mm512_dpbusd_epi32(acc1, _mm512_loadu_si512(q + i + 64), _mm512_loadu_si512(x + i + 64));
  }
  if (i < padded) acc0 = _mm512_dpbusd_epi32(acc0, _mm512_loadu_si512(q + i), _mm512_loadu_si512(x + i));
  alignas(64) int32_t lanes[16];
  _mm512_store_si512(lanes, _mm512_add_epi32(acc0, acc1));
  int32_t s = 0;
  for (int32_t v : lanes) s += v;
  return s;
}
#endif

float MaxAbs(const float* x, size_t n) {
  float m = 0;
  for (size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));
  return m;
}

}  // namespace

bool UseNativeDistance(bool on) { return g_native.exchange(on); }

float Dot(const float* a, const float* b, size_t n) { return DotPortable(a, b, n); }

size_t CodeBytes(size_t n) { return (n + 63) / 64 * 64; }

namespace {

// Levels round(x_i / scale) with scale = max|x| / 127, each plus offset, into
// code (padded with offset); the scale and the sum of the levels.
template <typename T>
CodeInfo Quantize(const float* x, size_t n, int offset, T* code) {
  std::fill(code, code + CodeBytes(n), static_cast<T>(offset));
  CodeInfo info;
  const float m = MaxAbs(x, n);
  if (m == 0 || !std::isfinite(m)) return info;
  info.scale = m / 127.0f;
  const float inv = 127.0f / m;
  for (size_t i = 0; i < n; ++i) {
    const int level = std::clamp(static_cast<int>(std::lrint(x[i] * inv)), -127, 127);
    code[i] = static_cast<T>(level + offset);
    info.sum += level;
  }
  return info;
}

}  // namespace

CodeInfo EncodeVector(const float* x, size_t n, int8_t* code) { return Quantize(x, n, 0, code); }

CodeInfo EncodeQuery(const float* q, size_t n, uint8_t* code) { return Quantize(q, n, 128, code); }

int32_t DotU8S8(const uint8_t* q, const int8_t* x, size_t padded) {
#if ENGRAM_HAVE_X86
  if (g_native.load(std::memory_order_relaxed) && HaveVnni()) return DotU8S8Vnni(q, x, padded);
#endif
  return DotU8S8Portable(q, x, padded);
}

}  // namespace engram::vector
