// The GEMMs of the encoder's dense layers, on weights packed once into
// panels of 32 output columns (see kernels.h). One query streams every
// weight once, front to back, which the hardware prefetchers follow (the
// transposed [k × n] layout read in 32-column strips jumps a page per row
// and ran three times slower on weights that are not in cache); large
// batches run at the BLAS library's single-thread rate.
//
// fp32: a 12 × 32 register tile of AVX-512 FMAs, or a 4 × 32 tile of
// compiler-vectorised code on other CPUs. bf16: the same tile on AVX-512
// BF16's VDPBF16PS, or an emulation that widens each bf16 to fp32 (exact)
// and uses ordinary multiply-adds, giving the same numbers up to the order
// of fp32 additions.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>

#include "embed/kernels.h"
#include "embed/multiversion.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define ENGRAM_HAVE_X86 1
#define ENGRAM_AVX512 __attribute__((target("avx512f")))
#define ENGRAM_AVX512_BF16 __attribute__((target("avx512f,avx512bw,avx512bf16")))
#else
#define ENGRAM_HAVE_X86 0
#endif

namespace engram::embed::kernels {

namespace {

constexpr int kPanel = 32;     // output columns per packed panel (two 16-lane registers)
constexpr int kTileRows = 12;  // rows of C per native register tile: 24 accumulators
constexpr int kGenericRows = 4;

struct Cpu {
  bool avx512 = false;
  bool bf16 = false;
};

Cpu Detect() {
  Cpu cpu;
#if ENGRAM_HAVE_X86
  cpu.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (cpu.avx512 && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) {
    cpu.bf16 = (eax & (1u << 5)) != 0;  // CPUID.(EAX=7,ECX=1):EAX[5] = AVX512_BF16
  }
#endif
  return cpu;
}

const Cpu& Hardware() {
  static const Cpu cpu = Detect();
  return cpu;
}

std::atomic<bool> g_native{true};

bool UseAvx512() { return g_native.load(std::memory_order_relaxed) && Hardware().avx512; }
bool UseBf16Instructions() { return g_native.load(std::memory_order_relaxed) && Hardware().bf16; }

inline float Widen(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// fp32 → bf16, rounding to nearest even (NaN stays NaN).
inline uint16_t Narrow(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

// ---- Generic tiles: 4 rows × 32 columns in compiler vectors ---------------

typedef float F16 __attribute__((vector_size(64)));
typedef uint32_t U16 __attribute__((vector_size(64)));

struct GenericTile {
  F16 acc[kGenericRows][2];

  __attribute__((always_inline)) void Init(const float* bias, int cols, int rows) {
    F16 init[2] = {F16{}, F16{}};
    if (bias != nullptr) {
      float tmp[kPanel] = {};
      std::memcpy(tmp, bias, sizeof(float) * cols);
      std::memcpy(init, tmp, sizeof init);
    }
    for (int r = 0; r < rows; ++r) acc[r][0] = init[0], acc[r][1] = init[1];
  }
  __attribute__((always_inline)) void Store(float* c, size_t ldc, int cols, int rows) const {
    for (int r = 0; r < rows; ++r) {
      float tmp[kPanel];
      std::memcpy(tmp, acc[r], sizeof tmp);
      std::memcpy(c + static_cast<size_t>(r) * ldc, tmp, sizeof(float) * cols);
    }
  }
};

template <int kRows>
__attribute__((always_inline)) inline void GenericF32(const float* a, size_t lda, const float* b, int k,
                                                      const float* bias, float* c, size_t ldc, int cols) {
  GenericTile t;
  t.Init(bias, cols, kRows);
  for (int kk = 0; kk < k; ++kk) {
    F16 w[2];
    std::memcpy(w, b + static_cast<size_t>(kk) * kPanel, sizeof w);
    for (int r = 0; r < kRows; ++r) {
      const float x = a[static_cast<size_t>(r) * lda + kk];
      t.acc[r][0] += x * w[0];
      t.acc[r][1] += x * w[1];
    }
  }
  t.Store(c, ldc, cols, kRows);
}

template <int kRows>
__attribute__((always_inline)) inline void GenericBf16(const uint16_t* a, size_t lda, const uint16_t* b, int pairs,
                                                       const float* bias, float* c, size_t ldc, int cols) {
  GenericTile t;
  t.Init(bias, cols, kRows);
  for (int kk = 0; kk < pairs; ++kk) {
    U16 w[2];
    std::memcpy(w, b + static_cast<size_t>(kk) * 2 * kPanel, sizeof w);
    F16 even[2], odd[2];
    for (int h = 0; h < 2; ++h) {
      const U16 lo = w[h] << 16, hi = w[h] & 0xffff0000u;
      std::memcpy(&even[h], &lo, sizeof(F16));
      std::memcpy(&odd[h], &hi, sizeof(F16));
    }
    for (int r = 0; r < kRows; ++r) {
      const uint16_t* x = a + static_cast<size_t>(r) * lda + 2 * kk;
      const float x0 = Widen(x[0]), x1 = Widen(x[1]);
      for (int h = 0; h < 2; ++h) t.acc[r][h] += x1 * odd[h] + x0 * even[h];
    }
  }
  t.Store(c, ldc, cols, kRows);
}

#define ENGRAM_GENERIC_PANEL(NAME, TILE, T)                                                                      \
  ENGRAM_MULTIVERSION void NAME(const T* a, size_t lda, const T* b, int depth, const float* bias, float* c,     \
                                size_t ldc, int rows, int cols) {                                              \
    for (int r = 0; r < rows; r += kGenericRows) {                                                             \
      const T* ar = a + static_cast<size_t>(r) * lda;                                                          \
      float* cr = c + static_cast<size_t>(r) * ldc;                                                            \
      switch (std::min(kGenericRows, rows - r)) {                                                              \
        case 4: TILE<4>(ar, lda, b, depth, bias, cr, ldc, cols); break;                                        \
        case 3: TILE<3>(ar, lda, b, depth, bias, cr, ldc, cols); break;                                        \
        case 2: TILE<2>(ar, lda, b, depth, bias, cr, ldc, cols); break;                                        \
        default: TILE<1>(ar, lda, b, depth, bias, cr, ldc, cols); break;                                       \
      }                                                                                                        \
    }                                                                                                          \
  }
ENGRAM_GENERIC_PANEL(PanelGenericF32, GenericF32, float)
ENGRAM_GENERIC_PANEL(PanelGenericBf16, GenericBf16, uint16_t)
#undef ENGRAM_GENERIC_PANEL

// ---- AVX-512 tiles: 12 rows × 32 columns ------------------------------------

#if ENGRAM_HAVE_X86
struct Masks {
  __mmask16 lo, hi;
};

inline Masks ColumnMasks(int cols) {
  return {cols >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << cols) - 1),
          cols >= 32   ? static_cast<__mmask16>(0xffff)
          : cols <= 16 ? static_cast<__mmask16>(0)
                       : static_cast<__mmask16>((1u << (cols - 16)) - 1)};
}

// One tile: acc = bias; for each step of the depth, step(acc0, acc1); store.
#define ENGRAM_TILE_BODY(...)                                                                              \
  __m512 acc0[kRows], acc1[kRows];                                                                         \
  const __m512 init0 = bias != nullptr ? _mm512_maskz_loadu_ps(m.lo, bias) : _mm512_setzero_ps();          \
  const __m512 init1 = bias != nullptr ? _mm512_maskz_loadu_ps(m.hi, bias + 16) : _mm512_setzero_ps();     \
  _Pragma("GCC unroll 16") for (int r = 0; r < kRows; ++r) acc0[r] = init0, acc1[r] = init1;               \
  __VA_ARGS__;                                                                                                  \
  _Pragma("GCC unroll 16") for (int r = 0; r < kRows; ++r) {                                               \
    _mm512_mask_storeu_ps(c + static_cast<size_t>(r) * ldc, m.lo, acc0[r]);                                \
    _mm512_mask_storeu_ps(c + static_cast<size_t>(r) * ldc + 16, m.hi, acc1[r]);                           \
  }

template <int kRows>
ENGRAM_AVX512 __attribute__((always_inline)) inline void TileF32(const float* a, size_t lda, const float* b, int k,
                                                                  const float* bias, float* c, size_t ldc, Masks m) {
  ENGRAM_TILE_BODY(for (int kk = 0; kk < k; ++kk) {
    const __m512 w0 = _mm512_loadu_ps(b), w1 = _mm512_loadu_ps(b + 16);
    b += kPanel;
    _Pragma("GCC unroll 16") for (int r = 0; r < kRows; ++r) {
      const __m512 x = _mm512_set1_ps(a[static_cast<size_t>(r) * lda + kk]);
      acc0[r] = _mm512_fmadd_ps(x, w0, acc0[r]);
      acc1[r] = _mm512_fmadd_ps(x, w1, acc1[r]);
    }
  })
}

template <int kRows>
ENGRAM_AVX512_BF16 __attribute__((always_inline)) inline void TileBf16(const uint16_t* a, size_t lda,
                                                                        const uint16_t* b, int pairs,
                                                                        const float* bias, float* c, size_t ldc,
                                                                        Masks m) {
  ENGRAM_TILE_BODY(for (int kk = 0; kk < pairs; ++kk) {
    const __m512bh w0 = (__m512bh)_mm512_loadu_si512(b);
    const __m512bh w1 = (__m512bh)_mm512_loadu_si512(b + 32);
    b += 2 * kPanel;
    _Pragma("GCC unroll 16") for (int r = 0; r < kRows; ++r) {
      int32_t pair;
      std::memcpy(&pair, a + static_cast<size_t>(r) * lda + 2 * kk, sizeof pair);
      const __m512bh x = (__m512bh)_mm512_set1_epi32(pair);
      acc0[r] = _mm512_dpbf16_ps(acc0[r], x, w0);
      acc1[r] = _mm512_dpbf16_ps(acc1[r], x, w1);
    }
  })
}
#undef ENGRAM_TILE_BODY

#define ENGRAM_NATIVE_PANEL(NAME, TILE, T, TARGET)                                                          \
  TARGET void NAME(const T* a, size_t lda, const T* b, int depth, const float* bias, float* c, size_t ldc,  \
                   int rows, int cols) {                                                                    \
    const Masks m = ColumnMasks(cols);                                                                      \
    for (int r = 0; r < rows; r += kTileRows) {                                                             \
      const T* ar = a + static_cast<size_t>(r) * lda;                                                       \
      float* cr = c + static_cast<size_t>(r) * ldc;                                                         \
      switch (std::min(kTileRows, rows - r)) {                                                              \
        case 12: TILE<12>(ar, lda, b, depth, bias, cr, ldc, m); break;                                      \
        case 11: TILE<11>(ar, lda, b, depth, bias, cr, ldc, m); break;                                      \
        case 10: TILE<10>(ar, lda, b, depth, bias, cr, ldc, m); break;                                      \
        case 9: TILE<9>(ar, lda, b, depth, bias, cr, ldc, m); break;                                        \
        case 8: TILE<8>(ar, lda, b, depth, bias, cr, ldc, m); break;                                        \
        case 7: TILE<7>(ar, lda, b, depth, bias, cr, ldc, m); break;                                        \
        case 6: TILE<6>(ar, lda, b, depth, bias, cr, ldc, m); break;                                        \
        case 5: TILE<5>(ar, lda, b, depth, bias, cr, ldc, m); break;                                        \
        case 4: TILE<4>(ar, lda, b, depth, bias, cr, ldc, m); break;                                        \
        case 3: TILE<3>(ar, lda, b, depth, bias, cr, ldc, m); break;                                        \
        case 2: TILE<2>(ar, lda, b, depth, bias, cr, ldc, m); break;                                        \
        default: TILE<1>(ar, lda, b, depth, bias, cr, ldc, m); break;                                       \
      }                                                                                                     \
    }                                                                                                       \
  }
ENGRAM_NATIVE_PANEL(PanelNativeF32, TileF32, float, ENGRAM_AVX512)
ENGRAM_NATIVE_PANEL(PanelNativeBf16, TileBf16, uint16_t, ENGRAM_AVX512_BF16)
#undef ENGRAM_NATIVE_PANEL
#endif

// Rows of A in blocks small enough to stay in L2 while every panel of the
// weight in [n0, n1) passes them; each panel then stays in L1/L2 across the
// block's register tiles.
template <typename T, typename Panel>
void Blocked(const T* a, size_t lda, const T* wp, int depth, size_t panel_elems, const float* bias, float* c,
             int ldc, int m, int n0, int n1, Panel panel) {
  const int rows_per_tile = kTileRows * kGenericRows;  // a multiple of both tile heights
  const int block = std::max(rows_per_tile, static_cast<int>((256u << 10) / (lda * sizeof(T))) / rows_per_tile *
                                                rows_per_tile);
  for (int r0 = 0; r0 < m; r0 += block) {
    const int rows = std::min(block, m - r0);
    for (int col = n0; col < n1; col += kPanel) {
      panel(a + static_cast<size_t>(r0) * lda, lda, wp + static_cast<size_t>(col / kPanel) * panel_elems, depth,
            bias != nullptr ? bias + col : nullptr, c + static_cast<size_t>(r0) * ldc + col, static_cast<size_t>(ldc),
            rows, std::min(kPanel, n1 - col));
    }
  }
}

}  // namespace

bool NativeBf16() { return UseBf16Instructions(); }

bool UseNativeKernels(bool on) { return g_native.exchange(on, std::memory_order_relaxed); }

size_t PackedSize(int n, int k) {
  return static_cast<size_t>((n + kPanel - 1) / kPanel) * static_cast<size_t>(k) * kPanel;
}

void Pack(const float* w, int n, int k, float* dst) {
  std::memset(dst, 0, PackedSize(n, k) * sizeof(float));
  for (int col = 0; col < n; ++col) {
    float* panel = dst + static_cast<size_t>(col / kPanel) * k * kPanel + col % kPanel;
    const float* row = w + static_cast<size_t>(col) * k;
    for (int kk = 0; kk < k; ++kk) panel[static_cast<size_t>(kk) * kPanel] = row[kk];
  }
}

void LinearPacked(const float* a, int lda, const float* wp, const float* bias, float* c, int ldc, int m, int k,
                  int n0, int n1) {
  const size_t panel_elems = static_cast<size_t>(k) * kPanel;
#if ENGRAM_HAVE_X86
  if (UseAvx512()) {
    Blocked(a, static_cast<size_t>(lda), wp, k, panel_elems, bias, c, ldc, m, n0, n1, PanelNativeF32);
    return;
  }
#endif
  Blocked(a, static_cast<size_t>(lda), wp, k, panel_elems, bias, c, ldc, m, n0, n1, PanelGenericF32);
}

size_t PackedBf16Size(int n, int k) { return PackedSize(n, Bf16RowStride(k) / 2) * 2; }

void PackBf16(const float* w, int n, int k, uint16_t* dst) {
  const int pairs = (k + 1) / 2;
  std::memset(dst, 0, PackedBf16Size(n, k) * sizeof(uint16_t));
  for (int col = 0; col < n; ++col) {
    uint16_t* panel = dst + static_cast<size_t>(col / kPanel) * pairs * 2 * kPanel + 2 * (col % kPanel);
    const float* row = w + static_cast<size_t>(col) * k;
    for (int kk = 0; kk < k; ++kk) panel[static_cast<size_t>(kk / 2) * 2 * kPanel + kk % 2] = Narrow(row[kk]);
  }
}

size_t Bf16RowStride(int k) { return static_cast<size_t>((k + 1) / 2) * 2; }

ENGRAM_MULTIVERSION
void ToBf16(const float* a, int lda, int m, int k, uint16_t* dst) {
  const size_t stride = Bf16RowStride(k);
  for (int r = 0; r < m; ++r) {
    const float* in = a + static_cast<size_t>(r) * lda;
    uint16_t* out = dst + static_cast<size_t>(r) * stride;
    for (int i = 0; i < k; ++i) out[i] = Narrow(in[i]);
    if (static_cast<size_t>(k) < stride) out[k] = 0;
  }
}

void LinearBf16(const uint16_t* a, const uint16_t* wp, const float* bias, float* c, int ldc, int m, int k, int n0,
                int n1) {
  const int pairs = (k + 1) / 2;
  const size_t lda = Bf16RowStride(k);
  const size_t panel_elems = static_cast<size_t>(pairs) * 2 * kPanel;
#if ENGRAM_HAVE_X86
  if (UseBf16Instructions()) {
    Blocked(a, lda, wp, pairs, panel_elems, bias, c, ldc, m, n0, n1, PanelNativeBf16);
    return;
  }
#endif
  Blocked(a, lda, wp, pairs, panel_elems, bias, c, ldc, m, n0, n1, PanelGenericBf16);
}

}  // namespace engram::embed::kernels
