#include "graph/link_graph.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "graph/store_cache.h"
#include "text/page_links.h"

namespace engram::graph {

namespace {

Result<std::shared_ptr<const LinkGraph>> BuildLinkGraph(PageStore& store, const ReadScope& scope) {
  auto g = std::make_shared<LinkGraph>();
  ENGRAM_ASSIGN_OR_RETURN(std::vector<PageNames> pages, store.AllPageNames(scope));
  // The look-ups of text::ResolveLinkTarget, over every page of the source.
  std::unordered_map<std::string, std::pair<std::string, uint32_t>> by_path_key;  // key -> (path, page): first path
  std::unordered_map<std::string, std::vector<text::LinkCandidate>> by_name;
  std::unordered_map<int64_t, uint32_t> by_id;
  for (uint32_t i = 0; i < pages.size(); ++i) {
    const PageNames& p = pages[i];
    g->pages.push_back({p.id, p.slug, p.is_private});
    g->by_slug.emplace(p.slug, i);
    by_id.emplace(p.id.value(), i);
    const std::string key = text::PathKey(p.path);
    auto [it, fresh] = by_path_key.try_emplace(key, p.path, i);
    if (!fresh && p.path < it->second.first) it->second = {p.path, i};
    by_name[text::LinkName(key)].push_back({p.id.value(), key});
  }
  text::LinkLookup lookup;
  lookup.by_path_key = [&](const std::string& key) -> Result<std::optional<int64_t>> {
    auto it = by_path_key.find(key);
    if (it == by_path_key.end()) return std::optional<int64_t>();
    return std::optional<int64_t>(g->pages[it->second.second].id.value());
  };
  lookup.by_slug = [&](const std::string& slug) -> Result<std::optional<int64_t>> {
    auto it = g->by_slug.find(slug);
    if (it == g->by_slug.end()) return std::optional<int64_t>();
    return std::optional<int64_t>(g->pages[it->second].id.value());
  };
  lookup.by_name = [&](const std::string& name) -> Result<std::vector<text::LinkCandidate>> {
    auto it = by_name.find(name);
    return it == by_name.end() ? std::vector<text::LinkCandidate>() : it->second;
  };
  ENGRAM_ASSIGN_OR_RETURN(std::vector<LinkRow> links, store.AllLinks(scope.source));
  g->arcs.resize(g->pages.size());
  std::map<std::string, uint32_t> type_ids;
  std::map<std::pair<std::string, std::string>, std::optional<int64_t>> memo;  // (target, folder) -> page
  std::vector<std::vector<LinkGraph::Arc>> inbound(g->pages.size());
  for (const LinkRow& l : links) {
    auto from = by_id.find(l.from.value());
    if (from == by_id.end()) continue;  // a page deleted since the pages were read
    auto key = std::make_pair(l.target, l.from_folder);
    auto m = memo.find(key);
    if (m == memo.end()) {
      ENGRAM_ASSIGN_OR_RETURN(std::optional<int64_t> reached, text::ResolveLinkTarget(l.target, l.from_folder, lookup));
      m = memo.emplace(std::move(key), reached).first;
    }
    if (!m->second) continue;  // a dead link joins nothing
    const uint32_t to = by_id.at(*m->second);
    auto [t, fresh] = type_ids.try_emplace(l.type, static_cast<uint32_t>(g->types.size()));
    if (fresh) g->types.push_back(l.type);
    g->arcs[from->second].push_back({to, t->second, l.link_id, true});
    if (to != from->second) inbound[to].push_back({from->second, t->second, l.link_id, false});
    ++g->links;
  }
  // Inbound links by linking slug, then row: the order Backlinks gives.
  for (uint32_t i = 0; i < inbound.size(); ++i) {
    std::stable_sort(inbound[i].begin(), inbound[i].end(), [&](const LinkGraph::Arc& a, const LinkGraph::Arc& b) {
      return g->pages[a.other].slug < g->pages[b.other].slug;
    });
    g->arcs[i].insert(g->arcs[i].end(), inbound[i].begin(), inbound[i].end());
  }
  return std::shared_ptr<const LinkGraph>(std::move(g));
}

}  // namespace

Result<std::shared_ptr<const LinkGraph>> LinkGraphFor(PageStore& store, const ReadScope& scope) {
  const std::string key = scope.source + (scope.include_private ? "\x1f" "all" : "\x1f" "public");
  return CachedForStore<LinkGraph>(store, key, [&] { return BuildLinkGraph(store, scope); });
}

}  // namespace engram::graph
