// Fuzz target: the graph's readers of outside text — questions as people ask
// them (graph/question.h), sentences that state relations
// (text/page_relations.h) and a model's reply to the relation extractor
// (graph/llm_relations.h) — on any bytes, valid UTF-8 or not.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graph/llm_relations.h"
#include "graph/question.h"
#include "text/page_relations.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  const engram::graph::GraphQuestion q = engram::graph::ParseQuestion(input);
  (void)engram::graph::QuestionKindName(q.kind);
  static const std::vector<std::string> kSelf = {"Ann Lee", "张三"};
  size_t start = 0;
  while (start <= input.size()) {
    size_t nl = input.find('\n', start);
    if (nl == std::string_view::npos) nl = input.size();
    for (const auto& r : engram::text::ReadSentenceRelations(input.substr(start, nl - start), "notes/x.md", kSelf)) {
      if (r.type.empty()) __builtin_trap();  // every relation has a type
    }
    start = nl + 1;
  }
  // Whatever a model replies, what is kept is well-formed: a known type, a line of the note, a confidence in [0, 1].
  auto reply = engram::graph::ParseRelationReply(input, 20);
  if (reply.ok()) {
    for (const auto& r : reply->relations) {
      if (r.line < 1 || r.line > 20 || !(r.confidence >= 0 && r.confidence <= 1) || r.subject.empty()) __builtin_trap();
    }
  }
  return 0;
}
