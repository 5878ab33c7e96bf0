#include "kb/paraphrase_eval.h"

#include <fstream>
#include <sstream>

#include "kb/lexical_index.h"

namespace engram::kb {

namespace {

Result<std::vector<std::vector<std::string>>> ReadTsv(const std::string& path, size_t columns) {
  std::ifstream in(path);
  if (!in) return Status::IOError(path + ": cannot open");
  std::vector<std::vector<std::string>> rows;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (n == 1 || line.empty()) continue;  // the header
    std::vector<std::string> fields;
    std::stringstream ss(line);
    for (std::string f; std::getline(ss, f, '\t');) fields.push_back(f);
    if (fields.size() != columns) {
      return Status::InvalidArgument(path + ": line " + std::to_string(n) + ": " + std::to_string(fields.size()) +
                                     " fields, not " + std::to_string(columns));
    }
    rows.push_back(std::move(fields));
  }
  return rows;
}

}  // namespace

Result<ParaphraseSet> LoadParaphraseSet(const std::string& dir) {
  ParaphraseSet set;
  ENGRAM_ASSIGN_OR_RETURN(auto entries, ReadTsv(dir + "/entries.tsv", 3));
  for (auto& e : entries) set.entries.push_back({e[0], e[1], e[2]});
  ENGRAM_ASSIGN_OR_RETURN(auto queries, ReadTsv(dir + "/queries.tsv", 4));
  for (auto& q : queries) set.queries.push_back({q[0], q[1], q[2], q[3]});
  return set;
}

std::vector<std::pair<int, double>> TopHits(const ParaphraseSet& set) {
  LexicalIndex index;
  for (size_t i = 0; i < set.entries.size(); ++i) index.Put(static_cast<int64_t>(i), set.entries[i].question);
  std::vector<std::pair<int, double>> top;
  for (const ParaphraseSet::Query& q : set.queries) {
    std::pair<int, double> best{-1, 0.0};
    for (const ScoredKey& s : index.Score(q.text, 1e-9)) {
      if (s.score > best.second) best = {static_cast<int>(s.key), s.score};
    }
    top.push_back(best);
  }
  return top;
}

ParaphraseScore ScoreAt(const ParaphraseSet& set, const std::vector<std::pair<int, double>>& top, double threshold,
                        std::string_view lang) {
  ParaphraseScore s;
  for (size_t i = 0; i < set.queries.size(); ++i) {
    const ParaphraseSet::Query& q = set.queries[i];
    if (!lang.empty() && q.lang != lang) continue;
    const bool paraphrase = q.kind == "paraphrase";
    s.paraphrases += paraphrase ? 1 : 0;
    const bool answered = top[i].first >= 0 && top[i].second >= threshold;
    if (!answered) continue;
    if (paraphrase && set.entries[static_cast<size_t>(top[i].first)].id == q.expected) {
      ++s.tp;
    } else {
      ++s.fp;
      s.near_miss_hits += q.kind == "near_miss" ? 1 : 0;
      s.unrelated_hits += q.kind == "unrelated" ? 1 : 0;
    }
  }
  return s;
}

}  // namespace engram::kb
