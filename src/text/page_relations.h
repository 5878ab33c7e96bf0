// Typed relations a sentence states between linked entities, in English and
// Chinese: "[[people/bob]] works at [[companies/acme]]", "- Founded [[x]]",
// "[[x]] was acquired by [[y]]", "[[张三]]在[[星河智能]]工作", "该公司总部位于[[深圳]]".
//
// Only links are entities: a relation needs its object (and, when one is
// written, its subject) to be a [[wiki link]]; plain-text names are not
// pages. A sentence without a linked subject speaks about the page itself
// only when nothing but a pronoun ("she", "该公司"), an adverb ("currently",
// "目前") or a date stands before the verb — "I"/"我" is the writer, not the
// page. Negations, questions, plans and past jobs ("used to work at",
// "曾在…工作") state no relation: anything before the verb that is not on a
// short list of words known to be harmless stops the match. Precision comes
// first; the labelled sentences in tests/data/relations measure it.
//
// The table of relation types and the phrases that say them is
// RelationPatterns(); ids name the pattern that matched ("en.founded.by")
// and are stored as the fact's origin ("pattern:en.founded.by").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace engram::text {

// One phrase that says a relation. The object link stands between before and
// after: "works at [[x]]" (before "works at"), "在[[x]]工作" (before "在",
// after "工作"). inverted: the link is the relation's subject and the
// sentence's subject its object ("[[x]] was founded by [[y]]": y founded x).
struct RelationPattern {
  std::string_view id;
  std::string_view type;    // works_at, founded, invested_in, attended, reports_to, part_of, location,
                            // acquired, advises, education
  bool latin = true;        // English (compared in ASCII lower case) or Chinese
  std::string_view before;  // the words right before the link
  std::string_view after;   // the words right after it ("" = anything)
  bool inverted = false;
};

// Every pattern, in the order tried (the longest phrase of a type first).
const std::vector<RelationPattern>& RelationPatterns();

// A relation read from a sentence. subject and object are link targets in
// slug form (as PageLink::target); subject "" is the page itself.
struct SentenceRelation {
  std::string subject;
  std::string type;
  std::string object;
  std::string pattern;  // RelationPattern::id, or "en.role"/"zh.role" for "is the CTO of [[x]]"
  std::string role;     // the role the sentence gives the subject there ("CTO", "创始人兼 CEO"), "" when none
  bool operator==(const SentenceRelation&) const = default;
};

// The relations one body line states. page_path makes relative link
// targets root-relative, as the page's links are. self_names are the names
// the page goes by (title, aliases): a sentence whose subject is one of them
// ("张三是[[x]]的创始人", "Bob works at [[y]]") speaks about the page. Headings, tables, Dataview
// fields and embeds state none; a leading list marker, quote marker, task box
// or timeline date ("**2026-03-01** |", "2026-03:") is skipped first.
std::vector<SentenceRelation> ReadSentenceRelations(std::string_view line, std::string_view page_path,
                                                    const std::vector<std::string>& self_names = {});

// A place a sentence about the page names in plain text, with no link:
// "Headquartered in Seattle, it …", "Northwind is based in New York.",
// "青松资本是一家总部在北京的风险投资机构", "星河智能是一家位于深圳的…公司". Only for
// the page itself (its name, a pronoun or nothing before the verb), only a
// capitalised place name (English) or two to six Chinese characters ended
// by "的" or punctuation; pattern is "en.location.text" / "zh.location.text".
struct SentencePlace {
  std::string value;
  std::string pattern;
};
std::vector<SentencePlace> ReadSentencePlaces(std::string_view line, const std::vector<std::string>& self_names);

}  // namespace engram::text
