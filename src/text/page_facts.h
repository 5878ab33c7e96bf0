// Facts a page states (engram/page.h PageFact), read from three places:
//
//   frontmatter   `role: CEO`, `company: "[[companies/x]]"`, `born: 1990-05-01`:
//                 a field whose type (FieldType) is a fact predicate, or whose
//                 value is a link; one fact per value of a list. Undated.
//   fact lines    `- fact: role: CTO (since 2024-03)` anywhere in the compiled
//                 truth, and `- role: CTO` list items under a `## Facts` /
//                 `## 事实` heading; a trailing "(since D)", "(from D to D)",
//                 "(D – D)", "(until D)", "（自D起）", "（D至D）" dates it.
//   timeline      dated entries that say a change: "joined [[companies/x]] as
//                 CTO", "promoted to VP", "left [[companies/x]]", "moved to
//                 Berlin", "加入[[companies/x]]担任 CTO", "升任副总裁",
//                 "离开[[companies/x]]", "搬到上海": valid from (or, for
//                 "left", until) the entry's date.
//
// A value that should be a date and is not ("born: last spring") is kept as
// text and the page gets a warning naming the line. Facts are a pure
// function of the page's path and text, like its links.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string_view>

#include "engram/page.h"

namespace engram::text {

// Predicates whose values are facts even when they are not links.
bool IsFactPredicate(std::string_view predicate);

// Predicates whose value is a date ("born", "founded", "died").
bool IsDatePredicate(std::string_view predicate);

// Fills page->facts (and page->warnings) from a parsed page: its
// frontmatter as JSON, frontmatter_raw for field lines, the compiled truth
// and the timeline entries.
void ReadPageFacts(const nlohmann::json& frontmatter, Page* page);

}  // namespace engram::text
