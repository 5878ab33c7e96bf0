#include "graph/answer.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

#include "common/files.h"
#include "common/utf8.h"
#include "graph/entities.h"
#include "graph/traverse.h"

namespace engram::graph {

namespace {

// Facts of one predicate are also stated the other way round: a company's
// `founder: [[x]]` says x founded it.
std::string Converse(std::string_view predicate) {
  static const std::map<std::string, std::string, std::less<>> kPairs = {
      {"founded", "founded_by"},      {"founded_by", "founded"},   {"invested_in", "invested_by"},
      {"invested_by", "invested_in"}, {"attended", "attended_by"}, {"attended_by", "attended"},
      {"authored", "authored_by"},    {"authored_by", "authored"}, {"acquired", "acquired_by"},
      {"acquired_by", "acquired"},    {"advises", "advised_by"},   {"advised_by", "advises"}};
  auto it = kPairs.find(predicate);
  return it == kPairs.end() ? "" : it->second;
}

// Lower-case words of a name (letters and digits; each CJK character alone).
std::vector<std::string> Words(std::string_view text) {
  static const std::set<std::string, std::less<>> kStop = {"the", "a",   "an", "of",  "on",
                                                           "in",  "and", "at", "for", "to"};
  std::vector<std::string> out;
  const std::string f = FoldName(text);
  std::string word;
  size_t i = 0;
  auto flush = [&] {
    if (!word.empty() && !kStop.count(word)) out.push_back(word);
    word.clear();
  };
  while (i < f.size()) {
    const size_t start = i;
    const char32_t cp = common::DecodeUtf8(f, &i);
    if (cp >= 0x3400 && cp <= 0x9FFF) {
      flush();
      out.push_back(f.substr(start, i - start));
    } else if (common::IsWordChar(cp)) {
      word += f.substr(start, i - start);
    } else {
      flush();
    }
  }
  flush();
  return out;
}

Result<std::vector<std::string>> PagesNamedIn(PageStore& store, const ReadScope& scope, std::string_view query,
                                              size_t limit, const GraphRules* entities_only);

struct Resolved {
  std::string slug, title, note;
};

// The one page a name means: the strongest candidates, entities preferred;
// a note when none or more than one.
Result<Resolved> ResolveOne(PageStore& store, const ReadScope& scope, std::string_view name, const GraphRules& rules,
                            bool described = true) {
  std::vector<std::string> tries = {std::string(name)};
  const std::string lower = common::AsciiLower(name);
  if (lower.rfind("the ", 0) == 0) tries.push_back(std::string(name.substr(4)));
  for (const std::string& n : tries) {
    if (n.empty()) continue;
    ENGRAM_ASSIGN_OR_RETURN(std::vector<EntityCandidate> found, ResolveEntity(store, scope, n, rules));
    if (found.size() > 1) {
      std::vector<EntityCandidate> entities;
      for (const EntityCandidate& c : found) {
        if (c.is_entity) entities.push_back(c);
      }
      if (!entities.empty()) found = std::move(entities);
    }
    if (found.size() == 1) return Resolved{found[0].slug, found[0].title, ""};
    if (found.size() > 1) {
      std::string note = "'" + n + "' may be:";
      for (const EntityCandidate& c : found) note += " " + c.slug + " (" + c.reason + ")";
      return Resolved{"", "", note};
    }
  }
  if (!described) return Resolved{"", "", "no page is named '" + std::string(name) + "'"};
  // A description around a name ("《台灣客戶需求》这篇笔记", "the Northwind kickoff meeting"): the
  // page whose title or alias is the longest name inside it, else the one whose title shares
  // the most words with it (two at least, and half its title).
  ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> inside, PagesNamedIn(store, scope, name, 1, nullptr));
  if (!inside.empty()) {
    auto page = store.GetPage(scope, inside[0]);
    if (page.ok()) return Resolved{page->slug, page->title, ""};
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<PageNames> pages, store.AllPageNames(scope));
  const std::vector<std::string> words = Words(name);
  const PageNames* best = nullptr;
  size_t best_shared = 0;
  bool tie = false;
  for (const PageNames& p : pages) {
    const std::vector<std::string> title = Words(p.title);
    size_t shared = 0;
    for (const std::string& w : title) shared += std::find(words.begin(), words.end(), w) != words.end();
    if (shared < 2 || shared * 2 < title.size()) continue;
    if (shared > best_shared)
      best = &p, best_shared = shared, tie = false;
    else if (shared == best_shared)
      tie = true;
  }
  if (best != nullptr && !tie) return Resolved{best->slug, best->title, ""};
  return Resolved{"", "", "no page is named '" + std::string(name) + "'"};
}

AnswerItem FromFact(const Fact& f, bool answer_is_subject) {
  AnswerItem it;
  if (answer_is_subject) {
    it.slug = f.subject_slug;
    it.title = f.subject_title;
  } else {
    it.slug = f.value_slug;
    it.title = f.value;
  }
  it.predicate = f.predicate;
  it.subject_slug = f.subject_slug;
  it.valid_from = f.valid_from.empty() ? f.implied_from : f.valid_from;
  it.valid_until = f.valid_until;
  it.holds = f.holds;
  it.in_conflict = f.in_conflict;
  it.source_path = f.source_path;
  it.line = f.line;
  it.evidence = f.origin;
  return it;
}

// Words of a when-question's event that a timeline line should say.
std::vector<std::string> TopicWords(std::string_view topic) {
  static const std::set<std::string, std::less<>> kStop = {
      "the",   "a",        "an",     "to",     "of",    "at",    "in",   "on",   "did",   "does", "was",
      "were",  "is",       "get",    "got",    "their", "his",   "her",  "its",  "for",   "with", "and",
      "first", "become",   "became", "happen", "take",  "place", "when", "what", "which", "date", "day",
      "year",  "happened", "什么",   "么时",   "时候",  "哪天",  "哪一", "一天"};
  std::vector<std::string> out;
  const std::string lower = common::ToLower(topic);
  size_t i = 0;
  std::string word;
  auto flush = [&] {
    if (!word.empty() && !kStop.count(word)) out.push_back(word);
    word.clear();
  };
  std::string prev_cjk;
  while (i < lower.size()) {
    const size_t start = i;
    const char32_t cp = common::DecodeUtf8(lower, &i);
    const std::string ch = lower.substr(start, i - start);
    if (cp >= 0x3400 && cp <= 0x9FFF) {
      flush();
      if (!prev_cjk.empty()) out.push_back(prev_cjk + ch);  // CJK bigrams
      prev_cjk = ch;
      continue;
    }
    prev_cjk.clear();
    if (common::IsWordChar(cp))
      word += ch;
    else
      flush();
  }
  flush();
  return out;
}

// How many of the topic's words a line says ("joined" says "join", "promoted" says "promote").
int TopicScore(const std::vector<std::string>& words, std::string_view line) {
  const std::string lower = common::ToLower(line);
  int score = 0;
  for (const std::string& w : words) {
    const std::string stem = w.size() > 5 ? w.substr(0, w.size() - 2) : w;
    if (lower.find(stem) != std::string::npos) ++score;
  }
  return score;
}

Status AnswerFact(PageStore& store, const ReadScope& scope, const GraphQuestion& q, const GraphRules& rules,
                  GraphAnswer* a) {
  ENGRAM_ASSIGN_OR_RETURN(FactSheet sheet, FactsAbout(store, scope, a->entity_slug, rules, a->as_of));
  std::vector<AnswerItem> past;
  for (const Fact& f : sheet.facts) {
    if (f.predicate != q.predicate) continue;
    (f.holds ? a->items : past).push_back(FromFact(f, false));
  }
  const std::string converse = Converse(q.predicate);
  if (!converse.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<Fact> pointing, FactsPointingAt(store, scope, a->entity_slug, rules, a->as_of));
    for (const Fact& f : pointing) {
      if (f.predicate == converse && f.holds) a->items.push_back(FromFact(f, true));
    }
  }
  // Two values that disagree: the one a dated line says began latest is the best guess; the
  // conflict is named in the note.
  if (a->items.size() > 1 && rules.IsSingleValued(q.predicate) &&
      std::all_of(a->items.begin(), a->items.end(), [](const AnswerItem& it) { return it.in_conflict; })) {
    auto latest = std::max_element(a->items.begin(), a->items.end(), [](const AnswerItem& x, const AnswerItem& y) {
      return x.valid_from < y.valid_from;
    });
    if (!latest->valid_from.empty()) {
      std::string others;
      for (const AnswerItem& it : a->items) {
        if (&it != &*latest) others += " " + it.title + " (" + it.source_path + ":" + std::to_string(it.line) + ")";
      }
      AnswerItem keep = *latest;
      a->items = {keep};
      a->note = "in conflict with:" + others;
    }
  }
  if (a->items.empty() && !past.empty()) {
    a->note = "nothing about " + q.predicate + " holds at " + a->as_of + "; earlier or later:";
    for (const AnswerItem& p : past) a->note += " " + p.title + " (" + p.valid_from + ".." + p.valid_until + ")";
  }
  // A founding or birth no fact states: the entity's own dated line that says it.
  if (a->items.empty() && past.empty() && (q.predicate == "founded" || q.predicate == "born")) {
    static const std::vector<std::string> kFounded = {"found", "成立",        "创办",         "创立",
                                                      "創立",  "established", "incorporated", "launched"};
    static const std::vector<std::string> kBorn = {"born", "出生", "生于"};
    const auto& words = q.predicate == "born" ? kBorn : kFounded;
    ENGRAM_ASSIGN_OR_RETURN(StoredPage page, store.GetPage(scope, a->entity_slug));
    ENGRAM_ASSIGN_OR_RETURN(std::vector<DatedEntry> own, store.TimelineBetween(scope, "", "", page.id));
    for (const DatedEntry& e : own) {
      const std::string lower = common::ToLower(e.entry.summary);
      if (std::none_of(words.begin(), words.end(),
                       [&](const std::string& w) { return lower.find(w) != std::string::npos; })) {
        continue;
      }
      AnswerItem it;
      it.title = e.entry.date;
      it.predicate = q.predicate;
      it.subject_slug = page.slug;
      it.valid_from = e.entry.date;
      it.source_path = page.path;
      it.line = e.entry.line;
      it.evidence = e.entry.summary;
      a->items.push_back(std::move(it));
      break;
    }
  }
  return Status::Ok();
}

Status AnswerInverse(PageStore& store, const ReadScope& scope, const GraphQuestion& q, const GraphRules& rules,
                     GraphAnswer* a) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<Fact> pointing, FactsPointingAt(store, scope, a->entity_slug, rules, a->as_of));
  for (const Fact& f : pointing) {
    if (f.predicate == q.predicate && f.holds) a->items.push_back(FromFact(f, true));
  }
  const std::string converse = Converse(q.predicate);
  if (!converse.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(FactSheet sheet, FactsAbout(store, scope, a->entity_slug, rules, a->as_of));
    for (const Fact& f : sheet.facts) {
      if (f.predicate == converse && f.holds) a->items.push_back(FromFact(f, false));
    }
  }
  return Status::Ok();
}

Status AnswerConflict(PageStore& store, const ReadScope& scope, const GraphQuestion& q, const GraphRules& rules,
                      GraphAnswer* a) {
  std::vector<Conflict> conflicts;
  if (a->entity_slug.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(conflicts, AllConflicts(store, scope, rules, a->as_of));
  } else {
    ENGRAM_ASSIGN_OR_RETURN(FactSheet sheet, FactsAbout(store, scope, a->entity_slug, rules, a->as_of));
    conflicts = std::move(sheet.conflicts);
  }
  for (const Conflict& c : conflicts) {
    if (!q.predicate.empty() && c.predicate != q.predicate) continue;
    for (const Fact& f : c.facts) a->items.push_back(FromFact(f, false));
  }
  if (a->items.empty()) a->note = "no conflicting facts";
  return Status::Ok();
}

Status AnswerPath(PageStore& store, const ReadScope& scope, GraphAnswer* a) {
  ENGRAM_ASSIGN_OR_RETURN(Path path, ShortestPath(store, scope, a->entity_slug, a->other_slug, WalkLimits{}));
  if (!path.found) {
    a->note = path.truncated ? "the search stopped before it found a path" : "no chain of links connects them";
    return Status::Ok();
  }
  std::string at = a->entity_slug;
  a->items.push_back({at, a->entity_title, "start", "", "", "", true, false, "", 0, ""});
  for (const Edge& e : path.edges) {
    const std::string next = e.from == at ? e.to : e.from;
    auto page = store.GetPage(scope, next);
    AnswerItem it;
    it.slug = next;
    it.title = page.ok() ? page->title : next;
    it.predicate = e.type;
    it.subject_slug = e.from;
    it.evidence = e.from + " -> " + e.to + ": " + e.context;
    a->items.push_back(std::move(it));
    at = next;
  }
  return Status::Ok();
}

Status AnswerWhen(PageStore& store, const ReadScope& scope, const GraphQuestion& q, GraphAnswer* a) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<DatedEntry> entries,
                          MergedTimeline(store, scope, a->entity_slug, q.since, q.until, 500));
  const std::vector<std::string> words = TopicWords(q.topic);
  int best = 0;
  std::vector<std::pair<int, const DatedEntry*>> scored;
  for (const DatedEntry& e : entries) {
    const int s = words.empty() ? 1 : TopicScore(words, e.entry.summary);
    best = std::max(best, s);
    scored.push_back({s, &e});
  }
  for (const auto& [s, e] : scored) {
    if (s == 0 || s < best) continue;
    AnswerItem it;
    it.slug = e->page_slug;
    it.title = e->entry.summary;
    it.predicate = "timeline";
    it.subject_slug = e->page_slug;
    it.valid_from = e->entry.date;
    ENGRAM_ASSIGN_OR_RETURN(std::optional<PageNames> names, PageNamed(store, scope, e->page_slug));
    it.source_path = names ? names->path : e->page_slug;  // the file the line is in
    it.line = e->entry.line;
    it.evidence = e->entry.source;
    a->items.push_back(std::move(it));
  }
  if (a->items.empty()) {
    a->note = words.empty() ? "no dated lines in that period" : "no dated line says '" + q.topic + "'";
  }
  return Status::Ok();
}

}  // namespace

Result<GraphAnswer> Answer(PageStore& store, const ReadScope& scope, const GraphQuestion& q, const GraphRules& rules) {
  GraphAnswer a;
  a.question = q;
  a.as_of = q.as_of.empty() ? common::NowIso8601().substr(0, 10) : q.as_of;
  if (q.kind == QuestionKind::kNone) return a;
  GraphQuestion asked = q;
  if (q.names_in_query) {
    // Read from cue words: the pages its text names stand in for the slots.
    ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> named, PagesNamedIn(store, scope, q.text, 2, nullptr));
    if (named.empty()) {
      a.note = "the question names no page";
      if (q.kind != QuestionKind::kWhen || (q.since.empty() && q.until.empty())) return a;
    } else {
      auto page = store.GetPage(scope, named[0]);
      if (page.ok()) a.entity_slug = page->slug, a.entity_title = page->title;
      if (q.kind == QuestionKind::kPath) {
        if (named.size() < 2) {
          a.note = "a path needs two pages the question names";
          return a;
        }
        a.other_slug = named[1];
      }
    }
    switch (q.kind) {
      case QuestionKind::kConflict:
        ENGRAM_RETURN_IF_ERROR(AnswerConflict(store, scope, asked, rules, &a));
        break;
      case QuestionKind::kPath:
        ENGRAM_RETURN_IF_ERROR(AnswerPath(store, scope, &a));
        break;
      case QuestionKind::kWhen:
        ENGRAM_RETURN_IF_ERROR(AnswerWhen(store, scope, asked, &a));
        break;
      default:
        break;
    }
    a.answered = !a.items.empty();
    if (a.answered) a.note.clear();
    return a;
  }
  if (!q.entity.empty()) {
    Resolved r;
    if (q.kind == QuestionKind::kWhen && q.topic.empty()) {
      // "when did David Kim become COO": the longest leading words that name a page.
      std::vector<size_t> cuts;
      for (size_t i = 0; i < q.entity.size(); ++i) {
        if (q.entity[i] == ' ') cuts.push_back(i);
      }
      cuts.push_back(q.entity.size());
      for (auto it = cuts.rbegin(); it != cuts.rend(); ++it) {
        ENGRAM_ASSIGN_OR_RETURN(Resolved tried, ResolveOne(store, scope, q.entity.substr(0, *it), rules, false));
        if (!tried.slug.empty()) {
          r = tried;
          asked.topic = *it < q.entity.size() ? q.entity.substr(*it + 1) : "";
          break;
        }
        if (r.note.empty() || it == cuts.rbegin()) r.note = tried.note;
      }
      if (r.slug.empty()) {  // no leading words name a page: one the words name, and they all say the event
        ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> named, PagesNamedIn(store, scope, q.entity, 1, nullptr));
        if (!named.empty()) {
          auto page = store.GetPage(scope, named[0]);
          if (page.ok()) r = Resolved{page->slug, page->title, ""};
          asked.topic = q.entity;
        }
      }
    } else {
      ENGRAM_ASSIGN_OR_RETURN(r, ResolveOne(store, scope, q.entity, rules));
    }
    if (r.slug.empty()) {
      a.note = r.note;
      return a;
    }
    a.entity_slug = r.slug;
    a.entity_title = r.title;
  } else if (q.kind != QuestionKind::kConflict && q.kind != QuestionKind::kWhen) {
    return a;
  }
  a.question = asked;
  switch (q.kind) {
    case QuestionKind::kFact:
      ENGRAM_RETURN_IF_ERROR(AnswerFact(store, scope, asked, rules, &a));
      break;
    case QuestionKind::kInverse:
      ENGRAM_RETURN_IF_ERROR(AnswerInverse(store, scope, asked, rules, &a));
      break;
    case QuestionKind::kConflict:
      ENGRAM_RETURN_IF_ERROR(AnswerConflict(store, scope, asked, rules, &a));
      break;
    case QuestionKind::kPath: {
      ENGRAM_ASSIGN_OR_RETURN(Resolved other, ResolveOne(store, scope, q.other, rules));
      if (other.slug.empty()) {
        a.note = other.note;
        return a;
      }
      a.other_slug = other.slug;
      ENGRAM_RETURN_IF_ERROR(AnswerPath(store, scope, &a));
      break;
    }
    case QuestionKind::kWhen:
      ENGRAM_RETURN_IF_ERROR(AnswerWhen(store, scope, asked, &a));
      break;
    case QuestionKind::kNone:
      break;
  }
  // One item per answering page or value (a fact stated twice is one answer; its first source is kept).
  std::set<std::string> seen;
  std::vector<AnswerItem> unique;
  for (AnswerItem& it : a.items) {
    const std::string key =
        it.predicate == "timeline" || q.kind == QuestionKind::kConflict || q.kind == QuestionKind::kPath
            ? it.source_path + ":" + std::to_string(it.line) + ":" + it.slug + it.title
            : (it.slug.empty() ? common::ToLower(it.title) : it.slug);
    if (seen.insert(key).second) unique.push_back(std::move(it));
  }
  a.items = std::move(unique);
  a.answered = !a.items.empty();
  return a;
}

std::string RenderAnswer(const GraphAnswer& a) {
  std::string out;
  for (const AnswerItem& it : a.items) {
    std::string line = it.slug.empty() ? it.title : it.slug + " | " + it.title;
    if (it.predicate == "timeline")
      line = it.valid_from + " | " + it.title + " (" + it.slug + ")";
    else if (!it.predicate.empty() && it.predicate != "start")
      line += " — " + it.predicate;
    if (it.predicate != "timeline" && (!it.valid_from.empty() || !it.valid_until.empty())) {
      line += " [" + it.valid_from + ".." + it.valid_until + "]";
    }
    if (it.in_conflict) line += " (in conflict)";
    if (!it.source_path.empty() && it.predicate != "timeline") {
      line += " (" + it.source_path + ":" + std::to_string(it.line) + ")";
    }
    out += line + "\n";
  }
  if (!a.note.empty()) out += a.note + "\n";
  return out;
}

Result<std::vector<std::string>> EntitiesNamedIn(PageStore& store, const ReadScope& scope, std::string_view query,
                                                 size_t limit, const GraphRules& rules) {
  return PagesNamedIn(store, scope, query, limit, &rules);
}

namespace {

Result<std::vector<std::string>> PagesNamedIn(PageStore& store, const ReadScope& scope, std::string_view query,
                                              size_t limit, const GraphRules* entities_only) {
  std::vector<std::string> out;
  if (limit == 0) return out;
  ENGRAM_ASSIGN_OR_RETURN(std::vector<NameInText> hits, NamesInText(store, scope, query));
  // The longest names first; a name inside a longer one found is not another page.
  std::stable_sort(hits.begin(), hits.end(), [](const NameInText& a, const NameInText& b) {
    return a.size != b.size ? a.size > b.size : a.slug < b.slug;
  });
  std::vector<std::pair<size_t, size_t>> taken;
  for (const NameInText& h : hits) {
    if (out.size() >= limit) break;
    const bool overlaps = std::any_of(taken.begin(), taken.end(), [&](const auto& t) {
      return h.at < t.first + t.second && t.first < h.at + h.size;
    });
    if (overlaps || std::find(out.begin(), out.end(), h.slug) != out.end()) continue;
    if (entities_only != nullptr && !entities_only->IsEntityType(h.type)) continue;
    taken.push_back({h.at, h.size});
    out.push_back(h.slug);
  }
  return out;
}

// The first sentences of a page's compiled truth, headings and blank lines
// left out, cut at about max code points.
std::string Gist(std::string_view text, size_t max) {
  std::string out;
  size_t i = 0;
  while (i < text.size() && out.size() < max * 3) {
    size_t nl = text.find('\n', i);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = common::TrimSpace(text.substr(i, nl - i));
    i = nl + 1;
    if (line.empty() || line[0] == '#' || line[0] == '|' || line.substr(0, 3) == "```") continue;
    if (!out.empty()) out += ' ';
    out += line;
  }
  size_t points = 0, cut = 0;
  while (cut < out.size() && points < max) {
    common::DecodeUtf8(out, &cut);
    ++points;
  }
  if (cut < out.size()) return out.substr(0, cut) + "…";
  return out;
}

}  // namespace

Result<std::string> EntityCard(PageStore& store, const ReadScope& scope, std::string_view slug,
                               const GraphRules& rules) {
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, store.GetPage(scope, slug));
  std::string out = page.slug + " | " + page.title + " | " + page.type + "\n";
  const std::string gist = Gist(page.compiled_truth, 200);
  if (!gist.empty()) out += gist + "\n";
  ENGRAM_ASSIGN_OR_RETURN(FactSheet sheet, FactsAbout(store, scope, slug, rules, ""));
  std::string facts;
  std::set<std::string> shown;
  for (const Fact& f : sheet.facts) {
    if (!f.holds ||
        !shown.insert(f.predicate + "\n" + (f.value_slug.empty() ? FoldName(f.value) : f.value_slug)).second) {
      continue;
    }
    if (shown.size() > 8) break;
    facts += (facts.empty() ? "" : "; ") + f.predicate + ": " + f.value;
    const std::string& from = f.valid_from.empty() ? f.implied_from : f.valid_from;
    if (!from.empty()) facts += " (since " + from + ")";
  }
  if (!facts.empty()) out += "Facts: " + facts + "\n";
  // Typed links both ways, at most six.
  std::string relations;
  int n = 0;
  ENGRAM_ASSIGN_OR_RETURN(std::vector<ResolvedLink> outbound, store.ResolvedLinks(scope, page.id));
  for (const ResolvedLink& l : outbound) {
    if (l.type == "mentions" || l.to_slug.empty() || l.to_slug == page.slug || n >= 6) continue;
    relations += (relations.empty() ? "" : "; ") + l.type + " → " + l.to_slug;
    ++n;
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<LinkRecord> inbound, store.Backlinks(scope, page.slug));
  for (const LinkRecord& l : inbound) {
    if (l.type == "mentions" || l.from_slug == page.slug || n >= 6) continue;
    relations += (relations.empty() ? "" : "; ") + l.type + " ← " + l.from_slug;
    ++n;
  }
  if (!relations.empty()) out += "Relations: " + relations + "\n";
  for (const Conflict& c : sheet.conflicts) {
    std::string line = "Conflict: " + c.predicate + ":";
    for (size_t i = 0; i < c.facts.size(); ++i) {
      const Fact& f = c.facts[i];
      line += (i == 0 ? " " : " vs ") + f.value + " (" + f.source_path + ":" + std::to_string(f.line) + ")";
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace engram::graph
