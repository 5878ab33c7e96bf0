#include "search/metrics.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace engram::search {

double NdcgAtK(const std::vector<std::string>& ranked, const Qrels& qrels, size_t k) {
  double dcg = 0;
  std::set<std::string> seen;  // a document counts once, at its first rank
  for (size_t i = 0; i < ranked.size() && i < k; ++i) {
    if (!seen.insert(ranked[i]).second) continue;
    auto it = qrels.find(ranked[i]);
    if (it != qrels.end() && it->second > 0) dcg += it->second / std::log2(static_cast<double>(i) + 2.0);
  }
  std::vector<int> grades;
  for (const auto& [doc, g] : qrels) {
    if (g > 0) grades.push_back(g);
  }
  std::sort(grades.begin(), grades.end(), std::greater<>());
  double idcg = 0;
  for (size_t i = 0; i < grades.size() && i < k; ++i) idcg += grades[i] / std::log2(static_cast<double>(i) + 2.0);
  return idcg > 0 ? dcg / idcg : 0.0;
}

double RecallAtK(const std::vector<std::string>& ranked, const Qrels& qrels, size_t k) {
  size_t relevant = 0;
  for (const auto& [doc, g] : qrels) relevant += g > 0 ? 1 : 0;
  if (relevant == 0) return 0;
  std::set<std::string> found;
  for (size_t i = 0; i < ranked.size() && i < k; ++i) {
    auto it = qrels.find(ranked[i]);
    if (it != qrels.end() && it->second > 0) found.insert(ranked[i]);
  }
  return static_cast<double>(found.size()) / static_cast<double>(relevant);
}

double MrrAtK(const std::vector<std::string>& ranked, const Qrels& qrels, size_t k) {
  for (size_t i = 0; i < ranked.size() && i < k; ++i) {
    auto it = qrels.find(ranked[i]);
    if (it != qrels.end() && it->second > 0) return 1.0 / static_cast<double>(i + 1);
  }
  return 0;
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  double pos = (p / 100.0) * static_cast<double>(values.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, values.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return values[lo] * (1 - frac) + values[hi] * frac;
}

}  // namespace engram::search
