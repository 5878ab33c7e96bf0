// Query intent: what kind of answer a query asks for, from English and
// Chinese cue words (MISSION.md §1, "Hybrid search" step 1). Intent tunes the
// weights of the retrieval arms and the compiled-truth boost.
#pragma once

#include <string>
#include <string_view>

namespace engram::search {

enum class Intent {
  kEntity,    // "who is", "tell me about", 谁是, 介绍一下
  kTemporal,  // "when", "latest", "last week", a date, 最近, 什么时候
  kEvent,     // "launched", "raised", "acquired", 发布, 融资, 收购
  kConcept,   // "what is", "how does", "explain", 什么是, 原理
  kGeneral,
};

const char* IntentName(Intent intent);  // "entity", "temporal", "event", "concept", "general"

// The first matching class in the order entity, temporal, event, concept
// (so "when did Zhang San join" is temporal, "who is Zhang San" entity).
// Case-insensitive for English; cues match whole words there and anywhere
// in Chinese text.
Intent ClassifyIntent(std::string_view query);

// What an entity question asks about: the query without its entity cue
// words and trailing punctuation ("Who is Zhang San?" → "Zhang San",
// "介绍一下星河智能" → "星河智能"); "" when nothing is left.
std::string EntityName(std::string_view query);

// The query without its question frame — the words that make it a question
// rather than name what it asks about: 是什么, 什么是, 怎么, 如何, 为什么,
// 哪些, a trailing 吗/呢, "what is", "how do I", "why does"… (English ones
// as whole words, case-insensitive) — and without trailing question marks.
// "MCP 是什么" → "MCP", "What is RRF?" → "RRF". The query itself when
// nothing but the frame would be left.
std::string QuestionSubject(std::string_view query);

}  // namespace engram::search
