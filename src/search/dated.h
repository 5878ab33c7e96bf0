// Dates a chunk carries, for questions about time ("when did…",
// "……是什么时候"): a timeline entry's date ("- **2026-03-01** | Joined…"), a
// dated heading's ("## 2026-03-12 Board meeting", "### 2026年3月"), a dated
// list item or line ("2024-09: joined Northwind"). The page's own date is
// SearchHit::date; these are the ones written in the chunk.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engram/search.h"

namespace engram::search {

// The dates written at the start of the chunk's lines (after list markers,
// heading marks, quote marks and bold), normalised ("2026-03-01",
// "2026-03", "2026"), in order, each once, at most kMaxChunkDates.
inline constexpr size_t kMaxChunkDates = 32;
std::vector<std::string> ChunkDates(std::string_view text);

// A temporal question's hits: each that carries a date (chunk_dates) is
// worth kDatedBoost times its score; the order is re-sorted, stable.
inline constexpr double kDatedBoost = 1.6;
void PreferDatedHits(std::vector<SearchHit>* hits);

}  // namespace engram::search
