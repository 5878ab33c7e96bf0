// Brain configuration: one aggregate with a documented default per field.
// Precedence: flags > ENGRAM_* environment variables > config.toml > default.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace engram {

struct BrainOptions {
  // [import]
  uint64_t import_max_file_bytes = 5u << 20;  // files over this are skipped with the reason
  // [chunker]
  int chunk_target_words = 300;   // words per chunk (a CJK character counts as a word)
  int chunk_overlap_words = 50;   // words repeated between consecutive chunks
  // [search]
  int search_limit = 10;          // results when --limit is not given
  double bm25_k1 = 0.9;           // BM25 term-frequency saturation
  double bm25_b = 0.4;            // BM25 length normalisation
  double title_weight = 0.5;      // weight of the title/alias arm
  // [scope] folders are paths from the brain root, matched on whole components
  std::vector<std::string> scope_include;  // when non-empty, only files under these folders
  std::vector<std::string> scope_exclude;  // never files under these folders
  std::vector<std::string> scope_skip_files = {"README.md", "index.md", "log.md", "RESOLVER.md", "schema.md"};
  // [quarantine] the built-in rules always apply; these add to or silence them
  std::vector<std::string> quarantine_path_components;  // more folder names that hold secrets
  std::vector<std::string> quarantine_name_keywords;    // more file-name keywords
  std::vector<std::string> quarantine_allow;            // paths never quarantined (false positives)
  std::vector<std::string> quarantine_disable;          // rule ids switched off
  // [store]
  int busy_timeout_ms = 5000;     // how long a writer waits for another writer's transaction
  int lock_timeout_ms = 10000;    // how long a write waits for the brain's write lock
};

}  // namespace engram
