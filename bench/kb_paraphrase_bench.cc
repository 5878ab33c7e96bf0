// Precision and recall of the knowledge service's lexical similarity on the
// hand-written paraphrase set (tests/data/kb_paraphrase), by threshold and
// language: the table in docs/PERFORMANCE.md.
//
//   build/release/bench/kb_paraphrase_bench [DIR]
#include <cstdio>

#include "kb/paraphrase_eval.h"

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : std::string(ENGRAM_SOURCE_DIR) + "/tests/data/kb_paraphrase";
  auto set = engram::kb::LoadParaphraseSet(dir);
  if (!set.ok()) {
    std::fprintf(stderr, "%s\n", set.status().ToString().c_str());
    return 1;
  }
  const auto top = engram::kb::TopHits(*set);
  std::printf("%zu entries, %zu queries\n", set->entries.size(), set->queries.size());
  std::printf("threshold  lang  precision  recall  tp  fp  near_miss_hits  unrelated_hits\n");
  for (int t = 20; t <= 95; t += 5) {
    for (const char* lang : {"", "zh", "en"}) {
      const auto s = engram::kb::ScoreAt(*set, top, t / 100.0, lang);
      std::printf("%9.2f  %-4s  %9.3f  %6.3f  %3d %3d  %14d  %14d\n", t / 100.0, *lang ? lang : "all", s.precision(),
                  s.recall(), s.tp, s.fp, s.near_miss_hits, s.unrelated_hits);
    }
  }
  std::printf("\nwrong answers at the default threshold (0.8):\n");
  for (size_t i = 0; i < set->queries.size(); ++i) {
    const auto& q = set->queries[i];
    if (top[i].first < 0 || top[i].second < 0.8) continue;
    const auto& e = set->entries[static_cast<size_t>(top[i].first)];
    if (q.kind == "paraphrase" && e.id == q.expected) continue;
    std::printf("  %.3f  %-10s %s  ->  %s\n", top[i].second, q.kind.c_str(), q.text.c_str(), e.question.c_str());
  }
  return 0;
}
