#include "graph/facts.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "common/files.h"
#include "common/utf8.h"
#include "graph/entities.h"
#include "text/page_facts.h"
#include "text/page_parser.h"

namespace engram::graph {

namespace {

// What two values are compared by: the entity page, else the folded text.
std::string ValueKey(const Fact& f) {
  return f.value_slug.empty() ? "text:" + FoldName(f.value) : "page:" + f.value_slug;
}

bool Holds(const Fact& f, std::string_view at) {
  const std::string& from = f.valid_from.empty() ? f.implied_from : f.valid_from;
  return (from.empty() || from <= at) && (f.valid_until.empty() || f.valid_until > at);
}

// Facts as read from the store, their text values named by a page's title or
// alias resolved to that page when exactly one page has the name.
Result<std::vector<Fact>> ReadFacts(PageStore& store, const ReadScope& scope, std::optional<PageId> page,
                                    PageStore::FactSide side = PageStore::FactSide::kAbout) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<FactRecord> rows, store.Facts(scope, page, side));
  std::map<std::string, std::set<std::pair<std::string, std::string>>> by_name;  // lower name -> (slug, title)
  bool names_read = false;
  std::vector<Fact> out;
  out.reserve(rows.size());
  for (FactRecord& r : rows) {
    Fact f;
    f.id = r.id;
    // A subject no page answers to stays as written.
    f.subject_slug = r.subject_slug.empty() ? r.fact.subject : r.subject_slug;
    f.subject_title = r.subject_slug.empty() ? r.fact.subject : r.subject_title;
    f.predicate = r.fact.predicate;
    f.valid_from = r.fact.valid_from;
    f.valid_until = r.fact.valid_until;
    f.source_slug = r.page_slug;
    f.source_path = r.page_path;
    f.line = r.fact.line;
    f.origin = r.fact.origin;
    f.recorded_at = r.recorded_at;
    f.entity_value = r.fact.value_is_link;
    if (r.fact.value_is_link) {
      f.value_slug = r.value_slug;
      f.value = r.value_slug.empty() ? r.fact.value : r.value_title;
    } else {
      f.value = r.fact.value;
      if (!names_read) {
        ENGRAM_ASSIGN_OR_RETURN(std::vector<PageNames> names, store.AllPageNames(scope));
        for (const PageNames& n : names) {
          by_name[common::ToLower(n.title)].insert({n.slug, n.title});
          for (const std::string& a : n.aliases) by_name[common::ToLower(a)].insert({n.slug, n.title});
        }
        names_read = true;
      }
      auto it = by_name.find(common::ToLower(f.value));
      if (it != by_name.end() && it->second.size() == 1) {
        f.value_slug = it->second.begin()->first;
        f.value = it->second.begin()->second;
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

std::string NormalizeFactDate(std::string_view date) {
  date = common::TrimSpace(date);
  size_t used = 0;
  std::string d = text::ParseLeadingDate(date, &used);
  if (d.empty() || used != date.size()) return "";
  return d;
}

FactSheet Settle(std::vector<Fact> facts, const GraphRules& rules, std::string_view as_of) {
  const std::string at = as_of.empty() ? common::NowIso8601().substr(0, 10) : std::string(as_of);
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> groups;  // (subject, predicate) -> facts
  for (size_t i = 0; i < facts.size(); ++i) groups[{facts[i].subject_slug, facts[i].predicate}].push_back(i);
  FactSheet sheet;
  for (auto& [key, members] : groups) {
    // "left X": closes the open fact of value X that began before it.
    for (size_t e : members) {
      Fact& end = facts[e];
      if (!end.valid_from.empty() || end.valid_until.empty()) continue;
      for (size_t o : members) {
        Fact& open = facts[o];
        if (o == e || !open.valid_until.empty() || ValueKey(open) != ValueKey(end)) continue;
        if (open.valid_from.empty() || open.valid_from > end.valid_until) continue;
        open.valid_until = end.valid_until;
        open.superseded_by = end.id;
      }
    }
    // "founded: 2019" has one value; "founded [[x]]" and "founded [[y]]" are two companies.
    const bool single = rules.IsSingleValued(key.second) &&
                        !(text::IsDatePredicate(key.second) &&
                          std::any_of(members.begin(), members.end(), [&](size_t i) { return facts[i].entity_value; }));
    if (single) {
      std::vector<size_t> dated;
      for (size_t i : members) {
        if (!facts[i].valid_from.empty()) dated.push_back(i);
      }
      std::stable_sort(dated.begin(), dated.end(), [&](size_t a, size_t b) {
        return std::tie(facts[a].valid_from, facts[a].line) < std::tie(facts[b].valid_from, facts[b].line);
      });
      for (size_t i : members) {
        Fact& u = facts[i];
        if (!u.valid_from.empty() || !u.valid_until.empty()) continue;
        for (size_t d : dated) {
          if (ValueKey(facts[d]) == ValueKey(u)) u.implied_from = facts[d].valid_from;  // the latest wins
        }
      }
      for (size_t k = 0; k < dated.size(); ++k) {
        Fact& f = facts[dated[k]];
        if (!f.valid_until.empty()) continue;
        for (size_t n = k + 1; n < dated.size(); ++n) {
          const Fact& next = facts[dated[n]];
          if (next.valid_from > f.valid_from && ValueKey(next) != ValueKey(f)) {
            f.valid_until = next.valid_from;
            f.superseded_by = next.id;
            break;
          }
        }
      }
    }
    std::map<std::string, std::vector<size_t>> holding;  // value key -> facts that hold at `at`
    for (size_t i : members) {
      facts[i].holds = Holds(facts[i], at);
      if (facts[i].holds) holding[ValueKey(facts[i])].push_back(i);
    }
    if (single && holding.size() > 1) {
      Conflict c{key.first, facts[members.front()].subject_title, key.second, {}};
      for (auto& [value, ids] : holding) {
        for (size_t i : ids) {
          facts[i].in_conflict = true;
          c.facts.push_back(facts[i]);
        }
      }
      sheet.conflicts.push_back(std::move(c));
    }
  }
  std::stable_sort(facts.begin(), facts.end(), [](const Fact& a, const Fact& b) {
    return std::tie(a.subject_slug, a.predicate, a.valid_from, a.source_slug, a.line) <
           std::tie(b.subject_slug, b.predicate, b.valid_from, b.source_slug, b.line);
  });
  sheet.facts = std::move(facts);
  return sheet;
}

Result<FactSheet> FactsAbout(PageStore& store, const ReadScope& scope, std::string_view slug, const GraphRules& rules,
                             std::string_view as_of) {
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, store.GetPage(scope, slug));
  ENGRAM_ASSIGN_OR_RETURN(std::vector<Fact> facts, ReadFacts(store, scope, page.id));
  return Settle(std::move(facts), rules, as_of);
}

Result<std::vector<Fact>> FactsPointingAt(PageStore& store, const ReadScope& scope, std::string_view slug,
                                          const GraphRules& rules, std::string_view as_of) {
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, store.GetPage(scope, slug));
  ENGRAM_ASSIGN_OR_RETURN(std::vector<Fact> naming, ReadFacts(store, scope, page.id, PageStore::FactSide::kValue));
  std::set<std::string> subjects;
  for (const Fact& f : naming) subjects.insert(f.subject_slug);
  std::vector<Fact> out;
  for (const std::string& subject : subjects) {
    // Settled with everything else about its subject: a later value elsewhere closes it.
    auto sheet = FactsAbout(store, scope, subject, rules, as_of);
    if (!sheet.ok()) {
      if (sheet.status().code() == StatusCode::kNotFound) continue;  // no page answers to the subject
      return sheet.status();
    }
    for (Fact& f : sheet->facts) {
      if (f.value_slug == page.slug) out.push_back(std::move(f));
    }
  }
  std::sort(out.begin(), out.end(), [](const Fact& a, const Fact& b) {
    return std::tie(a.predicate, a.subject_slug, a.valid_from, a.line) <
           std::tie(b.predicate, b.subject_slug, b.valid_from, b.line);
  });
  return out;
}

Result<std::vector<Conflict>> AllConflicts(PageStore& store, const ReadScope& scope, const GraphRules& rules,
                                           std::string_view as_of) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<Fact> facts, ReadFacts(store, scope, std::nullopt));
  return Settle(std::move(facts), rules, as_of).conflicts;
}

Result<std::vector<DatedEntry>> MergedTimeline(PageStore& store, const ReadScope& scope, std::string_view entity,
                                               std::string_view since, std::string_view until, size_t limit) {
  std::vector<DatedEntry> out;
  if (entity.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(out, store.TimelineBetween(scope, since, until, std::nullopt));
  } else {
    ENGRAM_ASSIGN_OR_RETURN(StoredPage page, store.GetPage(scope, entity));
    ENGRAM_ASSIGN_OR_RETURN(out, store.TimelineBetween(scope, since, until, page.id));
    // Names the entity goes by, folded: a linking page's line that says one is about it.
    std::vector<std::string> names = {FoldName(page.slug), FoldName(page.title)};
    ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> aliases, store.PageAliases(page.id));
    for (const std::string& a : aliases) {
      if (CompactName(a).size() >= 2) names.push_back(FoldName(a));  // a one-letter alias would match anything
    }
    ENGRAM_ASSIGN_OR_RETURN(std::vector<LinkRecord> inbound, store.Backlinks(scope, page.slug));
    std::set<std::string> linking;
    for (const LinkRecord& l : inbound) {
      if (l.from_slug != page.slug) linking.insert(l.from_slug);
    }
    for (const std::string& slug : linking) {
      auto from = store.GetPage(scope, slug);
      if (!from.ok()) continue;  // gone, or hidden from the scope
      ENGRAM_ASSIGN_OR_RETURN(std::vector<DatedEntry> theirs, store.TimelineBetween(scope, since, until, from->id));
      for (DatedEntry& e : theirs) {
        const std::string text = FoldName(e.entry.summary + " " + e.entry.source);
        if (std::any_of(names.begin(), names.end(),
                        [&](const std::string& n) { return !n.empty() && text.find(n) != std::string::npos; })) {
          out.push_back(std::move(e));
        }
      }
    }
    std::stable_sort(out.begin(), out.end(), [](const DatedEntry& a, const DatedEntry& b) {
      return std::tie(a.entry.date, a.page_slug, a.entry.line) < std::tie(b.entry.date, b.page_slug, b.entry.line);
    });
  }
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace engram::graph
