#include "text/page_facts.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/utf8.h"
#include "text/note_date.h"
#include "text/page_links.h"
#include "text/page_parser.h"
#include "text/page_relations.h"

namespace engram::text {

namespace {

using Json = nlohmann::json;

constexpr std::array<std::string_view, 11> kFactPredicates = {
    "role", "works_at", "location", "status", "born", "died", "founded", "reports_to", "email", "nationality",
    "education"};
constexpr std::array<std::string_view, 3> kDatePredicates = {"born", "died", "founded"};

// Fields that describe the note, never a fact about its subject.
constexpr std::array<std::string_view, 19> kNoteFields = {
    "tags", "tag", "aliases", "alias", "cssclasses", "cssclass", "title", "slug", "type", "visibility",
    "date", "created", "updated", "publish", "redirect", "merged_into", "merged_at",
    "merged_type", "merged_names"};

// Headings that open a facts section.
constexpr std::array<std::string_view, 5> kFactHeadings = {"facts", "key facts", "事实", "关键事实", "事实信息"};

bool Begins(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view TrimPunct(std::string_view s) {
  s = common::TrimSpace(s);
  static constexpr std::array<std::string_view, 10> kTrail = {".", ",", ";", ":", "!", "。", "，", "；", "：", "！"};
  bool again = true;
  while (again && !s.empty()) {
    again = false;
    for (std::string_view t : kTrail) {
      if (s.size() >= t.size() && s.substr(s.size() - t.size()) == t) {
        s = common::TrimSpace(s.substr(0, s.size() - t.size()));
        again = true;
      }
    }
  }
  return s;
}

// A date that is the whole of s ("2024-03", "2024年3月", "March 2024").
std::string WholeDate(std::string_view s) {
  s = common::TrimSpace(s);
  if (s.empty()) return "";
  if (auto d = NormalizeNoteDate(s)) return d->substr(0, 10);
  size_t used = 0;
  std::string d = ParseLeadingDate(s, &used);
  if (d.empty() || !common::TrimSpace(s.substr(used)).empty()) return "";
  return d;
}

// The dates of a qualifier's text: "since D", "from D to D", "D – D", "until D",
// "as of D", "D", "自D起", "D至D", "至D". False when it is not one.
bool ReadQualifier(std::string_view q, std::string* from, std::string* until) {
  q = common::TrimSpace(q);
  std::string lower = common::AsciiLower(q);
  auto rest = [&](size_t n) { return q.substr(n); };
  for (std::string_view p : {"since ", "from ", "as of ", "starting "}) {
    if (Begins(lower, p)) {
      std::string_view r = rest(p.size());
      for (std::string_view sep : {" to ", " until ", " till "}) {
        const size_t at = common::AsciiLower(r).find(sep);
        if (at != std::string::npos) {
          *from = WholeDate(r.substr(0, at));
          *until = WholeDate(r.substr(at + sep.size()));
          return !from->empty() && !until->empty();
        }
      }
      *from = WholeDate(r);
      return !from->empty();
    }
  }
  for (std::string_view p : {"until ", "till ", "to "}) {
    if (Begins(lower, p)) {
      *until = WholeDate(rest(p.size()));
      return !until->empty();
    }
  }
  for (std::string_view p : {"自", "从", "始于"}) {
    if (Begins(q, p)) {
      std::string_view r = q.substr(p.size());
      for (std::string_view sep : {"至", "到"}) {
        const size_t at = r.find(sep);
        if (at != std::string_view::npos) {
          *from = WholeDate(r.substr(0, at));
          *until = WholeDate(TrimPunct(r.substr(at + sep.size())));
          return !from->empty() && !until->empty();
        }
      }
      for (std::string_view end : {"以来", "起"}) {
        if (r.size() >= end.size() && r.substr(r.size() - end.size()) == end) r = r.substr(0, r.size() - end.size());
      }
      *from = WholeDate(r);
      return !from->empty();
    }
  }
  if (Begins(q, "至") || Begins(q, "到")) {
    *until = WholeDate(q.substr(3));
    return !until->empty();
  }
  for (std::string_view sep : {" – ", " — ", " - ", "–", "—", " to ", "至", "到", "~"}) {
    const size_t at = q.find(sep);
    if (at != std::string_view::npos) {
      *from = WholeDate(q.substr(0, at));
      *until = WholeDate(q.substr(at + sep.size()));
      if (!from->empty() && (!until->empty() || common::TrimSpace(q.substr(at + sep.size())).empty())) return true;
      from->clear();
      until->clear();
    }
  }
  std::string_view r = q;
  if (r.size() > 3 && r.substr(r.size() - 3) == "起") r = r.substr(0, r.size() - 3);
  *from = WholeDate(r);
  return !from->empty();
}

// Splits a trailing "(…)" / "（…）" qualifier off a value when it holds dates.
void SplitQualifier(std::string* value, std::string* from, std::string* until) {
  std::string_view v = common::TrimSpace(*value);
  for (auto [open, close] : {std::pair<std::string_view, std::string_view>{"(", ")"}, {"（", "）"}}) {
    if (v.size() <= close.size() || v.substr(v.size() - close.size()) != close) continue;
    const size_t at = v.rfind(open);
    if (at == std::string_view::npos) continue;
    std::string_view inner = v.substr(at + open.size(), v.size() - close.size() - at - open.size());
    std::string f, u;
    if (ReadQualifier(inner, &f, &u)) {
      *from = f;
      *until = u;
      *value = std::string(common::TrimSpace(v.substr(0, at)));
      return;
    }
  }
}

class FactReader {
 public:
  explicit FactReader(Page* page) : page_(page) {}

  // One written value of a predicate: links in it are entity values, else
  // the text is (for a fact predicate).
  void Add(std::string_view key, std::string value, int line, std::string_view origin, std::string from = "",
           std::string until = "") {
    const std::string predicate = FieldType(key);
    if (predicate.empty()) return;
    if (from.empty() && until.empty()) SplitQualifier(&value, &from, &until);
    PageRefCollector refs(page_->path);
    refs.AddFieldValue("fact", value);
    std::vector<PageLink> links = refs.TakeLinks();
    if (!links.empty()) {
      for (PageLink& l : links) {
        if (l.type == kAttachmentLinkType) continue;
        page_->facts.push_back({"", predicate, std::move(l.target), true, from, until, line, std::string(origin)});
      }
      return;
    }
    if (!IsFactPredicate(predicate)) return;
    std::string text(TrimPunct(value));
    if (text.empty() || text.size() > 200) return;
    if (IsDatePredicate(predicate)) {
      std::string d = WholeDate(text);
      if (d.empty()) {
        page_->warnings.push_back("facts: line " + std::to_string(line) + ": " + std::string(key) + ": '" + text +
                                  "' is not a date; kept as text");
      } else {
        text = d;
      }
    }
    page_->facts.push_back({"", predicate, std::move(text), false, from, until, line, std::string(origin)});
  }

  void AddEntity(std::string_view predicate, std::string_view written, int line, const std::string& date,
                 bool ends) {
    written = TrimPunct(written);
    if (written.empty() || written.size() > 120) return;
    PageRefCollector refs(page_->path);
    refs.AddFieldValue("fact", written);
    std::vector<PageLink> links = refs.TakeLinks();
    PageFact f{"", std::string(predicate), "", false, ends ? "" : date, ends ? date : "", line, "timeline"};
    if (!links.empty()) {
      f.value = links.front().target;
      f.value_is_link = true;
    } else {
      if (written.find("[[") != std::string_view::npos) return;
      f.value = std::string(written);
    }
    page_->facts.push_back(std::move(f));
  }

  void AddText(std::string_view predicate, std::string_view text, int line, const std::string& date) {
    text = TrimPunct(text);
    if (text.empty() || text.size() > 80 || text.find("[[") != std::string_view::npos) return;
    page_->facts.push_back({"", std::string(predicate), std::string(text), false, date, "", line, "timeline"});
  }

 private:
  Page* page_;
};

// The page's untyped link to target takes the type a sentence gave it,
// unless a link of that type to target is already there.
void RetypeLink(Page* page, const std::string& target, const std::string& type) {
  for (const PageLink& l : page->links) {
    if (l.target == target && l.type == type) return;
  }
  for (PageLink& l : page->links) {
    if (l.target == target && l.type == kMentionsLinkType) {
      l.type = type;
      return;
    }
  }
}

// The file line of a top-level frontmatter key (1 when it cannot be told).
int FieldLine(std::string_view raw, std::string_view key) {
  int line = 2;  // the first line after the opening ---
  size_t i = 0;
  while (i <= raw.size()) {
    size_t nl = raw.find('\n', i);
    std::string_view l = raw.substr(i, nl == std::string_view::npos ? std::string_view::npos : nl - i);
    if (Begins(l, key)) {
      std::string_view after = common::TrimSpace(l.substr(key.size()));
      if (Begins(after, ":")) return line;
    }
    if ((Begins(l, "\"") || Begins(l, "'")) && Begins(l.substr(1), key)) return line;
    if (nl == std::string_view::npos) break;
    i = nl + 1;
    ++line;
  }
  return 1;
}

void ReadFrontmatterFacts(const Json& fm, FactReader* reader, const Page& page) {
  if (!fm.is_object()) return;
  for (const auto& [key, value] : fm.items()) {
    const std::string lower = common::AsciiLower(common::TrimSpace(key));
    if (std::find(kNoteFields.begin(), kNoteFields.end(), lower) != kNoteFields.end()) continue;
    const int line = FieldLine(page.frontmatter_raw, key);
    auto one = [&](const Json& v) {
      if (v.is_string()) {
        reader->Add(key, v.get<std::string>(), line, "frontmatter");
      } else if (v.is_number() || v.is_boolean()) {
        reader->Add(key, v.dump(), line, "frontmatter");
      } else if (v.is_array() && v.size() == 1 && v[0].is_string()) {
        reader->Add(key, "[[" + v[0].get<std::string>() + "]]", line, "frontmatter");  // unquoted [[X]]
      }
    };
    if (value.is_array()) {
      for (const Json& item : value) one(item);
    } else {
      one(value);
    }
  }
}

// "# Facts" / "## 事实": the heading's level when the line opens a facts
// section, 0 for another heading, -1 for a line that is no heading.
int HeadingLevel(std::string_view line, bool* facts) {
  size_t level = 0;
  while (level < line.size() && line[level] == '#') ++level;
  if (level == 0 || level > 6 || level >= line.size() || line[level] != ' ') return -1;
  const std::string title = common::AsciiLower(TrimPunct(line.substr(level + 1)));
  *facts = std::find(kFactHeadings.begin(), kFactHeadings.end(), title) != kFactHeadings.end();
  return static_cast<int>(level);
}

// "key: value" / "key：value" after a list marker; false when the item is not one.
bool SplitField(std::string_view item, std::string_view* key, std::string_view* value) {
  size_t colon = item.find(':');
  const size_t wide = item.find("：");
  size_t width = 1;
  if (wide != std::string_view::npos && (colon == std::string_view::npos || wide < colon)) {
    colon = wide;
    width = 3;
  }
  if (colon == std::string_view::npos || colon == 0) return false;
  *key = common::TrimSpace(item.substr(0, colon));
  *value = common::TrimSpace(item.substr(colon + width));
  if (key->empty() || key->size() > 48 || value->empty()) return false;
  return key->find_first_of("[]()`#|<>!\"*") == std::string_view::npos;
}

void ReadFactLines(const Page& page, FactReader* reader) {
  int section = 0;  // the level of the open facts heading, 0 when none
  bool in_code = false;
  int number = page.compiled_truth_line;
  size_t i = 0;
  const std::string_view text = page.compiled_truth;
  while (i <= text.size()) {
    const size_t nl = text.find('\n', i);
    const std::string_view line = text.substr(i, nl == std::string_view::npos ? std::string_view::npos : nl - i);
    const std::string_view t = common::TrimSpace(line);
    if (Begins(t, "```") || Begins(t, "~~~")) {
      in_code = !in_code;
    } else if (!in_code) {
      bool facts = false;
      const int level = HeadingLevel(t, &facts);
      if (level > 0) {
        if (facts) section = level;
        else if (section > 0 && level <= section) section = 0;
      } else if (Begins(t, "- ") || Begins(t, "* ")) {
        std::string_view item = common::TrimSpace(t.substr(2));
        std::string_view key, value;
        bool marked = false;
        for (std::string_view p : {"fact:", "Fact:", "事实：", "事实:"}) {
          if (Begins(item, p)) {
            item = common::TrimSpace(item.substr(p.size()));
            marked = true;
          }
        }
        // A trailing HTML comment is no part of the value; "<!-- llm MODEL 0.86 -->"
        // (what `facts --suggest --write` adds) names where the line came from.
        std::string origin = "fact";
        if (item.size() > 7 && item.substr(item.size() - 3) == "-->") {
          const size_t open = item.rfind("<!--");
          if (open != std::string_view::npos) {
            const std::string_view note = common::TrimSpace(item.substr(open + 4, item.size() - open - 7));
            if (note.substr(0, 4) == "llm ") origin = std::string(note);
            item = common::TrimSpace(item.substr(0, open));
          }
        }
        if ((marked || section > 0) && SplitField(item, &key, &value)) {
          reader->Add(key, std::string(value), number, origin);
        }
      }
    }
    if (nl == std::string_view::npos) break;
    i = nl + 1;
    ++number;
  }
}

// Where the first of words occurs in s (case-insensitive for ASCII), npos when none.
size_t FindWord(const std::string& lower, std::string_view word, size_t from = 0) {
  size_t at = lower.find(word, from);
  while (at != std::string::npos) {
    const bool start_ok = at == 0 || !std::isalnum(static_cast<unsigned char>(lower[at - 1]));
    if (start_ok) return at;
    at = lower.find(word, at + 1);
  }
  return std::string::npos;
}

// Text up to the first stop ("as", "at", punctuation), for a role or place.
std::string_view UpToStop(std::string_view s, bool latin) {
  size_t end = s.size();
  static constexpr std::array<std::string_view, 16> kStops = {
      ",", ";", ".", "(", "[", "（", "，", "。", "；", "、", "：", ":", "|", "!", "?", "？"};
  for (std::string_view stop : kStops) {
    // A dot inside a word ("Ph.D", "Node.js") is not the end of the phrase.
    size_t at = s.find(stop);
    while (stop == "." && at != std::string_view::npos && at + 1 < s.size() && s[at + 1] != ' ') {
      at = s.find(stop, at + 1);
    }
    end = std::min(end, at);
  }
  if (latin) {
    const std::string lower = common::AsciiLower(s.substr(0, end));
    for (std::string_view w : {" at ", " in ", " on ", " for ", " since ", " and ", " with ", " from ", " after ",
                               " to ", " where ", " as "}) {
      end = std::min(end, lower.find(w));
    }
  } else {
    for (std::string_view w : {"并", "和", "后", "以来"}) end = std::min(end, s.find(w));
  }
  return s.substr(0, end);
}

// The entity a timeline phrase names: a [[link]] at its start, else its text
// up to a stop word.
std::string_view EntityAt(std::string_view s, bool latin) {
  s = common::TrimSpace(s);
  if (Begins(s, "[[")) {
    const size_t end = s.find("]]");
    return end == std::string_view::npos ? std::string_view() : s.substr(0, end + 2);
  }
  if (Begins(common::AsciiLower(s), "the ")) return {};  // "joined the call": not an organisation's name
  std::string_view e = UpToStop(s, latin);
  if (latin) {
    const size_t as = common::AsciiLower(e).find(" as ");
    if (as != std::string::npos) e = e.substr(0, as);
    if (e.empty() || !(e[0] >= 'A' && e[0] <= 'Z')) return {};  // names are capitalised
  } else {
    for (std::string_view w : {"担任", "出任", "任职", "任"}) e = e.substr(0, std::min(e.size(), e.find(w)));
  }
  return common::TrimSpace(e);
}

void ReadTimelineFacts(const Page& page, FactReader* reader) {
  for (const TimelineEntry& e : page.timeline_entries) {
    const std::string_view s = e.summary;
    const std::string lower = common::AsciiLower(s);
    const int line = e.line;
    // English.
    if (size_t at = FindWord(lower, "joined "); at != std::string::npos) {
      std::string_view rest = s.substr(at + 7);
      std::string_view entity = EntityAt(rest, true);
      const std::string rest_lower = common::AsciiLower(rest);
      const size_t as = rest_lower.find(" as ");
      if (!entity.empty() && (Begins(entity, "[[") || as != std::string::npos)) {
        reader->AddEntity("works_at", entity, line, e.date, false);
        if (as != std::string::npos) reader->AddText("role", UpToStop(rest.substr(as + 4), true), line, e.date);
      }
    }
    for (std::string_view p : {"promoted to ", "appointed as ", "appointed ", "named as ", "took over as ",
                               "started as ", "became the ", "became "}) {
      const size_t at = FindWord(lower, p);
      if (at == std::string::npos) continue;
      std::string_view rest = s.substr(at + p.size());
      std::string_view role = UpToStop(rest, true);
      // "became" says a role only when an organisation follows ("became CTO of [[x]]"),
      // not in "became friends" or "became clear".
      const std::string after = common::AsciiLower(rest.substr(role.size()));
      if (Begins(p, "became") && !(Begins(after, " at ") || Begins(after, " of "))) break;
      reader->AddText("role", role, line, e.date);
      break;
    }
    for (std::string_view p : {"left ", "departed ", "resigned from "}) {
      const size_t at = FindWord(lower, p);
      if (at == std::string::npos) continue;
      std::string_view entity = EntityAt(s.substr(at + p.size()), true);
      if (!entity.empty()) reader->AddEntity("works_at", entity, line, e.date, true);
      break;
    }
    for (std::string_view p : {"moved to ", "relocated to "}) {
      const size_t at = FindWord(lower, p);
      if (at == std::string::npos) continue;
      std::string_view place = EntityAt(s.substr(at + p.size()), true);
      if (!place.empty()) reader->AddEntity("location", place, line, e.date, false);
      break;
    }
    // Chinese.
    if (size_t at = s.find("加入"); at != std::string_view::npos) {
      std::string_view rest = s.substr(at + 6);
      std::string_view entity = EntityAt(rest, false);
      size_t role_at = std::string_view::npos;
      size_t skip = 0;
      for (std::string_view w : {"担任", "出任", "任"}) {
        role_at = rest.find(w, entity.size());
        if (role_at != std::string_view::npos) {
          skip = w.size();
          break;
        }
      }
      if (!entity.empty() && (Begins(entity, "[[") || role_at != std::string_view::npos)) {
        reader->AddEntity("works_at", entity, line, e.date, false);
        if (role_at != std::string_view::npos) {
          reader->AddText("role", UpToStop(rest.substr(role_at + skip), false), line, e.date);
        }
      }
    } else {
      for (std::string_view p : {"升任", "晋升为", "被任命为", "任命为", "出任", "担任"}) {
        const size_t at = s.find(p);
        if (at == std::string_view::npos) continue;
        reader->AddText("role", UpToStop(s.substr(at + p.size()), false), line, e.date);
        break;
      }
    }
    for (std::string_view p : {"离开", "离职于"}) {
      const size_t at = s.find(p);
      if (at == std::string_view::npos) continue;
      std::string_view entity = EntityAt(s.substr(at + p.size()), false);
      if (!entity.empty()) reader->AddEntity("works_at", entity, line, e.date, true);
      break;
    }
    for (std::string_view p : {"搬到", "搬至", "迁往", "迁至", "移居", "常驻"}) {
      const size_t at = s.find(p);
      if (at == std::string_view::npos) continue;
      std::string_view place = EntityAt(s.substr(at + p.size()), false);
      if (!place.empty()) reader->AddEntity("location", place, line, e.date, false);
      break;
    }
  }
}

// Relations sentences state (text/page_relations.h), in compiled truth and
// timeline lines outside code and facts sections. A timeline line's relation
// holds from its entry's date, another from the note's own date when it has
// one (a meeting note of 2026-03-12 says what held then); one the timeline
// reader already took is not repeated. A relation whose subject is the page
// also types the page's link.
void ReadSentenceFacts(Page* page) {
  std::map<int, std::string> dates;  // timeline line -> its entry's date
  for (const TimelineEntry& e : page->timeline_entries) dates[e.line] = e.date;
  const size_t stated = page->facts.size();
  std::vector<std::string> self = page->aliases;
  if (!page->title.empty()) self.push_back(page->title);
  auto scan = [&](std::string_view text, int number) {
    int section = 0;
    bool in_code = false;
    size_t i = 0;
    while (i <= text.size()) {
      const size_t nl = text.find('\n', i);
      const std::string_view line = text.substr(i, nl == std::string_view::npos ? std::string_view::npos : nl - i);
      const std::string_view t = common::TrimSpace(line);
      bool facts = false;
      const int level = HeadingLevel(t, &facts);
      if (Begins(t, "```") || Begins(t, "~~~")) {
        in_code = !in_code;
      } else if (!in_code && level > 0) {
        if (facts) section = level;
        else if (section > 0 && level <= section) section = 0;
      } else if (!in_code && section == 0) {
        // A place named in plain text in a sentence about the page (not in a timeline line).
        if (!dates.count(number)) {
          for (SentencePlace& p : ReadSentencePlaces(line, self)) {
            page->facts.push_back({"", "location", std::move(p.value), false, page->created.substr(0, 10), "",
                                   number, "pattern:" + p.pattern});
          }
        }
        if (line.find("[[") == std::string_view::npos) {
          if (nl == std::string_view::npos) break;
          i = nl + 1;
          ++number;
          continue;
        }
        auto date = dates.find(number);
        for (SentenceRelation& r : ReadSentenceRelations(line, page->path, self)) {
          PageFact f{r.subject, r.type, r.object.empty() ? page->slug : r.object, true,
                     date == dates.end() ? page->created.substr(0, 10) : date->second, "", number,
                     "pattern:" + r.pattern};
          const bool known = std::any_of(page->facts.begin(), page->facts.begin() + stated, [&](const PageFact& g) {
            return g.line == f.line && g.subject == f.subject && g.predicate == f.predicate && g.value == f.value;
          });
          if (known || f.value.empty()) continue;
          if (f.subject.empty()) RetypeLink(page, f.value, f.predicate);
          if (!r.role.empty()) {
            PageFact role{f.subject, "role", r.role, false, f.valid_from, "", number, f.origin};
            page->facts.push_back(std::move(f));
            page->facts.push_back(std::move(role));
            continue;
          }
          page->facts.push_back(std::move(f));
        }
      }
      if (nl == std::string_view::npos) break;
      i = nl + 1;
      ++number;
    }
  };
  scan(page->compiled_truth, page->compiled_truth_line);
  if (page->timeline_line > 0) scan(page->timeline, page->timeline_line);
}

}  // namespace

bool IsFactPredicate(std::string_view predicate) {
  return std::find(kFactPredicates.begin(), kFactPredicates.end(), predicate) != kFactPredicates.end();
}

bool IsDatePredicate(std::string_view predicate) {
  return std::find(kDatePredicates.begin(), kDatePredicates.end(), predicate) != kDatePredicates.end();
}

void ReadPageFacts(const nlohmann::json& frontmatter, Page* page) {
  FactReader reader(page);
  ReadFrontmatterFacts(frontmatter, &reader, *page);
  ReadFactLines(*page, &reader);
  ReadTimelineFacts(*page, &reader);
  ReadSentenceFacts(page);
}

}  // namespace engram::text
