// The numeric kernels of the encoder: a GEMM on the BLAS library (OpenBLAS
// through cblas) and the element-wise work between GEMMs — LayerNorm, exact
// (erf) GELU, row softmax, bias — written as plain loops that the compiler
// vectorises, compiled for AVX-512, AVX2 and baseline x86-64 and chosen at
// run time (function multi-versioning).
#pragma once

#include <cstddef>

namespace engram::embed::kernels {

// Threads the BLAS library may use (>= 1); returns the previous setting.
int SetBlasThreads(int threads);
// Which BLAS core the library picked ("Haswell", "SkylakeX"…), for reports.
const char* BlasCore();

// C[m×n] = A[m×k] · W[n×k]ᵀ (+ bias[n] on every row when bias != nullptr).
// lda/ldc are row strides in floats; W is dense (ldw = k).
void Linear(const float* a, int lda, const float* w, const float* bias, float* c, int ldc, int m, int n, int k);
// The same product for few rows (one query) on a pre-transposed weight
// wt[k×n]: no packing, each weight read once, columns [n0, n1) only (n0 a
// multiple of 32) so that threads can split them.
void LinearFewRows(const float* a, int lda, const float* wt, const float* bias, float* c, int ldc, int m, int n, int k,
                   int n0, int n1);
// C[m×n] = A[m×k] · Wt[k×n] (+ bias): the many-row product on a transposed weight.
void LinearT(const float* a, int lda, const float* wt, const float* bias, float* c, int ldc, int m, int n, int k);
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
// Scales v to unit length (no-op for a zero vector; eps as in torch's normalize).
void L2Normalize(float* v, int n);

}  // namespace engram::embed::kernels
