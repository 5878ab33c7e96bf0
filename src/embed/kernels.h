// The numeric kernels of the encoder: the dense layers' GEMMs on packed
// weights in fp32 and bf16 (packed_gemm.cc), the attention GEMMs on the BLAS
// library (OpenBLAS through cblas), and the element-wise work between GEMMs —
// LayerNorm, exact (erf) GELU, row softmax — written as plain loops that the
// compiler vectorises. Everything is compiled for AVX-512, AVX2 and baseline
// x86-64 and chosen at run time.
#pragma once

#include <cstddef>
#include <cstdint>

namespace engram::embed::kernels {

// Threads the BLAS library may use (>= 1); returns the previous setting.
int SetBlasThreads(int threads);
// Which BLAS core the library picked ("Haswell", "SkylakeX"…), for reports.
const char* BlasCore();

// C[m×n] = A[m×k] · W[n×k]ᵀ (+ bias[n] on every row when bias != nullptr)
// on the BLAS library. lda/ldc are row strides in floats; W is dense.
void Linear(const float* a, int lda, const float* w, const float* bias, float* c, int ldc, int m, int n, int k);
// C[m×n] = alpha · A[m×k] · B[n×k]ᵀ with strides.
void GemmNT(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int m, int n, int k, float alpha);
// C[m×n] = A[m×k] · B[k×n] with strides.
void GemmNN(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int m, int n, int k);

// x[i] = LayerNorm(x[i] + residual[i]) for each of rows rows of width n
// (residual may be nullptr).
void AddLayerNorm(float* x, const float* residual, const float* gamma, const float* beta, int rows, int n, float eps);
// x = 0.5 x (1 + erf(x / sqrt 2)), in place.
void Gelu(float* x, size_t n);
// Each of rows rows of width n becomes its softmax, in place.
void SoftmaxRows(float* x, int rows, int n);
// Vectorisable exp and erf (|relative error| < 3e-7, |absolute error| < 2e-7), exposed for tests.
void ExpInPlace(float* x, size_t n);
void ErfInPlace(float* x, size_t n);
// ---- Dense layers on packed weights (packed_gemm.cc) ----------------------
// A weight W [n × k] (PyTorch's [out × in]) is packed once into panels of 32
// output columns: panel p holds, for each k, columns 32p…32p+31 side by side
// (n padded to a multiple of 32 with zeros). A product streams each panel
// front to back. The bf16 form keeps k in pairs, the two values of a pair
// adjacent (the operand layout of AVX-512 BF16's VDPBF16PS), k padded to
// even; rounding to bf16 is to nearest even. Products accumulate in fp32.
// Both compute C[m × n] = A · Wᵀ (+ bias) for output columns [n0, n1) only
// (n0 a multiple of 32), so that threads can split them.

// floats of a packed [n × k] weight.
size_t PackedSize(int n, int k);
void Pack(const float* w, int n, int k, float* dst);
void LinearPacked(const float* a, int lda, const float* wp, const float* bias, float* c, int ldc, int m, int k, int n0,
                  int n1);

// uint16 elements of a packed bf16 [n × k] weight.
size_t PackedBf16Size(int n, int k);
void PackBf16(const float* w, int n, int k, uint16_t* dst);
// uint16 elements per row of a converted activation (k rounded up to even).
size_t Bf16RowStride(int k);
// m rows of A (stride lda floats) into dst, Bf16RowStride(k) per row.
void ToBf16(const float* a, int lda, int m, int k, uint16_t* dst);
void LinearBf16(const uint16_t* a, const uint16_t* wp, const float* bias, float* c, int ldc, int m, int k, int n0,
                int n1);

// True when the CPU has AVX-512 BF16 (and native kernels are on); otherwise
// an emulation on fp32 multiply-adds computes the same products.
bool NativeBf16();
// Tests: false forces the portable kernels (no AVX-512, no BF16
// instructions), true restores the CPU's best; returns the previous choice.
bool UseNativeKernels(bool on);

// Scales v to unit length (no-op for a zero vector; eps as in torch's normalize).
void L2Normalize(float* v, int n);

}  // namespace engram::embed::kernels
