// The optional LLM relation extractor (off by default; `engram facts SLUG
// --suggest`): the prompt that asks an OpenAI-compatible model for the
// relations a page states, and the reader of its reply. The reply is outside
// input: anything that is not a well-formed relation is dropped with the
// reason, never guessed at. What is kept is only a suggestion — ops decides
// what may be written (never over what a person wrote) and writes it as a
// fact line marked with the model and its confidence.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::graph {

// The relation types a model may name: the sentence patterns' (text/page_relations.h) and role.
const std::vector<std::string>& LlmRelationTypes();

// System and user messages for one page: its title and its text with line numbers.
std::pair<std::string, std::string> RelationPrompt(std::string_view title, std::string_view text);

struct SuggestedRelation {
  std::string subject;    // a name as the page writes it
  std::string predicate;  // one of LlmRelationTypes()
  std::string object;     // a name (an entity) or a text value (a role)
  int line = 0;           // the line of the text that says it (1-based)
  double confidence = 0;  // the model's, in [0, 1]
};

struct RelationReply {
  std::vector<SuggestedRelation> relations;
  std::vector<std::string> dropped;  // why each item that is not a relation was left out
};

// Reads the model's reply: a JSON object {"relations": [...]} (alone, or in a
// ```json fence, or with prose around it). InvalidArgument when no such
// object is there; items are checked one by one against `lines` (the text's
// line count). At most 100 relations are read.
Result<RelationReply> ParseRelationReply(std::string_view reply, int lines);

}  // namespace engram::graph
