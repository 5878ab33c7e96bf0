// Retrieval metrics as BEIR / trec_eval define them.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace engram::search {

// Graded relevance of one query: document id -> gain (> 0 = relevant).
using Qrels = std::map<std::string, int>;

// nDCG@k with gain = grade, discount log2(rank + 1) (rank 1-based), ideal =
// the query's grades sorted descending. 0 when nothing is relevant.
double NdcgAtK(const std::vector<std::string>& ranked, const Qrels& qrels, size_t k);
// Relevant documents in the top k / relevant documents in total.
double RecallAtK(const std::vector<std::string>& ranked, const Qrels& qrels, size_t k);
// 1 / rank of the first relevant document within the top k, else 0.
double MrrAtK(const std::vector<std::string>& ranked, const Qrels& qrels, size_t k);

// The p-th percentile (0..100) by linear interpolation between order statistics.
double Percentile(std::vector<double> values, double p);

}  // namespace engram::search
