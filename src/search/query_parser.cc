#include "search/query_parser.h"

namespace engram::search {

namespace {
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
}  // namespace

std::vector<QueryClause> ParseQuery(std::string_view q) {
  std::vector<QueryClause> clauses;
  size_t i = 0;
  while (i < q.size()) {
    while (i < q.size() && IsSpace(q[i])) ++i;
    if (i >= q.size()) break;
    QueryClause c;
    if (q[i] == '+' || q[i] == '-') {
      c.kind = q[i] == '+' ? QueryClause::Kind::kRequired : QueryClause::Kind::kExcluded;
      ++i;
      if (i >= q.size() || IsSpace(q[i])) continue;  // a lone operator means nothing
    }
    if (q[i] == '"') {
      size_t close = q.find('"', i + 1);
      size_t end = close == std::string_view::npos ? q.size() : close;
      c.text = std::string(q.substr(i + 1, end - i - 1));
      c.phrase = true;
      if (c.kind == QueryClause::Kind::kShould) c.kind = QueryClause::Kind::kRequired;
      i = close == std::string_view::npos ? q.size() : close + 1;
    } else {
      size_t end = i;
      while (end < q.size() && !IsSpace(q[end]) && q[end] != '"') ++end;
      c.text = std::string(q.substr(i, end - i));
      i = end;
    }
    if (!c.text.empty()) clauses.push_back(std::move(c));
  }
  return clauses;
}

}  // namespace engram::search
