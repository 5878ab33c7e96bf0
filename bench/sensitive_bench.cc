// Precision and recall of the quarantine rules (src/sync/sensitive*.cc) on the
// planted-secret corpus and the ordinary-notes corpus in
// tests/fixtures/sensitive, plus any extra folders of ordinary notes given on
// the command line (every *.md under them counts as a negative).
//
//   sensitive_bench tests/fixtures/sensitive [more/notes ...]
//
// Per rule, with every other rule switched off: recall = the cases written for
// the rule that it catches; fires = planted files it catches (any label) and
// negative files it flags; precision = planted / (planted + negative).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/utf8.h"
#include "sync/sensitive.h"

namespace fs = std::filesystem;
using engram::sync::ContentRuleIds;
using engram::sync::FindSensitive;
using engram::sync::SensitiveRules;

namespace {

struct Case {
  std::string rule, path, content;
};

std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out.push_back(s[i]);
      continue;
    }
    char c = s[++i];
    if (c == 'n') {
      out.push_back('\n');
    } else if (c == 't') {
      out.push_back('\t');
    } else if (c == 'u' && i + 4 < s.size()) {
      engram::common::AppendUtf8(static_cast<char32_t>(std::stoul(std::string(s.substr(i + 1, 4)), nullptr, 16)), &out);
      i += 4;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::vector<Case> LoadPlanted(const fs::path& file) {
  std::vector<Case> cases;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t a = line.find('\t');
    size_t b = line.find('\t', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    cases.push_back({line.substr(0, a), Unescape(line.substr(a + 1, b - a - 1)), Unescape(line.substr(b + 1))});
  }
  return cases;
}

void LoadNotes(const fs::path& root, std::vector<Case>* out) {
  for (const auto& e : fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied)) {
    if (!e.is_regular_file() || e.path().extension() != ".md") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    out->push_back({"", fs::relative(e.path(), root).generic_string(), ss.str()});
  }
}

// The defaults with only `rule` on ("names" = the path and file-name keywords).
SensitiveRules Only(const std::string& rule) {
  SensitiveRules r = SensitiveRules::Defaults();
  if (rule == "names") {
    r.disabled = ContentRuleIds();
  } else {
    r.path_components.clear();
    r.name_keywords.clear();
    for (const std::string& id : ContentRuleIds()) {
      if (id != rule) r.disabled.push_back(id);
    }
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <tests/fixtures/sensitive> [extra notes folder ...]\n", argv[0]);
    return 2;
  }
  fs::path dir = argv[1];
  std::vector<Case> planted = LoadPlanted(dir / "planted.tsv");
  std::vector<Case> negative;
  LoadNotes(dir / "negative", &negative);
  for (int i = 2; i < argc; ++i) LoadNotes(argv[i], &negative);
  size_t negative_bytes = 0;
  for (const Case& n : negative) negative_bytes += n.content.size();

  std::vector<std::string> rules = ContentRuleIds();
  rules.push_back("names");
  std::printf("planted cases: %zu, ordinary notes: %zu (%.1f KB)\n\n", planted.size(), negative.size(),
              negative_bytes / 1024.0);
  std::printf(
      "| rule | cases | caught by the rule | recall | planted files flagged | ordinary notes flagged | precision |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  for (const std::string& rule : rules) {
    SensitiveRules r = Only(rule);
    size_t cases = 0, caught = 0, fired_planted = 0, fired_negative = 0;
    std::string misses, false_positives;
    for (const Case& c : planted) {
      bool hit = FindSensitive(c.path, c.content, r).has_value();
      bool mine = c.rule == rule || (rule == "names" && (c.rule == "name" || c.rule == "path"));
      if (mine) {
        ++cases;
        if (hit) {
          ++caught;
        } else {
          misses += " " + c.path;
        }
      }
      if (hit) ++fired_planted;
    }
    for (const Case& n : negative) {
      if (FindSensitive(n.path, n.content, r)) {
        ++fired_negative;
        false_positives += " " + n.path;
      }
    }
    double recall = cases ? 100.0 * caught / cases : 0;
    double precision =
        fired_planted + fired_negative ? 100.0 * fired_planted / (fired_planted + fired_negative) : 100.0;
    std::printf("| `%s` | %zu | %zu | %.1f%% | %zu | %zu | %.1f%% |\n", rule.c_str(), cases, caught, recall,
                fired_planted, fired_negative, precision);
    if (!misses.empty()) std::fprintf(stderr, "%s missed:%s\n", rule.c_str(), misses.c_str());
    if (!false_positives.empty()) std::fprintf(stderr, "%s flagged:%s\n", rule.c_str(), false_positives.c_str());
  }
  SensitiveRules all = SensitiveRules::Defaults();
  size_t caught = 0, flagged = 0;
  for (const Case& c : planted) caught += FindSensitive(c.path, c.content, all).has_value();
  for (const Case& n : negative) {
    if (auto hit = FindSensitive(n.path, n.content, all)) {
      ++flagged;
      std::fprintf(stderr, "all rules: %s flagged by %s\n", n.path.c_str(), hit->rule.c_str());
    }
  }
  std::printf("| **all rules** | %zu | %zu | %.1f%% | %zu | %zu | %.1f%% |\n", planted.size(), caught,
              100.0 * caught / planted.size(), caught, flagged,
              caught + flagged ? 100.0 * caught / (caught + flagged) : 100.0);

  // Cost: all rules over the ordinary notes, best of five passes.
  double best = 1e9;
  for (int pass = 0; pass < 5; ++pass) {
    auto t0 = std::chrono::steady_clock::now();
    size_t sink = 0;
    for (const Case& n : negative) sink += FindSensitive(n.path, n.content, all).has_value();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
    if (sink == SIZE_MAX) std::printf("-");
  }
  std::printf("\nscan speed (all rules, ordinary notes): %.1f MB/s\n", negative_bytes / best / 1e6);

  // Where the time goes: the scan itself (normalising, context zones, every content rule off), then each
  // rule's own share (the rule alone, less the scan), best of five passes each.
  auto timed = [&](const SensitiveRules& rules) {
    double fastest = 1e9;
    for (int pass = 0; pass < 5; ++pass) {
      auto t0 = std::chrono::steady_clock::now();
      size_t sink = 0;
      for (const Case& n : negative) sink += FindSensitive(n.path, n.content, rules).has_value();
      fastest = std::min(fastest, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      if (sink == SIZE_MAX) std::printf("-");
    }
    return fastest;
  };
  SensitiveRules none = all;
  for (const std::string& id : ContentRuleIds()) none.disabled.push_back(id);
  const double scan = timed(none);
  std::printf("cost per MB of ordinary notes: the scan %.1f ms", scan / (negative_bytes / 1e6) * 1e3);
  for (const std::string& id : ContentRuleIds()) {
    SensitiveRules alone = none;
    alone.disabled.erase(std::find(alone.disabled.begin(), alone.disabled.end(), id));
    std::printf(", %s %.1f", id.c_str(), std::max(0.0, timed(alone) - scan) / (negative_bytes / 1e6) * 1e3);
  }
  std::printf("\n");

  // Pathological files (long lines of openers that never close) must scan in
  // time linear in their size: seconds per MB at 0.5, 1 and 2 MB stay flat.
  for (size_t line_bytes : {size_t{75000}, size_t{150000}, size_t{300000}}) {
    std::string big;
    for (const char* p : {"[[", "sk-", "password=", "https://", "-----BEGIN ", "1 ", "`"}) {
      std::string line;
      while (line.size() < line_bytes) line += p;
      big += line + "\n";
    }
    double fastest = 1e9;
    for (int pass = 0; pass < 3; ++pass) {
      auto t0 = std::chrono::steady_clock::now();
      (void)FindSensitive("notes/big.md", big, all);
      fastest = std::min(fastest, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::printf("pathological file %.1f MB: %.3f s (%.3f s per MB)\n", big.size() / 1e6, fastest,
                fastest / (big.size() / 1e6));
  }
  return 0;
}
