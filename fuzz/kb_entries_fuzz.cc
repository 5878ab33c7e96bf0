// Fuzz target: knowledge entries read from JSON Lines and CSV files
// (kb/entry_reader.h), and the similarity index fed with what they read.
// Invariants: no crash or exception; reading is deterministic; every entry
// read has valid UTF-8 text and a line within the input; an error names a
// line; an entry's own text scores 1 against itself (when it has terms) and
// every score lies in [0, 1].
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/utf8.h"
#include "kb/entry_reader.h"
#include "kb/lexical_index.h"

namespace {

void Check(std::string_view input, bool csv) {
  auto a = csv ? engram::kb::ReadCsv(input) : engram::kb::ReadJsonl(input);
  auto b = csv ? engram::kb::ReadCsv(input) : engram::kb::ReadJsonl(input);
  if (a.ok() != b.ok()) std::abort();
  if (!a.ok()) {
    if (a.status().message() != b.status().message() || a.status().message().rfind("line ", 0) != 0) std::abort();
    return;
  }
  if (a->size() != b->size()) std::abort();
  int lines = 1;
  for (char c : input) lines += c == '\n';
  engram::kb::LexicalIndex index;
  int64_t key = 0;
  for (const engram::kb::ReadEntry& e : *a) {
    if (!engram::common::IsValidUtf8(e.text) || e.line < 1 || e.line > lines) std::abort();
    if (++key > 64) break;
    index.Put(key, e.text);
  }
  for (const engram::kb::ReadEntry& e : *a) {
    for (const engram::kb::ScoredKey& s : index.Score(e.text, 0)) {
      if (!(s.score >= 0 && s.score <= 1)) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  Check(input, false);
  Check(input, true);
  return 0;
}
