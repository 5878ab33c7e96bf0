// Exact (brute-force) inner-product search: the oracle for the HNSW graph,
// the search for small collections, and the search for selective filters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace engram::vector {

struct Scored {
  size_t row = 0;
  float score = 0;
};

// The k rows of base ([n × dims], row-major) with the largest inner product
// with q, best first (ties: lower row first); rows where keep(row) is false
// are skipped.
std::vector<Scored> ExactTopK(const float* base, size_t n, size_t dims, const float* q, size_t k,
                              const std::function<bool(size_t)>* keep = nullptr);

}  // namespace engram::vector
