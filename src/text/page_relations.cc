#include "text/page_relations.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "common/utf8.h"
#include "text/note_date.h"
#include "text/page_links.h"

namespace engram::text {

namespace {

bool Starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool Ends(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(s.size() - p.size()) == p; }

// A character that stops the patterns: inline code, an embed, a link that is
// no page. Nothing is filler across it.
constexpr char kBlocker = '\x1f';

// Words allowed between an English subject and its verb, or before the verb
// of a sentence about the page ("She currently works at", "It is based in").
constexpr std::array<std::string_view, 30> kEnFiller = {
    "who",     "which", "that",    "has",        "have",    "also",     "now",  "currently", "recently", "still",
    "already", "since", "in",      "officially", "jointly", "together", "both", "he",        "she",      "they",
    "it",      "the",   "company", "team",       "firm",    "startup",  "is",   "are",       "today",    "yesterday"};
// Before a passive phrase ("[[x]] was founded by [[y]]").
constexpr std::array<std::string_view, 7> kEnPassive = {"was", "were", "is", "are", "been", "has", "had"};
constexpr std::array<std::string_view, 12> kMonths = {"january",   "february", "march",    "april",
                                                      "may",       "june",     "july",     "august",
                                                      "september", "october",  "november", "december"};

// The same for Chinese (Simplified and Traditional), longest first where one
// begins another.
constexpr std::array<std::string_view, 53> kZhFiller = {
    "该公司", "該公司", "这家公司", "這家公司", "该团队", "該團隊", "该机构", "該機構", "他们", "她们", "他們",
    "她們",   "目前",   "现在",     "現在",     "当前",   "當前",   "如今",   "已经",   "已經", "一直", "正在",
    "同时",   "同時",   "主要",     "年初",     "年底",   "年中",   "今年",   "以来",   "以來", "公司", "团队",
    "團隊",   "也",     "还",       "還",       "已",     "都",     "均",     "于",     "於",   "他",   "她",
    "其",     "在",     "自",       "起",       "从",     "從",     "是",     "，",     ","};

bool IsDateWordEn(std::string_view w) {
  if (w.empty()) return false;
  bool digit = false;
  for (char c : w) {
    if (c >= '0' && c <= '9')
      digit = true;
    else if (c != '-' && c != '/' && c != '.')
      return false;
  }
  if (digit) return true;
  if (w.size() == 2 && w[0] == 'q' && w[1] >= '1' && w[1] <= '4') return true;
  for (std::string_view m : kMonths) {
    if (w == m || (w.size() == 3 && Starts(m, w))) return true;
  }
  return false;
}

// True when text (lower case) is only filler words, dates and commas.
bool EnFiller(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',' || text[i] == '\t')) ++i;
    if (i >= text.size()) break;
    size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != ',' && text[j] != '\t') ++j;
    std::string_view w = text.substr(i, j - i);
    if (std::find(kEnFiller.begin(), kEnFiller.end(), w) == kEnFiller.end() && !IsDateWordEn(w)) return false;
    i = j;
  }
  return true;
}

bool ZhFiller(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const std::string_view rest = text.substr(i);
    if (rest[0] == ' ' || rest[0] == '\t') {
      ++i;
      continue;
    }
    // "其他公司" (other companies), "他人" (others) are someone else, though each character alone is filler.
    if (Starts(rest, "其他") || Starts(rest, "其它") || Starts(rest, "他人")) return false;
    size_t used = 0;
    for (std::string_view w : kZhFiller) {
      if (Starts(rest, w)) {
        used = w.size();
        break;
      }
    }
    if (used == 0 && rest[0] >= '0' && rest[0] <= '9') {  // a date: 2021年3月, 2021-03
      while (used < rest.size() && ((rest[used] >= '0' && rest[used] <= '9') || rest[used] == '-' ||
                                    rest[used] == '/' || rest[used] == '.')) {
        ++used;
      }
      for (std::string_view unit : {"年", "月", "日", "号", "號"}) {
        if (Starts(rest.substr(used), unit)) used += unit.size();
      }
    }
    if (used == 0) {
      for (std::string_view unit : {"年", "月", "日", "号", "號", "初", "底"}) {
        if (Starts(rest, unit)) used = unit.size();
      }
    }
    if (used == 0) return false;
    i += used;
  }
  return true;
}

bool Filler(std::string_view text, bool latin) {
  return latin ? EnFiller(common::AsciiLower(text)) : ZhFiller(text) || EnFiller(common::AsciiLower(text));
}

// Words that join two linked subjects or objects: "[[a]] and [[b]]", "[[a]]、[[b]]".
bool Coordination(std::string_view text) {
  const std::string t(common::TrimSpace(common::AsciiLower(text)));
  for (std::string_view w : {"and", ",", ", and", "&", "、", "和", "与", "與", "及", "以及", "，", "or"}) {
    if (t == w && w != "or") return true;
  }
  return false;
}

// Role words of "is the CTO of [[x]]" / "[[bob]], partner at [[x]]": heads
// say the type, modifiers may stand around them.
struct RoleHead {
  std::string_view word;
  std::string_view type;
};
constexpr std::array<RoleHead, 36> kEnRoleHeads = {{
    {"ceo", "works_at"},       {"cto", "works_at"},        {"cfo", "works_at"},         {"coo", "works_at"},
    {"cpo", "works_at"},       {"cmo", "works_at"},        {"vp", "works_at"},          {"president", "works_at"},
    {"director", "works_at"},  {"manager", "works_at"},    {"engineer", "works_at"},    {"head", "works_at"},
    {"lead", "works_at"},      {"designer", "works_at"},   {"scientist", "works_at"},   {"researcher", "works_at"},
    {"analyst", "works_at"},   {"partner", "works_at"},    {"principal", "works_at"},   {"intern", "works_at"},
    {"chairman", "works_at"},  {"chairwoman", "works_at"}, {"chair", "works_at"},       {"officer", "works_at"},
    {"architect", "works_at"}, {"developer", "works_at"},  {"employee", "works_at"},    {"founder", "founded"},
    {"co-founder", "founded"}, {"cofounder", "founded"},   {"investor", "invested_in"}, {"advisor", "advises"},
    {"adviser", "advises"},    {"student", "education"},   {"alumnus", "education"},    {"alumna", "education"},
}};
constexpr std::array<std::string_view, 24> kEnRoleModifiers = {
    "senior",   "staff",   "chief",   "technology",  "technical", "operating", "executive", "financial",
    "vice",     "general", "product", "engineering", "sales",     "marketing", "research",  "data",
    "software", "of",      "and",     "&",           "founding",  "managing",  "platform",  "machine"};

// Which prepositions a role's type takes before its link.
bool RolePreposition(std::string_view type, std::string_view prep) {
  if (type == "works_at") return prep == "at" || prep == "of" || prep == "for";
  if (type == "founded") return prep == "of";
  if (type == "invested_in") return prep == "in" || prep == "of";
  if (type == "advises") return prep == "to" || prep == "of" || prep == "at";
  if (type == "education") return prep == "at" || prep == "of";
  return false;
}

constexpr std::array<RoleHead, 33> kZhRoleHeads = {{
    {"联合创始人", "founded"}, {"聯合創始人", "founded"}, {"共同创始人", "founded"}, {"创始人", "founded"},
    {"創始人", "founded"},     {"顾问", "advises"},       {"顧問", "advises"},       {"投资人", "invested_in"},
    {"投资方", "invested_in"}, {"投資人", "invested_in"}, {"股东", "invested_in"},   {"子公司", "part_of"},
    {"一部分", "part_of"},     {"分公司", "part_of"},     {"员工", "works_at"},      {"員工", "works_at"},
    {"工程师", "works_at"},    {"工程師", "works_at"},    {"经理", "works_at"},      {"經理", "works_at"},
    {"总监", "works_at"},      {"總監", "works_at"},      {"总裁", "works_at"},      {"總裁", "works_at"},
    {"合伙人", "works_at"},    {"研究员", "works_at"},    {"设计师", "works_at"},    {"实习生", "works_at"},
    {"董事长", "works_at"},    {"负责人", "works_at"},    {"主管", "works_at"},      {"架构师", "works_at"},
    {"科学家", "works_at"},
}};

// A Chinese role as written, up to the clause's end: "创始人兼 CEO，2019 年…" -> "创始人兼 CEO".
std::string ZhRoleText(std::string_view after) {
  size_t end = after.size();
  for (std::string_view stop : {"，", "。", "；", "、", ",", ";", "(", "（", "|"})
    end = std::min(end, after.find(stop));
  std::string_view role = common::TrimSpace(after.substr(0, end));
  return role.size() > 40 ? "" : std::string(role);
}

// The type a Chinese role phrase after "的" says ("高级工程师", "CTO",
// "联合创始人"); "" when it is none (or a past one: "前员工").
std::string_view ZhRoleType(std::string_view after) {
  size_t end = after.size();
  for (std::string_view stop : {"，", "。", "；", "、", ",", ";", "(", "（", " ", "和", "与"}) {
    end = std::min(end, after.find(stop));
  }
  std::string_view phrase = after.substr(0, end);
  if (phrase.empty() || phrase.size() > 30) return "";
  for (std::string_view past : {"前", "原", "曾", "首任"}) {
    if (Starts(phrase, past)) return "";
  }
  for (const RoleHead& r : kZhRoleHeads) {
    if (Ends(phrase, r.word) || Starts(phrase, r.word)) return r.type;
  }
  const std::string upper = common::AsciiLower(phrase);
  for (std::string_view acronym : {"ceo", "cto", "cfo", "coo", "cpo", "cmo", "vp"}) {
    if (upper == acronym || Ends(upper, acronym)) return "works_at";
  }
  return "";
}

std::vector<RelationPattern> BuildPatterns() {
  std::vector<RelationPattern> p;
  auto en = [&](std::string_view id, std::string_view type, std::string_view before, bool inverted = false) {
    p.push_back({id, type, true, before, "", inverted});
  };
  auto zh = [&](std::string_view id, std::string_view type, std::string_view before, std::string_view after = "",
                bool inverted = false) {
    p.push_back({id, type, false, before, after, inverted});
  };
  // English. Inverted (passive) phrases first: "was founded by" ends with "founded by", not "founded".
  en("en.founded.by", "founded", "co-founded by", true);
  en("en.founded.by", "founded", "founded by", true);
  en("en.founded", "founded", "co-founded");
  en("en.founded", "founded", "cofounded");
  en("en.founded", "founded", "founded");
  en("en.acquired.by", "acquired", "acquired by", true);
  en("en.acquired", "acquired", "acquired");
  en("en.acquired", "acquired", "acquires");
  en("en.invested_in.by", "invested_in", "backed by", true);
  en("en.invested_in", "invested_in", "invested in");
  en("en.invested_in", "invested_in", "invests in");
  en("en.works_at", "works_at", "works at");
  en("en.works_at", "works_at", "works for");
  en("en.works_at", "works_at", "working at");
  en("en.works_at", "works_at", "is employed by");
  en("en.works_at", "works_at", "is employed at");
  en("en.works_at", "works_at", "has worked at");
  en("en.attended", "attended", "attended");
  en("en.attended", "attended", "attends");
  en("en.attended", "attended", "spoke at");
  en("en.attended", "attended", "speaks at");
  en("en.attended", "attended", "presented at");
  en("en.attended", "attended", "participated in");
  en("en.attended", "attended", "took part in");
  en("en.reports_to", "reports_to", "reports to");
  en("en.reports_to", "reports_to", "reports directly to");
  en("en.part_of", "part_of", "is part of");
  en("en.part_of", "part_of", "is a part of");
  en("en.part_of", "part_of", "a subsidiary of");
  en("en.part_of", "part_of", "a division of");
  en("en.location", "location", "headquartered in");
  en("en.location", "location", "is based in");
  en("en.location", "location", "are based in");
  en("en.location", "location", "based in");
  en("en.location", "location", "located in");
  en("en.location", "location", "lives in");
  en("en.advises", "advises", "advises");
  en("en.advises", "advises", "advisor to");
  en("en.advises", "advises", "adviser to");
  en("en.education", "education", "graduated from");
  en("en.education", "education", "studied at");
  en("en.education", "education", "studies at");
  // Chinese (Simplified and Traditional).
  for (std::string_view w : {"创立", "创办", "創立", "創辦", "联合创立", "共同创立", "联合创办", "共同创办"}) {
    zh("zh.founded.by", "founded", "由", w, true);
  }
  for (std::string_view w : {"联合创立了", "共同创立了", "联合创办了", "共同创办了", "创立了", "创办了", "創立了",
                             "創辦了", "创立", "创办", "創立", "創辦"}) {
    zh("zh.founded", "founded", w);
  }
  for (std::string_view w : {"收购", "收購"}) zh("zh.acquired.by", "acquired", "被", w, true);
  for (std::string_view w : {"收购了", "收購了", "收购", "收購"}) zh("zh.acquired", "acquired", w);
  zh("zh.acquired", "acquired", "完成了对", "的收购");
  zh("zh.acquired", "acquired", "完成对", "的收购");
  zh("zh.invested_in.by", "invested_in", "获得", "的投资", true);
  zh("zh.invested_in.by", "invested_in", "獲得", "的投資", true);
  for (std::string_view w : {"领投了", "跟投了", "参投了", "投资了", "投資了", "领投", "投资", "投資"}) {
    zh("zh.invested_in", "invested_in", w);
  }
  for (std::string_view w : {"工作", "上班", "任职", "任職", "担任", "擔任"}) zh("zh.works_at", "works_at", "在", w);
  for (std::string_view w : {"就职于", "任职于", "供职于", "效力于", "就職於", "任職於", "供職於"}) {
    zh("zh.works_at", "works_at", w);
  }
  for (std::string_view w : {"参加了", "出席了", "參加了", "参加", "出席", "參加"}) zh("zh.attended", "attended", w);
  zh("zh.reports_to", "reports_to", "向", "汇报");
  zh("zh.reports_to", "reports_to", "向", "匯報");
  zh("zh.reports_to", "reports_to", "向", "报告");
  zh("zh.reports_to", "reports_to", "直属上级是");
  zh("zh.reports_to", "reports_to", "汇报给");
  for (std::string_view w : {"隶属于", "隸屬於", "隶属"}) zh("zh.part_of", "part_of", w);
  zh("zh.part_of", "part_of", "是", "的一部分");
  for (std::string_view w : {"总部位于", "總部位於", "总部设在", "总部在", "位于", "位於", "坐落于", "常驻", "住在",
                             "居住在", "定居在", "定居于"}) {
    zh("zh.location", "location", w);
  }
  for (std::string_view w : {"毕业于", "畢業於", "就读于", "就讀於"}) zh("zh.education", "education", w);
  return p;
}

// A piece of a sentence: text, or a link to a page.
struct Seg {
  bool link = false;
  std::string text;    // text as written (a link's: "")
  std::string target;  // a link's target in slug form
};

// Strips what precedes a note's sentence: quote and list markers, task boxes,
// a timeline date. false when the line states nothing (heading, table, field).
bool StripLineLead(std::string_view* line) {
  std::string_view t = common::TrimSpace(*line);
  if (t.empty() || t[0] == '|' || Starts(t, "#") || t.find("::") != std::string_view::npos) return false;
  for (bool more = true; more;) {
    more = false;
    for (std::string_view m : {">", "- ", "* ", "+ ", "[ ] ", "[x] ", "[X] "}) {
      if (Starts(t, m)) {
        t = common::TrimSpace(t.substr(m.size()));
        more = true;
      }
    }
    const size_t digits = t.find_first_not_of("0123456789");
    if (digits > 0 && digits != std::string_view::npos && t.substr(digits, 2) == ". ") {
      t = common::TrimSpace(t.substr(digits + 2));
      more = true;
    }
  }
  if (Starts(t, "[!")) return false;  // a callout's title line
  // A timeline date: "**2026-03-01** |", "2026-03-01 |", "2026-03:".
  std::string_view d = t;
  bool bold = false;
  if (Starts(d, "**")) {
    const size_t close = d.find("**", 2);
    if (close != std::string_view::npos) {
      d = d.substr(2, close - 2);
      bold = true;
    }
  }
  size_t used = 0;
  if (!ParseLeadingDate(d, &used).empty()) {
    std::string_view after = bold ? t.substr(d.size() + 4) : t.substr(used);
    if (bold && used != d.size()) after = {};
    std::string_view a = common::TrimSpace(after);
    for (std::string_view sep : {"|", ":", "：", "—", "–", "- "}) {
      if (Starts(a, sep)) {
        t = common::TrimSpace(a.substr(sep.size()));
        break;
      }
    }
  }
  *line = t;
  return true;
}

// The line with inline code, struck-through text and bold markers replaced:
// code and deleted text state nothing.
std::string CleanLine(std::string_view t) {
  std::string out;
  size_t i = 0;
  while (i < t.size()) {
    if (t[i] == '`') {
      const size_t run = t.find_first_not_of('`', i);
      const size_t n = (run == std::string_view::npos ? t.size() : run) - i;
      const size_t close = run == std::string_view::npos ? run : t.find(std::string(n, '`'), run);
      out.push_back(kBlocker);
      if (close == std::string_view::npos) return out;
      i = close + n;
    } else if (Starts(t.substr(i), "~~")) {
      const size_t close = t.find("~~", i + 2);
      out.push_back(kBlocker);
      if (close == std::string_view::npos) return out;
      i = close + 2;
    } else if (Starts(t.substr(i), "**")) {
      i += 2;
    } else {
      out.push_back(t[i++]);
    }
  }
  return out;
}

// Splits a cleaned line into sentences of text and links. A sentence that
// asks ("…?", "…吗？") is dropped.
std::vector<std::vector<Seg>> Sentences(const std::string& line, std::string_view page_path) {
  std::vector<std::vector<Seg>> out(1);
  std::vector<bool> asks(1, false);
  auto text = [&](std::string_view s) {
    if (s.empty()) return;
    auto& cur = out.back();
    if (cur.empty() || cur.back().link) cur.push_back({});
    cur.back().text.append(s);
  };
  auto end_sentence = [&](bool ask) {
    asks.back() = ask;
    out.emplace_back();
    asks.push_back(false);
  };
  size_t i = 0;
  while (i < line.size()) {
    if (Starts(std::string_view(line).substr(i), "[[")) {
      const size_t close = line.find("]]", i + 2);
      if (close == std::string::npos) break;
      const bool embed = i > 0 && line[i - 1] == '!';
      PageRefCollector refs(page_path);
      refs.AddFieldValue("relation", std::string_view(line).substr(i, close + 2 - i));
      std::vector<PageLink> links = refs.TakeLinks();
      if (embed || links.size() != 1 || links[0].type == kAttachmentLinkType) {
        text(std::string(1, kBlocker));
      } else {
        out.back().push_back({true, "", std::move(links[0].target)});
      }
      i = close + 2;
      continue;
    }
    const std::string_view rest = std::string_view(line).substr(i);
    bool ended = false;
    for (std::string_view stop : {"。", "；", "！", "？", ";", "!", "?", "."}) {
      if (!Starts(rest, stop)) continue;
      // "3.5", "Node.js", "e.g.": a dot ends a sentence only before a space or the line's end.
      if (stop == "." && rest.size() > 1 && rest[1] != ' ') break;
      end_sentence(stop == "?" || stop == "？");
      i += stop.size();
      ended = true;
      break;
    }
    if (ended) continue;
    size_t next = i;
    common::DecodeUtf8(line, &next);
    text(std::string_view(line).substr(i, next - i));
    i = next;
  }
  for (size_t s = 0; s < out.size(); ++s) {
    // "…吗" without its question mark asks as well.
    if (!out[s].empty() && !out[s].back().link) {
      std::string_view t = common::TrimSpace(out[s].back().text);
      if (Ends(t, "吗") || Ends(t, "嗎")) asks[s] = true;
    }
    if (asks[s]) out[s].clear();
  }
  return out;
}

// The end of phrase in text (lower case for English) when text ends with it,
// as whole words, optionally followed by "the"/"了": the offset where it starts.
bool EndsWithPhrase(std::string_view text, std::string_view phrase, bool latin, size_t* start) {
  std::string_view t = latin ? common::TrimSpace(text) : text;
  while (!latin && !t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  if (latin && (Ends(t, " the") || t == "the")) t = common::TrimSpace(t.substr(0, t.size() - 3));
  if (!Ends(t, phrase)) return false;
  const size_t at = t.size() - phrase.size();
  if (latin && at > 0 && std::isalnum(static_cast<unsigned char>(t[at - 1]))) return false;
  if (latin && at > 0 && t[at - 1] == '-') return false;
  *start = at;
  return true;
}

// What may follow the object link for a pattern with no "after": not a
// possessive ("attended [[alice]]'s talk", "参加[[x]]的人") and, for a place,
// not "inside" ("位于[[x]]中的算法").
bool FreeAfter(std::string_view after, const RelationPattern& p) {
  std::string_view a = after;
  while (!a.empty() && a.front() == ' ') a.remove_prefix(1);
  if (Starts(a, "'s") || Starts(a, "’s") || Starts(a, "'") || Starts(a, "的")) return false;
  if (!p.latin) {
    for (std::string_view w : {"中", "里", "裡", "内", "內", "过", "過"}) {
      if (Starts(a, w)) return false;
    }
  }
  return true;
}

// "工作" after "在[[x]]" — but not "工作过" (a past job).
bool AfterMatches(std::string_view after, std::string_view want) {
  after = common::TrimSpace(after);
  if (!Starts(after, want)) return false;
  const std::string_view rest = after.substr(want.size());
  return !Starts(rest, "过") && !Starts(rest, "過");
}

// The lead of a passive phrase without its auxiliary: "[[x]] was" -> "[[x]]".
std::string DropPassive(std::string lead) {
  for (bool again = true; again;) {
    again = false;
    std::string_view t = common::TrimSpace(lead);
    const size_t sp = t.find_last_of(' ');
    const std::string word = common::AsciiLower(sp == std::string_view::npos ? t : t.substr(sp + 1));
    if (!word.empty() && std::find(kEnPassive.begin(), kEnPassive.end(), word) != kEnPassive.end()) {
      lead = std::string(t.substr(0, sp == std::string_view::npos ? 0 : sp));
      again = true;
    }
  }
  return lead;
}

// The lead without the page's own name at its start ("张三目前" -> "目前");
// "\x1f" (never filler) when it does not start with one.
std::string WithoutSelfName(std::string_view lead, const std::vector<std::string>& self) {
  const std::string_view t = common::TrimSpace(lead);
  const std::string lower = common::AsciiLower(t);
  size_t best = 0;
  for (const std::string& name : self) {
    const std::string n = common::AsciiLower(common::TrimSpace(name));
    if (n.empty() || n.size() <= best || !Starts(lower, n)) continue;
    // A whole word: "Bob" is not the start of "Bobby".
    if (n.size() < lower.size() && std::isalnum(static_cast<unsigned char>(lower[n.size()])) &&
        std::isalnum(static_cast<unsigned char>(n.back()))) {
      continue;
    }
    best = n.size();
  }
  if (best == 0) return std::string(1, kBlocker);
  return std::string(t.substr(best));
}

// ", who" / ", which" / ", that": a clause about the link before it.
bool RelativeClause(std::string_view lead) {
  const std::string t = common::AsciiLower(lead);
  for (std::string_view w : {"who", "which"}) {
    size_t at = t.find(w);
    while (at != std::string::npos) {
      const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(t[at - 1]));
      const bool ends = at + w.size() == t.size() || !std::isalnum(static_cast<unsigned char>(t[at + w.size()]));
      if (starts && ends) return true;
      at = t.find(w, at + 1);
    }
  }
  return false;
}

// The subjects of a verb whose phrase starts at `lead_end` in the text before
// link k: linked subjects ("[[a]] and [[b]]") when the words between are
// filler, else the page (""), when there is no earlier link and all before
// the verb is filler. Empty when neither.
// attached: the verb hangs on the link before whatever precedes it (an
// appositive: "Dinner with [[bob]], partner at [[x]]").
std::vector<std::string> Subjects(const std::vector<Seg>& s, size_t k, std::string_view lead, bool latin,
                                  const std::vector<std::string>& self, bool* found, bool attached = false) {
  *found = false;
  std::vector<std::string> out;
  const size_t text_at = k > 0 && !s[k - 1].link ? k - 1 : k;  // the text segment before link k, if any
  const bool has_text = text_at != k;
  const size_t before_text = has_text ? text_at : k;  // index of the first segment before the lead
  if (before_text == 0) {
    if (std::find(lead.begin(), lead.end(), kBlocker) != lead.end()) return out;
    if (!Filler(lead, latin) && !Filler(WithoutSelfName(lead, self), latin)) return out;
    out.emplace_back();
    *found = true;
    return out;
  }
  if (!s[before_text - 1].link) return out;
  if (std::find(lead.begin(), lead.end(), kBlocker) != lead.end() || !Filler(lead, latin)) return out;
  size_t j = before_text - 1;
  out.push_back(s[j].target);
  while (j >= 2 && !s[j - 1].link && Coordination(s[j - 1].text) && s[j - 2].link) {
    j -= 2;
    out.push_back(s[j].target);
  }
  // The subject opens its clause ("In 2019, [[a]] founded…"); after "If",
  // "据传", "Wondering whether" or a quote it is not a statement — unless a
  // relative pronoun hangs the verb on it ("Met [[bob]], who works at…").
  const bool opens =
      j == 0 ||
      (!s[j - 1].link && std::find(s[j - 1].text.begin(), s[j - 1].text.end(), kBlocker) == s[j - 1].text.end() &&
       Filler(s[j - 1].text, latin));
  if (!opens && !attached && !RelativeClause(lead)) {
    out.clear();
    return out;
  }
  *found = true;
  return out;
}

// Whether the text after link k ends the phrase, so an object joined to it
// ("[[a]] and [[b]].") shares its relation.
bool EndsPhrase(const std::vector<Seg>& s, size_t k) {
  if (k + 1 >= s.size()) return true;
  if (s[k + 1].link) return false;
  std::string_view t = common::TrimSpace(s[k + 1].text);
  return t.empty() || Starts(t, ",") || Starts(t, "，") || Starts(t, "、") || Starts(t, ")") || Starts(t, "）");
}

// "is the CTO of [[x]]", "[[bob]], partner at [[x]]", "- CTO at [[x]]".
bool MatchEnRole(const std::vector<Seg>& s, size_t k, const std::vector<std::string>& self,
                 std::vector<SentenceRelation>* out) {
  if (k == 0 || s[k - 1].link) return false;
  const std::string lower = common::AsciiLower(s[k - 1].text);
  std::vector<std::string_view> words;
  std::string_view t = common::TrimSpace(lower);
  size_t i = 0;
  while (i < t.size()) {
    while (i < t.size() && t[i] == ' ') ++i;
    size_t j = t.find(' ', i);
    if (j == std::string_view::npos) j = t.size();
    if (j > i) words.push_back(t.substr(i, j - i));
    i = j;
  }
  if (words.size() < 2) return false;
  const std::string_view prep = words.back();
  size_t w = words.size() - 1;
  std::string_view type;
  while (w > 0) {
    std::string_view word = words[w - 1];
    while (!word.empty() && word.back() == ',') word.remove_suffix(1);
    bool head = false;
    for (const RoleHead& r : kEnRoleHeads) {
      if (word == r.word) {
        if (type.empty()) type = r.type;
        head = true;
      }
    }
    if (!head && std::find(kEnRoleModifiers.begin(), kEnRoleModifiers.end(), word) == kEnRoleModifiers.end()) break;
    if (words[w - 1].back() == ',' && w != words.size() - 1) break;
    --w;
  }
  if (type.empty() || !RolePreposition(type, prep)) return false;
  // The role as written ("Head of Research"), from the original text at the same offsets.
  std::string role;
  if (w + 1 < words.size()) {
    const size_t from = static_cast<size_t>(words[w].data() - lower.data());
    const size_t to =
        static_cast<size_t>(words[words.size() - 2].data() - lower.data()) + words[words.size() - 2].size();
    role = std::string(common::TrimSpace(std::string_view(s[k - 1].text).substr(from, to - from)));
    while (!role.empty() && role.back() == ',') role.pop_back();
  }
  if (type != "works_at" && type != "founded") role.clear();
  const bool article = w > 0 && (words[w - 1] == "a" || words[w - 1] == "an" || words[w - 1] == "the");
  if (article) --w;
  // Before the role: "is" (and adverbs), a comma after a linked subject, or nothing.
  size_t cut = w;
  while (cut > 0 && (words[cut - 1] == "currently" || words[cut - 1] == "now" || words[cut - 1] == "also")) --cut;
  const bool is = cut > 0 && (words[cut - 1] == "is" || words[cut - 1] == "she's" || words[cut - 1] == "he's");
  if (is) --cut;
  std::string lead;
  for (size_t x = 0; x < cut; ++x) {
    if (!lead.empty()) lead.push_back(' ');
    lead.append(words[x]);
  }
  if (!is && !lead.empty() && lead != ",") return false;
  // "The founder of [[x]] is [[y]]": the role names the subject; y founded x.
  const std::string next =
      k + 1 < s.size() && !s[k + 1].link ? std::string(common::TrimSpace(common::AsciiLower(s[k + 1].text))) : "";
  if (!is && lead.empty() && next == "is" && k + 2 < s.size() && s[k + 2].link && EndsPhrase(s, k + 2)) {
    out->push_back({s[k + 2].target, std::string(type), s[k].target, "en.role", ""});
    return true;
  }
  // "The CTO of [[x]] said…" names someone; only "CTO at [[x]]" on its own (a
  // list item) or after "is" or a linked subject's comma says the page's role.
  if (!is && article && lead != ",") return false;
  if (Starts(next, "is ") || Starts(next, "was ") || Starts(next, "are ") || next == "is" || next == "was") {
    return false;
  }
  bool found = false;
  std::vector<std::string> subjects = Subjects(s, k, lead, true, self, &found, !is && lead == ",");
  if (!found) return false;
  for (std::string& subj : subjects) {
    out->push_back({std::move(subj), std::string(type), s[k].target, "en.role", role});
  }
  return true;
}

// "是[[x]]的CTO", "担任[[x]]的顾问", "是[[x]]的子公司".
bool MatchZhRole(const std::vector<Seg>& s, size_t k, const std::vector<std::string>& self,
                 std::vector<SentenceRelation>* out) {
  if (k == 0 || s[k - 1].link || k + 1 >= s.size() || s[k + 1].link) return false;
  std::string_view after = common::TrimSpace(s[k + 1].text);
  if (!Starts(after, "的")) return false;
  const std::string_view type = ZhRoleType(after.substr(3));
  if (type.empty()) return false;
  const std::string role = type == "works_at" || type == "founded" ? ZhRoleText(after.substr(3)) : "";
  for (std::string_view verb : {"担任", "擔任", "是", "为", "為"}) {
    size_t start = 0;
    if (!EndsWithPhrase(s[k - 1].text, verb, false, &start)) continue;
    if (verb != "是" && type != "works_at" && type != "advises") continue;  // "担任[[x]]的子公司" says nothing
    bool found = false;
    std::vector<std::string> subjects =
        Subjects(s, k, std::string_view(s[k - 1].text).substr(0, start), false, self, &found);
    if (!found) return false;
    for (std::string& subj : subjects) {
      out->push_back({std::move(subj), std::string(type), s[k].target, "zh.role", role});
    }
    return true;
  }
  return false;
}

}  // namespace

const std::vector<RelationPattern>& RelationPatterns() {
  static const std::vector<RelationPattern> kPatterns = BuildPatterns();
  return kPatterns;
}

std::vector<SentenceRelation> ReadSentenceRelations(std::string_view line, std::string_view page_path,
                                                    const std::vector<std::string>& self) {
  std::vector<SentenceRelation> out;
  if (line.find("[[") == std::string_view::npos) return out;
  std::string_view t = line;
  if (!StripLineLead(&t)) return out;
  const std::string clean = CleanLine(t);
  for (const std::vector<Seg>& s : Sentences(clean, page_path)) {
    std::vector<SentenceRelation> last;  // the relations of the previous object link
    for (size_t k = 0; k < s.size(); ++k) {
      if (!s[k].link) continue;
      std::vector<SentenceRelation> found;
      const std::string before = k > 0 && !s[k - 1].link ? s[k - 1].text : "";
      const std::string lower = common::AsciiLower(before);
      const std::string_view after = k + 1 < s.size() && !s[k + 1].link ? std::string_view(s[k + 1].text) : "";
      for (const RelationPattern& p : RelationPatterns()) {
        size_t start = 0;
        if (!EndsWithPhrase(p.latin ? lower : before, p.before, p.latin, &start)) continue;
        if (p.after.empty() ? !FreeAfter(after, p) : !AfterMatches(after, p.after)) continue;
        std::string lead = before.substr(0, start);
        if (p.inverted && p.latin) lead = DropPassive(lead);
        bool ok = false;
        std::vector<std::string> subjects = Subjects(s, k, lead, p.latin, self, &ok);
        if (!ok) break;  // the phrase is there but something else stands before it
        // "在[[x]]担任CTO": the role follows.
        const std::string role = p.after == "担任" || p.after == "擔任"
                                     ? ZhRoleText(common::TrimSpace(common::TrimSpace(after).substr(p.after.size())))
                                     : "";
        for (std::string& subj : subjects) {
          if (p.inverted)
            found.push_back({s[k].target, std::string(p.type), std::move(subj), std::string(p.id), ""});
          else
            found.push_back({std::move(subj), std::string(p.type), s[k].target, std::string(p.id), role});
        }
        break;
      }
      if (found.empty() && !MatchEnRole(s, k, self, &found)) MatchZhRole(s, k, self, &found);
      // An object joined to the previous one: "invested in [[a]] and [[b]]".
      if (found.empty() && !last.empty() && k >= 2 && !s[k - 1].link && Coordination(s[k - 1].text) &&
          EndsPhrase(s, k)) {
        for (SentenceRelation r : last) {
          const bool inverted = r.subject == s[k - 2].target;
          if (inverted)
            r.subject = s[k].target;
          else
            r.object = s[k].target;
          found.push_back(std::move(r));
        }
      }
      for (SentenceRelation& r : found) {
        if (r.subject != r.object) out.push_back(r);
      }
      last = std::move(found);
    }
  }
  return out;
}

namespace {

// "Seattle", "New York", "St. Louis": capitalised words up to a comma, a
// full stop or a word in lower case; at most four.
std::string EnglishPlace(std::string_view after) {
  std::string out;
  size_t i = 0, words = 0;
  while (i < after.size() && words < 4) {
    while (i < after.size() && after[i] == ' ') ++i;
    size_t j = i;
    while (j < after.size() && (std::isalpha(static_cast<unsigned char>(after[j])) || after[j] == '-' ||
                                after[j] == '.' || after[j] == '\'')) {
      ++j;
    }
    std::string_view word = after.substr(i, j - i);
    if (word.empty() || !(word[0] >= 'A' && word[0] <= 'Z')) break;
    const bool last = word.back() == '.' && word.size() > 3;  // "Seattle." ends the sentence; "St." does not
    if (last) word.remove_suffix(1);
    if (!out.empty()) out.push_back(' ');
    out.append(word);
    ++words;
    i = j;
    if (last || (i < after.size() && after[i] != ' ')) break;
  }
  return out;
}

// Two to six Chinese characters up to "的" or punctuation: "北京", "深圳南山区".
std::string ChinesePlace(std::string_view after, bool needs_de) {
  size_t i = 0, n = 0;
  while (i < after.size()) {
    size_t next = i;
    const char32_t cp = common::DecodeUtf8(after, &next);
    if (cp < 0x4E00 || cp > 0x9FFF || after.substr(i, next - i) == "的") break;
    i = next;
    ++n;
  }
  if (n < 2 || n > 6) return "";
  const std::string_view rest = after.substr(i);
  if (Starts(rest, "的")) return std::string(after.substr(0, i));
  if (needs_de) return "";
  for (std::string_view stop : {"，", "。", "；", ",", ".", ";", "、"}) {
    if (Starts(rest, stop)) return std::string(after.substr(0, i));
  }
  return rest.empty() ? std::string(after.substr(0, i)) : "";
}

}  // namespace

std::vector<SentencePlace> ReadSentencePlaces(std::string_view line, const std::vector<std::string>& self) {
  std::vector<SentencePlace> out;
  // Most lines say none of the phrases: a cheap look first.
  bool maybe = false;
  for (std::string_view w : {"ed in ", "es in ", "位于", "总部", "坐落", "常驻", "住在", "定居"}) {
    maybe = maybe || line.find(w) != std::string_view::npos;
  }
  if (!maybe) return out;
  std::string_view t = line;
  if (!StripLineLead(&t)) return out;
  const std::string clean = CleanLine(t);
  if (clean.find(kBlocker) != std::string::npos) return out;
  // One sentence at a time; a question states nothing.
  size_t start = 0;
  while (start < clean.size()) {
    size_t end = clean.size();
    for (std::string_view stop : {"。", "；", "！", "？", "; ", "! ", "? ", ". "}) end = std::min(end, clean.find(stop, start));
    const std::string_view sentence = std::string_view(clean).substr(start, end - start);
    const bool asks = end < clean.size() && (clean.compare(end, 3, "？") == 0 || clean[end] == '?');
    start = end == clean.size() ? end : end + (static_cast<unsigned char>(clean[end]) >= 0x80 ? 3 : 2);
    if (asks) continue;
    const std::string lower = common::AsciiLower(sentence);
    bool done = false;
    for (std::string_view phrase : {"is headquartered in ", "headquartered in ", "is based in ", "based in ",
                                    "is located in ", "located in ", "lives in "}) {
      const size_t at = lower.find(phrase);
      if (at == std::string::npos || (at > 0 && lower[at - 1] != ' ')) continue;
      const std::string_view lead = sentence.substr(0, at);
      if (lead.find("[[") != std::string_view::npos) break;  // a linked subject: a relation, not the page
      if (!EnFiller(common::AsciiLower(lead)) && !EnFiller(common::AsciiLower(WithoutSelfName(lead, self)))) break;
      std::string place = EnglishPlace(sentence.substr(at + phrase.size()));
      if (!place.empty()) out.push_back({std::move(place), "en.location.text"});
      done = true;
      break;
    }
    if (done) continue;
    for (std::string_view phrase : {"总部位于", "总部设在", "总部在", "位于", "坐落于", "常驻", "住在", "定居在"}) {
      const size_t at = sentence.find(phrase);
      if (at == std::string_view::npos) continue;
      std::string lead(common::TrimSpace(sentence.substr(0, at)));
      if (lead.find("[[") != std::string::npos) break;
      // "X是一家位于深圳的公司", "X的总部在北京": the page's name, then "是一家…的" or "的".
      bool needs_de = false;
      for (std::string_view tail : {"是一家", "是一个", "是一所", "是"}) {
        if (Ends(lead, tail)) {
          lead.resize(lead.size() - tail.size());
          needs_de = true;
          break;
        }
      }
      if (!needs_de && Ends(lead, "的") && Starts(phrase, "总部")) lead.resize(lead.size() - 3);
      const std::string rest = WithoutSelfName(lead, self);
      if (!ZhFiller(lead) && !ZhFiller(rest)) break;
      std::string place = ChinesePlace(sentence.substr(at + phrase.size()), needs_de);
      if (!place.empty()) out.push_back({std::move(place), "zh.location.text"});
      break;
    }
  }
  return out;
}

}  // namespace engram::text
