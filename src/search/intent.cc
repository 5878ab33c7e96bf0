#include "search/intent.h"

#include <cctype>
#include <string>
#include <vector>

#include "common/utf8.h"

namespace engram::search {

namespace {

struct Cues {
  std::vector<std::string_view> english;  // whole words or phrases, lower case
  std::vector<std::string_view> chinese;  // substrings
};

const Cues& EntityCues() {
  static const Cues c{{"who is", "who's", "who are", "who was", "tell me about", "about the person", "profile of",
                       "biography"},
                      {"谁是", "是谁", "介绍一下", "介绍下", "简介", "的背景", "什么人"}};
  return c;
}
const Cues& TemporalCues() {
  static const Cues c{{"when", "latest", "recent", "recently", "last week", "last month", "last year", "yesterday",
                       "today", "this week", "this month", "since", "before", "after", "timeline", "history of"},
                      {"什么时候", "何时", "最近", "最新", "上周", "上个月", "去年", "昨天", "今天", "本周", "时间线",
                       "哪一年", "哪天", "年月"}};
  return c;
}
const Cues& EventCues() {
  static const Cues c{{"launched", "launch", "raised", "raise", "acquired", "acquisition", "announced", "released",
                       "founded", "joined", "left", "hired", "funding", "ipo", "merger", "shipped"},
                      {"发布", "融资", "收购", "上线", "宣布", "成立", "加入", "离职", "上市", "并购", "推出"}};
  return c;
}
const Cues& ConceptCues() {
  static const Cues c{{"what is", "what are", "what's", "how does", "how do", "how to", "explain", "define",
                       "definition of", "meaning of", "why does", "difference between"},
                      {"什么是", "是什么", "原理", "定义", "如何", "怎么", "为什么", "区别", "含义"}};
  return c;
}

bool IsWordByte(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '\''; }

// Whole-word (phrase) match in lower-cased ASCII text.
bool HasPhrase(const std::string& text, std::string_view phrase) {
  for (size_t at = text.find(phrase); at != std::string::npos; at = text.find(phrase, at + 1)) {
    const bool left = at == 0 || !IsWordByte(text[at - 1]);
    const size_t end = at + phrase.size();
    const bool right = end >= text.size() || !IsWordByte(text[end]);
    if (left && right) return true;
  }
  return false;
}

bool Matches(const std::string& lower, const Cues& cues) {
  for (std::string_view p : cues.english) {
    if (HasPhrase(lower, p)) return true;
  }
  for (std::string_view p : cues.chinese) {
    if (lower.find(p) != std::string::npos) return true;
  }
  return false;
}

// A date: 2026-04-07, 2026/4/7, 2026年4月, 4月7日, or a year 19xx/20xx alone.
bool HasDate(const std::string& s) {
  if (s.find("年") != std::string::npos || s.find("月") != std::string::npos) {
    for (size_t i = 0; i + 1 < s.size(); ++i) {
      if (std::isdigit(static_cast<unsigned char>(s[i])) &&
          (s.compare(i + 1, 3, "年") == 0 || s.compare(i + 1, 3, "月") == 0 || s.compare(i + 1, 3, "日") == 0)) {
        return true;
      }
    }
  }
  for (size_t i = 0; i + 4 <= s.size(); ++i) {
    if ((i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1]))) || !(s[i] == '1' || s[i] == '2')) continue;
    bool year = true;
    for (size_t j = 0; j < 4; ++j) year = year && std::isdigit(static_cast<unsigned char>(s[i + j]));
    if (!year || (i + 4 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 4])))) continue;
    const int y = std::stoi(s.substr(i, 4));
    if (y >= 1900 && y <= 2100) return true;
  }
  return false;
}

std::string Trim(std::string s) {
  static const std::vector<std::string_view> kEdge = {" ", "\t", "?", "？", "!", "！", ".", "。", ",", "，", ":", "：",
                                                      "的", "吗", "呢"};
  for (bool again = true; again;) {
    again = false;
    for (std::string_view e : kEdge) {
      if (s.size() >= e.size() && s.compare(0, e.size(), e) == 0) s.erase(0, e.size()), again = true;
      if (s.size() >= e.size() && s.compare(s.size() - e.size(), e.size(), e) == 0) {
        s.erase(s.size() - e.size()), again = true;
      }
    }
  }
  return s;
}

}  // namespace

std::string EntityName(std::string_view query) {
  std::string s(query);
  std::string lower = common::AsciiLower(s);
  for (std::string_view cue : EntityCues().english) {
    for (size_t at = lower.find(cue); at != std::string::npos; at = lower.find(cue)) {
      const size_t end = at + cue.size();
      if ((at > 0 && IsWordByte(lower[at - 1])) || (end < lower.size() && IsWordByte(lower[end]))) break;
      s.erase(at, cue.size());
      lower.erase(at, cue.size());
    }
  }
  for (std::string_view cue : EntityCues().chinese) {
    for (size_t at = s.find(cue); at != std::string::npos; at = s.find(cue)) s.erase(at, cue.size());
  }
  return Trim(s);
}

std::string QuestionSubject(std::string_view query) {
  // Longest first, so that 有哪些 goes before 哪些 and "what are the" before "what are".
  static const std::vector<std::string_view> kEnglish = {
      "what are the", "what is the", "what is a", "what is an", "what is", "what are", "what's", "how do i",
      "how do you", "how can i", "how does", "how do", "how to", "why does", "why do", "why is", "tell me about",
      "explain"};
  static const std::vector<std::string_view> kChinese = {"请问", "是什么意思", "是什么", "什么是", "是啥", "啥是",
                                                         "怎么样", "怎么办", "怎么", "如何", "为什么", "为啥",
                                                         "有哪些", "哪些", "哪个", "介绍一下"};
  std::string s(query);
  std::string lower = common::AsciiLower(s);
  for (std::string_view frame : kEnglish) {
    for (size_t at = lower.find(frame); at != std::string::npos; at = lower.find(frame, at + 1)) {
      const size_t end = at + frame.size();
      if ((at > 0 && IsWordByte(lower[at - 1])) || (end < lower.size() && IsWordByte(lower[end]))) continue;
      s.replace(at, frame.size(), std::string(frame.size(), ' '));
      lower.replace(at, frame.size(), std::string(frame.size(), ' '));
    }
  }
  for (std::string_view frame : kChinese) {
    std::string out;  // rebuilt by appends: in-place replace trips GCC 12's -Wrestrict
    size_t from = 0;
    for (size_t at = s.find(frame); at != std::string::npos; at = s.find(frame, from)) {
      out.append(s, from, at - from).append(" ");
      from = at + frame.size();
    }
    out.append(s, from, std::string::npos);
    s = std::move(out);
  }
  s = Trim(s);  // spaces, question marks and trailing particles (吗, 呢)
  return s.empty() ? std::string(query) : s;
}

const char* IntentName(Intent intent) {
  switch (intent) {
    case Intent::kEntity: return "entity";
    case Intent::kTemporal: return "temporal";
    case Intent::kEvent: return "event";
    case Intent::kConcept: return "concept";
    case Intent::kGeneral: return "general";
  }
  return "general";
}

Intent ClassifyIntent(std::string_view query) {
  const std::string lower = common::AsciiLower(query);
  if (Matches(lower, EntityCues())) return Intent::kEntity;
  if (Matches(lower, TemporalCues()) || HasDate(lower)) return Intent::kTemporal;
  if (Matches(lower, EventCues())) return Intent::kEvent;
  if (Matches(lower, ConceptCues())) return Intent::kConcept;
  return Intent::kGeneral;
}

}  // namespace engram::search
