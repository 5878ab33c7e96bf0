// Fuzz target: the keyword query parser and the analyzer on query text.
#include <cstdint>
#include <string_view>

#include "search/query_parser.h"
#include "text/analyzer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  for (const auto& clause : engram::search::ParseQuery(input)) {
    std::vector<engram::text::Token> tokens;
    engram::text::Analyze(clause.text, &tokens);
  }
  (void)engram::text::FoldText(input);
  return 0;
}
