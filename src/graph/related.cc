#include "graph/related.h"

#include <algorithm>
#include <map>
#include <set>

#include "engram/page.h"

namespace engram::graph {

Result<std::vector<RelatedPage>> Related(PageStore& store, const ReadScope& scope, std::string_view slug,
                                         size_t limit) {
  constexpr size_t kMaxExpanded = 200;
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, store.GetPage(scope, slug));
  std::map<std::string, RelatedPage> found;
  auto entry = [&](const std::string& other) -> RelatedPage* {
    if (other.empty() || other == page.slug) return nullptr;
    RelatedPage& r = found[other];
    r.slug = other;
    return &r;
  };
  // Pages this one links to, and the other pages linking to them: shared links.
  ENGRAM_ASSIGN_OR_RETURN(std::vector<ResolvedLink> outbound, store.ResolvedLinks(scope, page.id));
  std::set<std::string> targets;
  for (const ResolvedLink& l : outbound) {
    if (!l.to_slug.empty() && l.to_slug != page.slug) targets.insert(l.to_slug);
  }
  size_t expanded = 0;
  for (const std::string& t : targets) {
    if (++expanded > kMaxExpanded) break;
    ENGRAM_ASSIGN_OR_RETURN(std::vector<LinkRecord> in, store.Backlinks(scope, t));
    std::set<std::string> seen;
    for (const LinkRecord& l : in) {
      if (!seen.insert(l.from_slug).second) continue;
      if (RelatedPage* r = entry(l.from_slug)) r->shared_links.push_back(t);
    }
  }
  // Pages linking to this one, and what else they link to: co-mentions.
  ENGRAM_ASSIGN_OR_RETURN(std::vector<LinkRecord> inbound, store.Backlinks(scope, page.slug));
  std::set<std::string> mentioning;
  for (const LinkRecord& l : inbound) {
    if (l.from_slug != page.slug) mentioning.insert(l.from_slug);
  }
  expanded = 0;
  for (const std::string& m : mentioning) {
    if (++expanded > kMaxExpanded) break;
    auto from = store.GetPage(scope, m);
    if (!from.ok()) continue;
    ENGRAM_ASSIGN_OR_RETURN(std::vector<ResolvedLink> links, store.ResolvedLinks(scope, from->id));
    std::set<std::string> seen;
    for (const ResolvedLink& l : links) {
      if (l.to_slug.empty() || !seen.insert(l.to_slug).second) continue;
      if (RelatedPage* r = entry(l.to_slug)) r->co_mentions.push_back(m);
    }
  }
  // Shared tags.
  for (const std::string& tag : page.tags) {
    ListFilter f;
    f.source = scope.source;
    f.tag = tag;
    f.limit = kMaxExpanded;
    f.include_private = scope.include_private;
    ENGRAM_ASSIGN_OR_RETURN(std::vector<PageSummary> tagged, store.ListPages(f));
    for (const PageSummary& p : tagged) {
      if (RelatedPage* r = entry(p.slug)) r->shared_tags.push_back(tag);
    }
  }
  std::vector<RelatedPage> out;
  for (auto& [other, r] : found) {
    r.score = static_cast<double>(r.shared_links.size() + r.co_mentions.size()) + 0.5 * r.shared_tags.size();
    auto p = store.GetPage(scope, other);
    if (!p.ok()) continue;  // hidden from the scope
    r.title = p->title;
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [](const RelatedPage& a, const RelatedPage& b) {
    return a.score != b.score ? a.score > b.score : a.slug < b.slug;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace engram::graph
