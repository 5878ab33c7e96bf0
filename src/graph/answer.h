// Answers to graph questions (graph/question.h) from what the pages state:
// current facts and relations for "who founded X" / "where does Y work now",
// the facts that held at a date, conflicts, the shortest chain of links, and
// dated timeline lines for "when" — every item with the file and line that
// says it, so an agent can quote its source and a person can check it.
//
// And the entity card the agent context block opens with: for each entity a
// query names, its compiled truth in short, current facts, top relations and
// open conflicts.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/store/page_store.h"
#include "graph/facts.h"
#include "graph/question.h"

namespace engram::graph {

struct AnswerItem {
  std::string slug;          // the page that answers ("" for a text value or a timeline line)
  std::string title;         // its title, the text value ("CTO", "2019") or the timeline line's summary
  std::string predicate;     // the fact's predicate, the link's type, or "timeline"
  std::string subject_slug;  // whose fact it is
  std::string valid_from;    // facts: when it began / ended; timeline: date
  std::string valid_until;
  bool holds = true;
  bool in_conflict = false;
  std::string source_path;  // the file and line that say it
  int line = 0;
  std::string evidence;  // the sentence or field ("origin" of a fact, a link's context)
};

struct GraphAnswer {
  GraphQuestion question;
  bool answered = false;  // the names resolved and something answers
  std::string entity_slug;
  std::string entity_title;
  std::string other_slug;  // a path's other end
  std::string as_of;       // the date facts were settled at
  std::vector<AnswerItem> items;
  std::string note;  // why nothing answers ("no page is named 'X'", "'X' may be: a, b")
};

// Answers q for the scope (private pages never answer a public scope).
// Errors only for store failures; a name no page has is a note.
Result<GraphAnswer> Answer(PageStore& store, const ReadScope& scope, const GraphQuestion& q, const GraphRules& rules);

// The answer as lines of text: "companies/x | 星河智能 — founded (people/zhang-san.md:7)".
std::string RenderAnswer(const GraphAnswer& answer);

// The entity pages (rules.IsEntityType) a query names by title or alias (folded; a name of at
// least two CJK characters or four other characters), longest names first,
// at most `limit`.
Result<std::vector<std::string>> EntitiesNamedIn(PageStore& store, const ReadScope& scope, std::string_view query,
                                                 size_t limit, const GraphRules& rules);

// A short card about one entity: type and title, the first sentences of its
// compiled truth, current facts, top relations both ways, open conflicts.
Result<std::string> EntityCard(PageStore& store, const ReadScope& scope, std::string_view slug, const GraphRules& rules);

}  // namespace engram::graph
