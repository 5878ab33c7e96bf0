// Facts with the time they hold, and the conflicts between them.
//
// Pages state facts (engram/page.h PageFact: frontmatter fields, fact lines,
// timeline changes); here they are settled, at read time, for a subject and
// predicate:
//   - An entity value names a page (its link, or a text value that is exactly
//     one page's title or alias); values compare by that page, else by their
//     folded text ("VP of Partnerships" = "vp of partnerships").
//   - "left X" (a fact with only valid_until) closes the open fact of value X
//     that began before it.
//   - For a single-valued predicate (role, works_at, location, status, born,
//     died, founded, reports_to by default), a dated fact stays valid until
//     the next dated fact of another value begins: valid_until is that date
//     and superseded_by its id. Nothing is deleted; the history stays.
//   - At a date (as_of, default today), a fact holds when it began at or
//     before it (or gives no start) and has not ended by it. An undated fact
//     of a single-valued predicate that restates a dated one begins where
//     the latest dated fact of its value began.
//   - Two facts of one single-valued predicate that hold at the same time and
//     disagree are a conflict: both are kept, both are shown, and resolving it
//     is an edit to the Markdown.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/store/page_store.h"
#include "graph/rules.h"

namespace engram::graph {

struct Fact {
  int64_t id = 0;
  std::string subject_slug;   // the page the fact is about
  std::string subject_title;
  std::string predicate;
  std::string value;          // the text, or the entity page's title
  std::string value_slug;     // the entity page, "" for a text value
  bool entity_value = false;  // the value is written as a link (value_slug "" when no page answers)
  std::string valid_from;     // "" when not written
  std::string valid_until;    // as written, or where the next value began; "" = open
  int64_t superseded_by = 0;  // the fact that closed this one (0: none)
  // An undated fact that restates a dated one (same value) is taken to hold
  // from that one's start: "role: COO" in the frontmatter and "2024-01:
  // promoted to COO" in the timeline do not make the COO of 2022 a conflict.
  std::string implied_from;
  bool holds = false;         // holds at the date asked about
  bool in_conflict = false;
  std::string source_slug;    // the page that states it, and where
  std::string source_path;
  int line = 0;
  std::string origin;         // frontmatter, fact, timeline
  std::string recorded_at;    // the stating page's date
};

struct Conflict {
  std::string subject_slug;
  std::string subject_title;
  std::string predicate;
  std::vector<Fact> facts;  // the facts that disagree, each with its source line
};

struct FactSheet {
  std::vector<Fact> facts;  // by predicate, then start date (undated first), then source line
  std::vector<Conflict> conflicts;
};

// Settles facts of any subjects (see above) at as_of ("" = today, UTC).
// Pure: the unit tests' oracle works on it directly.
FactSheet Settle(std::vector<Fact> facts, const GraphRules& rules, std::string_view as_of);

// The facts about the page `slug` (NotFound when the scope does not see
// it), settled at as_of.
Result<FactSheet> FactsAbout(PageStore& store, const ReadScope& scope, std::string_view slug, const GraphRules& rules,
                             std::string_view as_of);

// The facts of other subjects whose entity value is the page `slug` ("who
// founded X", "who works at X"), each settled with everything else known
// about its subject at as_of. NotFound when the scope does not see the page.
Result<std::vector<Fact>> FactsPointingAt(PageStore& store, const ReadScope& scope, std::string_view slug,
                                          const GraphRules& rules, std::string_view as_of);

// Every conflict among the facts of pages the scope sees, at as_of.
Result<std::vector<Conflict>> AllConflicts(PageStore& store, const ReadScope& scope, const GraphRules& rules,
                                           std::string_view as_of);

// One timeline merged across pages, by date: every entry from `since`
// through `until` ("" = open) — or, with `entity`, the entries of that page
// and those of pages linking to it whose line names it (its slug, title or
// an alias). At most `limit` entries, the earliest first; NotFound for an
// entity the scope does not see.
Result<std::vector<DatedEntry>> MergedTimeline(PageStore& store, const ReadScope& scope, std::string_view entity,
                                               std::string_view since, std::string_view until, size_t limit);

// A date as facts write them: "2026", "2026-03", "2026-03-12" (also the forms
// a timeline line accepts, "2026年3月"), normalised; "" when it is not one.
std::string NormalizeFactDate(std::string_view date);

}  // namespace engram::graph
