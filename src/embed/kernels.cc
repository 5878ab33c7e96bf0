#include "embed/kernels.h"
#include "embed/multiversion.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

// OpenBLAS extensions (declared in its cblas.h on Debian; repeated here so
// another cblas header would still compile).
extern "C" {
void openblas_set_num_threads(int);
int openblas_get_num_threads(void);
char* openblas_get_corename(void);
}

namespace engram::embed::kernels {

int SetBlasThreads(int threads) {
  int previous = openblas_get_num_threads();
  openblas_set_num_threads(std::max(1, threads));
  return previous;
}

const char* BlasCore() { return openblas_get_corename(); }

namespace {

// Copies bias into every row of C; the GEMM then adds to it (beta 1) instead
// of a second pass over C.
float PrefillBias(const float* bias, float* c, int ldc, int m, int n) {
  if (bias == nullptr) return 0.0f;
  for (int i = 0; i < m; ++i) std::memcpy(c + static_cast<size_t>(i) * ldc, bias, sizeof(float) * n);
  return 1.0f;
}

}  // namespace

void Linear(const float* a, int lda, const float* w, const float* bias, float* c, int ldc, int m, int n, int k) {
  const float beta = PrefillBias(bias, c, ldc, m, n);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a, lda, w, k, beta, c, ldc);
}

void GemmNT(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int m, int n, int k, float alpha) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, alpha, a, lda, b, ldb, 0.0f, c, ldc);
}

void GemmNN(const float* a, int lda, const float* b, int ldb, float* c, int ldc, int m, int n, int k) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
}

namespace {

inline float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// exp(x): x = n ln2 + r with |r| <= ln2/2, exp(r) by a degree-6 polynomial,
// 2^n put into the exponent bits. Branch-free so that loops vectorise.
inline float ExpScalar(float x) {
  x = std::min(88.3762626647949f, std::max(-87.3365447505531f, x));
  float n = std::floor(x * 1.44269504088896341f + 0.5f);
  float r = x - n * 0.693359375f;
  r = r + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t e = static_cast<int32_t>(n) + 127;
  return p * BitsToFloat(static_cast<uint32_t>(e) << 23);
}

// erf(x): the Maclaurin series below |x| = 0.8 (truncation error < 4e-8),
// Abramowitz & Stegun 7.1.26 above (|error| <= 1.5e-7). Both are computed
// and one selected, so that loops stay branch-free and vectorise.
inline float ErfScalar(float x) {
  float ax = std::fabs(x);
  float t = 1.0f / (1.0f + 0.3275911f * ax);
  float y = 1.061405429f;
  y = y * t - 1.453152027f;
  y = y * t + 1.421413741f;
  y = y * t - 0.284496736f;
  y = y * t + 0.254829592f;
  y = 1.0f - y * t * ExpScalar(-ax * ax);
  float z = x * x;  // 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)), n <= 7
  float s = -1.0f / (5040.0f * 15.0f);
  s = s * z + 1.0f / (720.0f * 13.0f);
  s = s * z - 1.0f / (120.0f * 11.0f);
  s = s * z + 1.0f / (24.0f * 9.0f);
  s = s * z - 1.0f / (6.0f * 7.0f);
  s = s * z + 1.0f / (2.0f * 5.0f);
  s = s * z - 1.0f / 3.0f;
  s = s * z + 1.0f;
  float small = 1.12837916709551257f * ax * s;
  return std::copysign(ax < 0.8f ? small : y, x);
}

}  // namespace

ENGRAM_MULTIVERSION
void ExpInPlace(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = ExpScalar(x[i]);
}

ENGRAM_MULTIVERSION
void ErfInPlace(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = ErfScalar(x[i]);
}

ENGRAM_MULTIVERSION
void Gelu(float* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] * (1.0f + ErfScalar(x[i] * 0.70710678118654752f));
}

ENGRAM_MULTIVERSION
void SoftmaxRows(float* x, int rows, int n) {
  for (int r = 0; r < rows; ++r) {
    float* row = x + static_cast<size_t>(r) * n;
    float max = row[0];
    for (int i = 1; i < n; ++i) max = std::max(max, row[i]);
    float sum = 0.0f;
    for (int i = 0; i < n; ++i) {
      row[i] = ExpScalar(row[i] - max);
      sum += row[i];
    }
    float inv = 1.0f / sum;
    for (int i = 0; i < n; ++i) row[i] *= inv;
  }
}

ENGRAM_MULTIVERSION
void AddLayerNorm(float* x, const float* residual, const float* gamma, const float* beta, int rows, int n, float eps) {
  for (int r = 0; r < rows; ++r) {
    float* row = x + static_cast<size_t>(r) * n;
    if (residual != nullptr) {
      const float* res = residual + static_cast<size_t>(r) * n;
      for (int i = 0; i < n; ++i) row[i] += res[i];
    }
    float mean = 0.0f;
    for (int i = 0; i < n; ++i) mean += row[i];
    mean /= static_cast<float>(n);
    float var = 0.0f;
    for (int i = 0; i < n; ++i) var += (row[i] - mean) * (row[i] - mean);
    var /= static_cast<float>(n);
    float inv = 1.0f / std::sqrt(var + eps);
    for (int i = 0; i < n; ++i) row[i] = (row[i] - mean) * inv * gamma[i] + beta[i];
  }
}

void L2Normalize(float* v, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += static_cast<double>(v[i]) * v[i];
  float norm = static_cast<float>(std::max(std::sqrt(sum), 1e-12));
  for (int i = 0; i < n; ++i) v[i] /= norm;
}

}  // namespace engram::embed::kernels
