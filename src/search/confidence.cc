#include "search/confidence.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <unordered_set>

namespace engram::search {

double ChanceMaximum(size_t n) {
  if (n < 3) return 0;
  const double l = std::log(static_cast<double>(n));
  const double s = std::sqrt(2 * l);
  return std::max(0.0, s - (std::log(l) + std::log(4 * std::numbers::pi)) / (2 * s));
}

double VectorConfidence(double best, const std::vector<float>& background, size_t collection) {
  if (background.size() < 8) return 1.0;
  double mean = 0;
  for (float x : background) mean += x;
  mean /= static_cast<double>(background.size());
  double var = 0;
  for (float x : background) var += (x - mean) * (x - mean);
  const double sd = std::sqrt(var / static_cast<double>(background.size() - 1));
  const double bar = ChanceMaximum(std::max(collection, background.size()));
  if (!(sd > 1e-9) || bar <= 0) return best > mean + 1e-6 ? 1.0 : 0.0;  // every chunk alike: only a better one counts
  const double ramp = std::clamp(((best - mean) / sd - bar) / bar, 0.0, 1.0);
  return ramp * ramp;
}

double TitleConfidence(const std::vector<std::string>& query_terms,
                       const std::vector<std::vector<std::string>>& names) {
  const std::unordered_set<std::string> query(query_terms.begin(), query_terms.end());
  if (query.empty()) return 0;
  double best = 0;
  for (const auto& name : names) {
    const std::unordered_set<std::string> terms(name.begin(), name.end());
    if (terms.empty()) continue;
    if (!std::all_of(terms.begin(), terms.end(), [&](const std::string& t) { return query.count(t) != 0; })) continue;
    best = std::max(best, static_cast<double>(terms.size()) / static_cast<double>(query.size()));
  }
  return best;
}

}  // namespace engram::search
