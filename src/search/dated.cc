#include "search/dated.h"

#include <algorithm>
#include <cctype>

#include "text/page_parser.h"

namespace engram::search {

std::vector<std::string> ChunkDates(std::string_view text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size() && out.size() < kMaxChunkDates) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(at, nl - at);
    at = nl + 1;
    // What opens the line before its date: indentation, "#", "-", "*", "+", ">", "1.", "**", "[", "|".
    for (bool stripped = true; stripped && !line.empty();) {
      stripped = false;
      const char c = line.front();
      if (c == ' ' || c == '\t' || c == '#' || c == '-' || c == '*' || c == '+' || c == '>' || c == '[' || c == '|' ||
          c == '_') {
        line.remove_prefix(1);
        stripped = true;
      }
    }
    if (line.empty() || !std::isalnum(static_cast<unsigned char>(line.front()))) continue;
    size_t used = 0;
    const std::string date = text::ParseLeadingDate(line, &used);
    if (date.empty()) continue;
    if (std::find(out.begin(), out.end(), date) == out.end()) out.push_back(date);
  }
  return out;
}

void PreferDatedHits(std::vector<SearchHit>* hits) {
  for (SearchHit& h : *hits) {
    if (!h.chunk_dates.empty()) h.score = static_cast<float>(h.score * kDatedBoost);
  }
  std::stable_sort(hits->begin(), hits->end(),
                   [](const SearchHit& a, const SearchHit& b) { return a.score > b.score; });
}

}  // namespace engram::search
