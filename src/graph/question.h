// Questions the graph answers, read from how people ask them in English and
// Chinese: "who founded X?" / "X的创始人是谁？", "where does X work now?" /
// "X现在在哪里工作？", "what was X's role in 2023?", "are there conflicting
// facts about X?", "how is X connected to Y?" / "X和Y之间有什么联系？",
// "when did X become COO?" / "X什么时候升任COO？", "what happened with X
// since March 2026?". Anything else is no graph question (kind kNone) and is
// left to text search.
//
// Parsing is pure (names are not looked up here): the answerer
// (graph/answer.h) resolves `entity` and `other`, trying shorter spans of
// `entity` when a when-question runs on into its event ("David Kim become COO").
#pragma once

#include <string>
#include <string_view>

namespace engram::graph {

enum class QuestionKind {
  kNone,
  kFact,      // entity's value of predicate ("where does X work": works_at of X)
  kInverse,   // who has predicate with entity as value ("who founded X": founded -> X)
  kConflict,  // the conflicts about entity ("" = every conflict)
  kPath,      // how entity and other are connected
  kWhen,      // dated timeline entries about entity, matching topic, between since and until
};

const char* QuestionKindName(QuestionKind kind);

struct GraphQuestion {
  QuestionKind kind = QuestionKind::kNone;
  std::string entity;     // the name as written
  std::string other;      // kPath: the second name
  std::string predicate;  // kFact / kInverse
  std::string as_of;      // the end of the period the question names ("in 2023" -> "2023-12-31"); "" = now
  std::string period;     // that period as named ("2023", "2023-05")
  std::string since;      // kWhen
  std::string until;
  std::string topic;  // kWhen: the event asked about ("become COO", "升任COO"), "" = everything
  // No template read it, but its words say the kind ("…矛盾…", "…since 2026-03"):
  // the answerer finds the pages it names in `text` (the question without its
  // time words) instead of `entity` / `other`.
  bool names_in_query = false;
  std::string text;
};

GraphQuestion ParseQuestion(std::string_view query);

}  // namespace engram::graph
