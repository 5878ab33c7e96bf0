#include "kb/lexical_index.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "text/analyzer.h"

namespace engram::kb {

double TextCosine(std::string_view a, std::string_view b) {
  auto weights = [](std::string_view text) {
    std::map<std::string, double> w;
    for (std::string& t : text::AnalyzeTerms(text)) w[std::move(t)] += 1;
    for (auto& [term, tf] : w) tf = 1.0 + std::log(tf);
    return w;
  };
  const auto wa = weights(a), wb = weights(b);
  double dot = 0, na = 0, nb = 0;
  for (const auto& [t, x] : wa) {
    na += x * x;
    auto it = wb.find(t);
    if (it != wb.end()) dot += x * it->second;
  }
  for (const auto& [t, y] : wb) nb += y * y;
  if (na <= 0 || nb <= 0) return 0;
  return std::min(1.0, dot / (std::sqrt(na) * std::sqrt(nb)));
}

void LexicalIndex::Weigh(std::string_view text, bool add_terms, std::vector<std::pair<uint32_t, float>>* known,
                         std::vector<float>* unknown) {
  std::map<std::string, uint32_t> counts;
  for (std::string& t : text::AnalyzeTerms(text)) ++counts[std::move(t)];
  for (const auto& [term, tf] : counts) {
    const float w = 1.0f + static_cast<float>(std::log(static_cast<double>(tf)));
    auto it = term_ids_.find(term);
    if (it == term_ids_.end() && add_terms) {
      it = term_ids_.emplace(term, static_cast<uint32_t>(df_.size())).first;
      df_.push_back(0);
      postings_.emplace_back();
      idf_.push_back(0);
    }
    if (it != term_ids_.end()) {
      known->emplace_back(it->second, w);
    } else if (unknown != nullptr) {
      unknown->push_back(w);
    }
  }
}

double LexicalIndex::Idf(uint32_t df) const {
  const double n = static_cast<double>(slots_.size());
  return std::log((n + 1.0) / (static_cast<double>(df) + 1.0)) + 1.0;
}

void LexicalIndex::Put(int64_t key, std::string_view text) {
  Remove(key);
  Doc doc;
  doc.key = key;
  doc.live = true;
  Weigh(text, true, &doc.terms, nullptr);
  const auto slot = static_cast<uint32_t>(docs_.size());
  for (const auto& [term, w] : doc.terms) {
    ++df_[term];
    postings_[term].emplace_back(slot, w);
  }
  docs_.push_back(std::move(doc));
  slots_[key] = slot;
  stale_ = true;
}

void LexicalIndex::Remove(int64_t key) {
  auto it = slots_.find(key);
  if (it == slots_.end()) return;
  Doc& doc = docs_[it->second];
  for (const auto& [term, w] : doc.terms) --df_[term];
  doc.live = false;
  doc.terms.clear();
  doc.terms.shrink_to_fit();
  slots_.erase(it);
  ++dead_;
  stale_ = true;
}

void LexicalIndex::Compact() {
  std::vector<Doc> live;
  live.reserve(slots_.size());
  for (Doc& d : docs_) {
    if (d.live) live.push_back(std::move(d));
  }
  docs_ = std::move(live);
  for (auto& list : postings_) list.clear();
  slots_.clear();
  for (uint32_t slot = 0; slot < docs_.size(); ++slot) {
    slots_[docs_[slot].key] = slot;
    for (const auto& [term, w] : docs_[slot].terms) postings_[term].emplace_back(slot, w);
  }
  dead_ = 0;
}

void LexicalIndex::Refresh() {
  if (!stale_) return;
  if (dead_ > 64 && dead_ * 3 > docs_.size()) Compact();
  for (size_t t = 0; t < df_.size(); ++t) idf_[t] = Idf(df_[t]);
  for (Doc& d : docs_) {
    if (!d.live) continue;
    double sum = 0;
    for (const auto& [term, w] : d.terms) {
      const double x = w * idf_[term];
      sum += x * x;
    }
    d.norm = std::sqrt(sum);
  }
  stale_ = false;
}

std::vector<ScoredKey> LexicalIndex::Score(std::string_view query, double min_score) {
  std::vector<ScoredKey> out;
  std::vector<std::pair<uint32_t, float>> known;
  std::vector<float> unknown;
  Weigh(query, false, &known, &unknown);
  if (known.empty()) return out;  // shares no term with any entry
  Refresh();
  double qsum = 0;
  for (const auto& [term, w] : known) qsum += (w * idf_[term]) * (w * idf_[term]);
  const double unseen = Idf(0);
  for (float w : unknown) qsum += (w * unseen) * (w * unseen);
  const double qnorm = std::sqrt(qsum);

  // Dot products accumulated densely by slot; only the slots touched are read and reset.
  acc_.resize(docs_.size(), 0.0);
  touched_.clear();
  for (const auto& [term, qw] : known) {
    const double q = qw * idf_[term] * idf_[term];
    for (const auto& [slot, w] : postings_[term]) {
      if (!docs_[slot].live) continue;
      if (acc_[slot] == 0.0) touched_.push_back(slot);
      acc_[slot] += q * w;
    }
  }
  // The threshold in cosine terms, so the calibration's pow runs only for what passes.
  const double min_cosine = min_score > 0 ? std::pow(min_score, 1.0 / kLexicalExponent) * (1 - 1e-12) : 0.0;
  for (uint32_t slot : touched_) {
    const double dot = acc_[slot];
    acc_[slot] = 0.0;
    const Doc& d = docs_[slot];
    if (d.norm <= 0 || dot <= 0) continue;
    const double cosine = std::min(1.0, dot / (qnorm * d.norm));
    if (cosine < min_cosine) continue;
    const double score = std::pow(cosine, kLexicalExponent);
    if (score >= min_score && score > 0) out.push_back({d.key, score});
  }
  return out;
}

}  // namespace engram::kb
