// The keyword query language: plain words (any may match; BM25 ranks pages
// that match more and rarer words higher), "quoted phrases" and +required
// words that must match, and -excluded words or -"phrases".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace engram::search {

struct QueryClause {
  enum class Kind { kShould, kRequired, kExcluded };
  Kind kind = Kind::kShould;
  bool phrase = false;  // quoted: terms must appear in this order
  std::string text;
};

// Never fails: an unbalanced quote reads as a phrase to the end of the query,
// a lone '+' or '-' is ignored.
std::vector<QueryClause> ParseQuery(std::string_view query);

}  // namespace engram::search
