#include "vector/exact.h"

#include <algorithm>

#include "vector/distance.h"

namespace engram::vector {

std::vector<Scored> ExactTopK(const float* base, size_t n, size_t dims, const float* q, size_t k,
                              const std::function<bool(size_t)>* keep) {
  std::vector<Scored> heap;  // min-heap of the best k so far
  if (k == 0) return heap;
  heap.reserve(k + 1);
  auto worse = [](const Scored& a, const Scored& b) { return a.score != b.score ? a.score > b.score : a.row < b.row; };
  for (size_t i = 0; i < n; ++i) {
    if (keep != nullptr && !(*keep)(i)) continue;
    const float s = Dot(q, base + i * dims, dims);
    if (heap.size() == k && !worse({i, s}, heap.front())) continue;
    heap.push_back({i, s});
    std::push_heap(heap.begin(), heap.end(), worse);
    if (heap.size() > k) {
      std::pop_heap(heap.begin(), heap.end(), worse);
      heap.pop_back();
    }
  }
  std::sort_heap(heap.begin(), heap.end(), worse);
  return heap;
}

}  // namespace engram::vector
