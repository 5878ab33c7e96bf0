// The bilingual analyzer: one implementation used at index time and at query
// time by every engine, so that the terms of a query and of a page agree.
//
// Pipeline: Unicode NFKC + case folding (full-width -> half-width) ->
// Traditional -> Simplified folding of Han characters (OpenCC's t2s table,
// applied per character) -> split into Latin-like words and CJK runs ->
// words: English stop words dropped, Snowball English stemming ->
// CJK runs: every character (unigram) and every adjacent pair (bigram).
//
// Positions: each word takes one position; in a CJK run, character i and the
// bigram starting at i share position p+i. A phrase matches when its terms
// occur at the same relative positions.
//
// Thread safety: Analyze() may be called from any number of threads at once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engram::text {

struct Token {
  std::string term;
  uint32_t position = 0;
  bool operator==(const Token&) const = default;
};

// Appends the tokens of text to *out. Invalid UTF-8 bytes act as separators.
void Analyze(std::string_view text, std::vector<Token>* out);

// Convenience: just the terms, in order.
std::vector<std::string> AnalyzeTerms(std::string_view text);

// Case-folded, width-folded, Traditional->Simplified form of text, without
// splitting (used to compare titles and aliases).
std::string FoldText(std::string_view text);

// True when the (already folded) word is an English stop word.
bool IsStopWord(std::string_view word);

}  // namespace engram::text
