#include "graph/link_graph.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "engram/store/change_log.h"
#include "text/page_links.h"

namespace engram::graph {

namespace {

std::atomic<int64_t> g_builds{0}, g_updates{0};

// The type's index, added when new.
uint32_t TypeId(LinkGraph& g, const std::string& type) {
  auto [it, fresh] = g.type_ids.try_emplace(type, static_cast<uint32_t>(g.types.size()));
  if (fresh) g.types.push_back(type);
  return it->second;
}

void Register(LinkGraph& g, uint32_t i) {
  const LinkGraph::Page& p = g.pages[i];
  g.by_slug[p.slug] = i;
  const std::string key = text::PathKey(p.path);
  g.by_path_key[key].push_back(i);
  g.by_name[text::LinkName(key)].push_back(i);
}

void Unregister(LinkGraph& g, uint32_t i) {
  const LinkGraph::Page& p = g.pages[i];
  if (auto it = g.by_slug.find(p.slug); it != g.by_slug.end() && it->second == i) g.by_slug.erase(it);
  const std::string key = text::PathKey(p.path);
  auto drop = [&](std::unordered_map<std::string, std::vector<uint32_t>>& map, const std::string& k) {
    auto it = map.find(k);
    if (it == map.end()) return;
    std::erase(it->second, i);
    if (it->second.empty()) map.erase(it);
  };
  drop(g.by_path_key, key);
  drop(g.by_name, text::LinkName(key));
}

// The page a link written on page `from` reaches now, by index: the store's
// resolution (text::ResolveLinkTarget) over the pages held.
std::optional<uint32_t> Resolve(const LinkGraph& g, const std::string& target, const std::string& from_folder) {
  text::LinkLookup lookup;
  lookup.by_path_key = [&](const std::string& key) -> Result<std::optional<int64_t>> {
    auto it = g.by_path_key.find(key);
    if (it == g.by_path_key.end()) return std::optional<int64_t>();
    const LinkGraph::Page* best = nullptr;
    for (uint32_t i : it->second) {
      if (best == nullptr || g.pages[i].path < best->path) best = &g.pages[i];
    }
    return best == nullptr ? std::optional<int64_t>() : std::optional<int64_t>(best->id.value());
  };
  lookup.by_slug = [&](const std::string& slug) -> Result<std::optional<int64_t>> {
    auto it = g.by_slug.find(slug);
    if (it == g.by_slug.end()) return std::optional<int64_t>();
    return std::optional<int64_t>(g.pages[it->second].id.value());
  };
  lookup.by_name = [&](const std::string& name) -> Result<std::vector<text::LinkCandidate>> {
    std::vector<text::LinkCandidate> out;
    auto it = g.by_name.find(name);
    if (it == g.by_name.end()) return out;
    for (uint32_t i : it->second) out.push_back({g.pages[i].id.value(), text::PathKey(g.pages[i].path)});
    return out;
  };
  auto reached = text::ResolveLinkTarget(target, from_folder, lookup);
  if (!reached.ok() || !*reached) return std::nullopt;  // in-memory look-ups never fail
  auto it = g.by_id.find(**reached);
  if (it == g.by_id.end()) return std::nullopt;
  return it->second;
}

// Inbound arcs are kept by linking slug, then row.
void InsertInbound(LinkGraph& g, uint32_t to, const LinkGraph::Arc& arc) {
  auto& list = g.in[to];
  auto key = [&](const LinkGraph::Arc& a) { return std::make_pair(std::string_view(g.pages[a.other].slug), a.link_id); };
  auto at = std::lower_bound(list.begin(), list.end(), arc,
                             [&](const LinkGraph::Arc& a, const LinkGraph::Arc& b) { return key(a) < key(b); });
  list.insert(at, arc);
}

void EraseInbound(LinkGraph& g, uint32_t to, int64_t link_id) {
  std::erase_if(g.in[to], [&](const LinkGraph::Arc& a) { return a.link_id == link_id; });
}

// Points raw link r of page `from` at its page now, keeping arcs and counts in step.
void Retarget(LinkGraph& g, uint32_t from, LinkGraph::RawLink& r) {
  const std::string folder = text::FolderKey(g.pages[from].path);
  const std::optional<uint32_t> now = Resolve(g, r.target, folder);
  if (now == r.to) return;
  if (r.to) {
    if (*r.to != from) EraseInbound(g, *r.to, r.link_id);
    --g.links;
  }
  r.to = now;
  if (now) {
    if (*now != from) InsertInbound(g, *now, {from, r.type, r.link_id, false});
    ++g.links;
  }
}

void RebuildOut(LinkGraph& g, uint32_t from) {
  auto& out = g.out[from];
  out.clear();
  for (const LinkGraph::RawLink& r : g.raw[from]) {
    if (r.to) out.push_back({*r.to, r.type, r.link_id, true});
  }
}

// Brings g up to the pages `changed` (ids whose rows a write touched) as the store holds them now.
Status Update(LinkGraph& g, PageStore& store, const ReadScope& scope, const std::vector<int64_t>& changed) {
  std::vector<PageId> ids;
  for (int64_t id : changed) ids.emplace_back(id);
  // Every read first: a failure leaves the graph as it was.
  ENGRAM_ASSIGN_OR_RETURN(std::vector<PageNames> now, store.PageNamesOf(scope, ids));
  std::vector<PageId> visible;
  for (const PageNames& p : now) visible.push_back(p.id);
  ENGRAM_ASSIGN_OR_RETURN(std::vector<LinkRow> rows, store.LinksFrom(visible));
  std::unordered_map<int64_t, const PageNames*> now_by_id;
  for (const PageNames& p : now) now_by_id[p.id.value()] = &p;
  std::set<std::string> affected;  // file-name keys whose links may now reach another page
  std::set<uint32_t> touched;      // changed pages that are (still) held
  for (int64_t id : changed) {
    auto old = g.by_id.find(id);
    if (old != g.by_id.end() && g.pages[old->second].alive) {
      const uint32_t i = old->second;
      affected.insert(text::LinkName(text::PathKey(g.pages[i].path)));
      affected.insert(text::LinkName(g.pages[i].slug));
      Unregister(g, i);
      for (LinkGraph::RawLink& r : g.raw[i]) {
        if (r.to) {
          if (*r.to != i) EraseInbound(g, *r.to, r.link_id);
          --g.links;
        }
        auto l = g.linkers_by_name.find(text::LinkName(r.target));
        if (l != g.linkers_by_name.end()) {
          l->second.erase(i);
          if (l->second.empty()) g.linkers_by_name.erase(l);
        }
      }
      g.raw[i].clear();
      g.out[i].clear();
      g.pages[i].alive = false;
    }
    auto fresh = now_by_id.find(id);
    if (fresh == now_by_id.end()) continue;  // deleted, or hidden from this scope now
    uint32_t i;
    if (old != g.by_id.end()) {
      i = old->second;
    } else {
      i = static_cast<uint32_t>(g.pages.size());
      g.pages.emplace_back();
      g.out.emplace_back();
      g.in.emplace_back();
      g.raw.emplace_back();
      g.by_id[id] = i;
    }
    const PageNames& p = *fresh->second;
    g.pages[i] = {p.id, p.slug, p.path, p.is_private, true};
    Register(g, i);
    affected.insert(text::LinkName(text::PathKey(p.path)));
    affected.insert(text::LinkName(p.slug));
    touched.insert(i);
  }
  for (const LinkRow& row : rows) {
    auto at = g.by_id.find(row.from.value());
    if (at == g.by_id.end() || !g.pages[at->second].alive) continue;
    g.raw[at->second].push_back({row.link_id, row.target, TypeId(g, row.type), std::nullopt});
    g.linkers_by_name[text::LinkName(row.target)].insert(at->second);
  }
  // A renamed page's inbound arcs sort by its new slug: every arc it is the far end of is placed again.
  for (uint32_t i : touched) {
    for (LinkGraph::RawLink& r : g.raw[i]) Retarget(g, i, r);
  }
  std::set<uint32_t> relinked = touched;
  for (const std::string& name : affected) {
    auto it = g.linkers_by_name.find(name);
    if (it == g.linkers_by_name.end()) continue;
    for (uint32_t from : it->second) {
      if (touched.count(from)) continue;
      for (LinkGraph::RawLink& r : g.raw[from]) {
        if (text::LinkName(r.target) == name) Retarget(g, from, r);
      }
      relinked.insert(from);
    }
  }
  for (uint32_t from : relinked) RebuildOut(g, from);
  return Status::Ok();
}

// One graph per database, source and scope, shared by every connection of the process.
struct SharedGraph {
  std::shared_mutex mu;
  LinkGraph graph;
  int64_t generation = -1;
  bool built = false;
};

std::shared_ptr<SharedGraph> SharedGraphFor(const std::string& key) {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<SharedGraph>> graphs;
  std::lock_guard<std::mutex> lock(mu);
  auto it = graphs.find(key);
  if (it != graphs.end()) return it->second;
  if (graphs.size() >= 32) {  // stores come and go (tests, migrations): drop the graphs nobody reads now
    for (auto g = graphs.begin(); g != graphs.end();) g = g->second.use_count() == 1 ? graphs.erase(g) : std::next(g);
  }
  return graphs.emplace(key, std::make_shared<SharedGraph>()).first->second;
}

}  // namespace

Result<std::unique_ptr<LinkGraph>> BuildLinkGraph(PageStore& store, const ReadScope& scope) {
  auto g = std::make_unique<LinkGraph>();
  ENGRAM_ASSIGN_OR_RETURN(std::vector<PageNames> pages, store.AllPageNames(scope));
  ENGRAM_ASSIGN_OR_RETURN(std::vector<LinkRow> links, store.AllLinks(scope.source));
  g->pages.reserve(pages.size());
  for (uint32_t i = 0; i < pages.size(); ++i) {
    const PageNames& p = pages[i];
    g->pages.push_back({p.id, p.slug, p.path, p.is_private, true});
    g->by_id.emplace(p.id.value(), i);
    Register(*g, i);
  }
  g->out.resize(pages.size());
  g->in.resize(pages.size());
  g->raw.resize(pages.size());
  for (const LinkRow& l : links) {
    auto from = g->by_id.find(l.from.value());
    if (from == g->by_id.end()) continue;  // a page the scope does not see, or deleted since the pages were read
    g->raw[from->second].push_back({l.link_id, l.target, TypeId(*g, l.type), std::nullopt});
    g->linkers_by_name[text::LinkName(l.target)].insert(from->second);
  }
  std::map<std::pair<std::string, std::string>, std::optional<uint32_t>> memo;  // (target, folder) -> page
  std::vector<std::vector<LinkGraph::Arc>> inbound(g->pages.size());
  for (uint32_t i = 0; i < g->pages.size(); ++i) {
    const std::string folder = text::FolderKey(g->pages[i].path);
    for (LinkGraph::RawLink& r : g->raw[i]) {
      auto key = std::make_pair(r.target, folder);
      auto m = memo.find(key);
      if (m == memo.end()) m = memo.emplace(std::move(key), Resolve(*g, r.target, folder)).first;
      r.to = m->second;
      if (!r.to) continue;
      g->out[i].push_back({*r.to, r.type, r.link_id, true});
      if (*r.to != i) inbound[*r.to].push_back({i, r.type, r.link_id, false});
      ++g->links;
    }
  }
  for (uint32_t i = 0; i < inbound.size(); ++i) {
    std::sort(inbound[i].begin(), inbound[i].end(), [&](const LinkGraph::Arc& a, const LinkGraph::Arc& b) {
      return std::make_pair(std::string_view(g->pages[a.other].slug), a.link_id) <
             std::make_pair(std::string_view(g->pages[b.other].slug), b.link_id);
    });
    g->in[i] = std::move(inbound[i]);
  }
  ++g_builds;
  return g;
}

Result<LinkGraphView> LinkGraphFor(PageStore& store, const ReadScope& scope) {
  auto* log = dynamic_cast<ChangeLog*>(&store);
  if (log == nullptr) {  // a store without a change log: a graph of its own for this read
    auto fresh = std::make_shared<SharedGraph>();
    ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<LinkGraph> built, BuildLinkGraph(store, scope));
    fresh->graph = std::move(*built);
    std::shared_lock<std::shared_mutex> lock(fresh->mu);
    const LinkGraph* g = &fresh->graph;
    return LinkGraphView(fresh, std::move(lock), g);
  }
  const std::string key =
      store.StoreIdentity() + "\x1f" + scope.source + (scope.include_private ? "\x1f" "all" : "\x1f" "public");
  std::shared_ptr<SharedGraph> shared = SharedGraphFor(key);
  ENGRAM_ASSIGN_OR_RETURN(const int64_t generation, log->Generation());
  for (;;) {
    {
      std::shared_lock<std::shared_mutex> read(shared->mu);
      if (shared->built && shared->generation >= generation) {
        const LinkGraph* g = &shared->graph;
        return LinkGraphView(shared, std::move(read), g);
      }
    }
    std::unique_lock<std::shared_mutex> write(shared->mu);
    if (shared->built && shared->generation >= generation) continue;  // another reader brought it up
    if (shared->built) {
      ENGRAM_ASSIGN_OR_RETURN(std::optional<std::vector<int64_t>> changed,
                              log->ChangesSince(ChangeStream::kPages, shared->generation));
      const size_t limit = std::max<size_t>(shared->graph.by_slug.size() / 10, 100);
      if (changed && changed->size() <= limit) {
        ENGRAM_RETURN_IF_ERROR(Update(shared->graph, store, scope, *changed));
        shared->generation = generation;
        ++g_updates;
        continue;
      }
    }
    shared->built = false;
    ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<LinkGraph> built, BuildLinkGraph(store, scope));
    shared->graph = std::move(*built);
    shared->generation = generation;
    shared->built = true;
  }
}

std::string DescribeLinkGraph(const LinkGraph& g) {
  std::vector<uint32_t> alive;
  for (uint32_t i = 0; i < g.pages.size(); ++i) {
    if (g.pages[i].alive) alive.push_back(i);
  }
  std::sort(alive.begin(), alive.end(), [&](uint32_t a, uint32_t b) { return g.pages[a].slug < g.pages[b].slug; });
  std::string out = "links " + std::to_string(g.links) + "\n";
  for (uint32_t i : alive) {
    const LinkGraph::Page& p = g.pages[i];
    out += p.slug + " " + p.path + (p.is_private ? " private" : "") + "\n";
    for (const LinkGraph::Arc& a : g.out[i]) {
      out += "  -> " + g.pages[a.other].slug + " " + g.types[a.type] + " " + std::to_string(a.link_id) + "\n";
    }
    for (const LinkGraph::Arc& a : g.in[i]) {
      out += "  <- " + g.pages[a.other].slug + " " + g.types[a.type] + " " + std::to_string(a.link_id) + "\n";
    }
  }
  return out;
}

LinkGraphCounters LinkGraphCountersNow() { return {g_builds.load(), g_updates.load()}; }

}  // namespace engram::graph
