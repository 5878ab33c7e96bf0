#include "graph/traverse.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "graph/entities.h"
#include "graph/link_graph.h"

namespace engram::graph {

namespace {

using Clock = std::chrono::steady_clock;

// The walks running now, and how many may.
struct WalkGate {
  std::mutex mu;
  std::condition_variable freed;
  size_t running = 0;
  size_t capacity = std::max<size_t>(1, std::thread::hardware_concurrency() / 2);
};

WalkGate& Gate() {
  static WalkGate gate;
  return gate;
}

// A slot of the gate for one walk, given back when it ends.
class WalkSlot {
 public:
  static Result<WalkSlot> Take(std::chrono::milliseconds wait) {
    WalkGate& g = Gate();
    std::unique_lock<std::mutex> lock(g.mu);
    if (!g.freed.wait_for(lock, wait, [&] { return g.running < g.capacity; })) {
      return Status::Unavailable("graph walks are busy (" + std::to_string(g.capacity) +
                                 " at a time); try again shortly");
    }
    ++g.running;
    return WalkSlot();
  }
  WalkSlot(WalkSlot&& other) noexcept : held_(std::exchange(other.held_, false)) {}
  WalkSlot& operator=(WalkSlot&&) = delete;
  ~WalkSlot() {
    if (!held_) return;
    WalkGate& g = Gate();
    {
      std::lock_guard<std::mutex> lock(g.mu);
      --g.running;
    }
    g.freed.notify_one();
  }

 private:
  WalkSlot() = default;
  bool held_ = true;
};

// Both directions of a page's links, each edge as written, from the graph
// in memory; pages the scope cannot see are not there, nor links to them.
class Adjacency {
 public:
  Adjacency(const LinkGraph& graph, const ReadScope& scope, std::string relation)
      : graph_(&graph), scope_(scope), relation_(std::move(relation)) {}

  Result<std::vector<Edge>> Of(const std::string& slug) const {
    auto at = graph_->by_slug.find(slug);
    if (at == graph_->by_slug.end() || !scope_.Sees(graph_->pages[at->second].is_private)) {
      return Status::NotFound("no page " + slug);
    }
    std::vector<Edge> out;
    for (const auto* arcs : {&graph_->out[at->second], &graph_->in[at->second]}) {
      for (const LinkGraph::Arc& a : *arcs) {
        const LinkGraph::Page& other = graph_->pages[a.other];
        const std::string& type = graph_->types[a.type];
        if (!scope_.Sees(other.is_private) || (!relation_.empty() && type != relation_)) continue;
        if (a.outbound) {
          out.push_back({slug, other.slug, type, "", a.link_id});
        } else {
          out.push_back({other.slug, slug, type, "", a.link_id});
        }
      }
    }
    // Typed links first: of two walks as short, the one along typed links is found.
    std::stable_partition(out.begin(), out.end(), [](const Edge& e) { return e.type != "mentions"; });
    return out;
  }

 private:
  const LinkGraph* graph_;  // held by the caller's LinkGraphView
  const ReadScope& scope_;
  std::string relation_;
};

// The sentences of the edges a walk returns, read once it is done.
Status FillContexts(PageStore& store, std::vector<Edge>* edges) {
  std::vector<int64_t> ids;
  for (const Edge& e : *edges) ids.push_back(e.link_id);
  ENGRAM_ASSIGN_OR_RETURN(auto contexts, store.LinkContexts(ids));
  for (Edge& e : *edges) {
    if (auto it = contexts.find(e.link_id); it != contexts.end()) e.context = it->second;
  }
  return Status::Ok();
}

const std::string& Other(const Edge& e, const std::string& slug) { return e.from == slug ? e.to : e.from; }

}  // namespace

void SetConcurrentWalks(size_t walks) {
  WalkGate& g = Gate();
  {
    std::lock_guard<std::mutex> lock(g.mu);
    g.capacity = std::max<size_t>(1, walks);
  }
  g.freed.notify_all();
}

size_t ConcurrentWalks() {
  std::lock_guard<std::mutex> lock(Gate().mu);
  return Gate().capacity;
}

Result<Neighbourhood> Explore(PageStore& store, const ReadScope& scope, std::string_view slug,
                              const WalkLimits& limits) {
  if (limits.depth < 1 || limits.depth > kMaxDepth) {
    return Status::InvalidArgument("depth " + std::to_string(limits.depth) + " is outside 1.." +
                                   std::to_string(kMaxDepth));
  }
  ENGRAM_ASSIGN_OR_RETURN(StoredPage root, store.GetPage(scope, slug));
  ENGRAM_ASSIGN_OR_RETURN(WalkSlot slot, WalkSlot::Take(limits.budget));
  const auto deadline = Clock::now() + limits.budget;
  ENGRAM_ASSIGN_OR_RETURN(LinkGraphView graph, LinkGraphFor(store, scope));
  Adjacency adjacency(*graph, scope, limits.relation);
  Neighbourhood out;
  std::map<std::string, int> depth_of = {{root.slug, 0}};
  std::set<std::tuple<std::string, std::string, std::string>> seen_edges;
  std::deque<std::string> queue = {root.slug};
  while (!queue.empty()) {
    const std::string at = queue.front();
    queue.pop_front();
    const int d = depth_of[at];
    if (d >= limits.depth) continue;
    if (Clock::now() > deadline) {
      out.truncated = true;
      break;
    }
    ENGRAM_ASSIGN_OR_RETURN(std::vector<Edge> edges, adjacency.Of(at));
    for (Edge& e : edges) {
      const std::string next = Other(e, at);
      if (!depth_of.count(next)) {
        if (depth_of.size() >= limits.max_nodes) {
          out.truncated = true;
          continue;
        }
        depth_of[next] = d + 1;
        queue.push_back(next);
      }
      if (seen_edges.insert({e.from, e.to, e.type}).second) out.edges.push_back(std::move(e));
    }
  }
  for (const auto& [s, d] : depth_of) {
    Node n{s, "", "", d};
    ENGRAM_ASSIGN_OR_RETURN(std::optional<PageNames> p, PageNamed(store, scope, s));
    if (p) {
      n.title = p->title;
      n.type = p->type;
    }
    out.nodes.push_back(std::move(n));
  }
  std::stable_sort(out.nodes.begin(), out.nodes.end(), [](const Node& a, const Node& b) {
    return std::tie(a.depth, a.slug) < std::tie(b.depth, b.slug);
  });
  // Edges whose far end the cap left out are dropped with it.
  std::erase_if(out.edges, [&](const Edge& e) { return !depth_of.count(e.from) || !depth_of.count(e.to); });
  ENGRAM_RETURN_IF_ERROR(FillContexts(store, &out.edges));
  return out;
}

Result<Path> ShortestPath(PageStore& store, const ReadScope& scope, std::string_view from, std::string_view to,
                          const WalkLimits& limits) {
  ENGRAM_ASSIGN_OR_RETURN(StoredPage a, store.GetPage(scope, from));
  ENGRAM_ASSIGN_OR_RETURN(StoredPage b, store.GetPage(scope, to));
  Path path;
  if (a.slug == b.slug) {
    path.found = true;
    return path;
  }
  // Breadth first from both ends, a whole level of the smaller side at a
  // time: the levels met are as short as one search from `from` would find,
  // and each side explores about the square root of what that would.
  ENGRAM_ASSIGN_OR_RETURN(WalkSlot slot, WalkSlot::Take(limits.budget));
  const auto deadline = Clock::now() + limits.budget;
  ENGRAM_ASSIGN_OR_RETURN(LinkGraphView graph, LinkGraphFor(store, scope));
  Adjacency adjacency(*graph, scope, limits.relation);
  struct Side {
    std::map<std::string, std::pair<std::string, Edge>> came_from;  // node -> (the node before it, the edge)
    std::map<std::string, int> hops;
    std::vector<std::string> frontier;
    int depth = 0;
  };
  Side ends[2];
  ends[0] = {{{a.slug, {"", {}}}}, {{a.slug, 0}}, {a.slug}, 0};
  ends[1] = {{{b.slug, {"", {}}}}, {{b.slug, 0}}, {b.slug}, 0};
  std::string meet;
  while (meet.empty() && !ends[0].frontier.empty() && !ends[1].frontier.empty() &&
         ends[0].depth + ends[1].depth < kMaxPathHops) {
    Side& s = ends[0].frontier.size() <= ends[1].frontier.size() ? ends[0] : ends[1];
    Side& other = &s == &ends[0] ? ends[1] : ends[0];
    std::vector<std::string> next;
    int best = -1;
    for (const std::string& at : s.frontier) {
      if (Clock::now() > deadline || s.came_from.size() + other.came_from.size() > limits.max_nodes) {
        path.truncated = true;
        return path;
      }
      ENGRAM_ASSIGN_OR_RETURN(std::vector<Edge> edges, adjacency.Of(at));
      for (Edge& e : edges) {
        const std::string n = Other(e, at);
        if (s.came_from.count(n)) continue;
        s.came_from[n] = {at, e};
        s.hops[n] = s.depth + 1;
        next.push_back(n);
        // Met: the shortest total is the other side's nearest meeting node of this level.
        auto o = other.hops.find(n);
        if (o != other.hops.end() && (best < 0 || o->second < best)) {
          best = o->second;
          meet = n;
        }
      }
    }
    s.frontier = std::move(next);
    ++s.depth;
  }
  if (meet.empty()) return path;
  path.found = true;
  for (std::string at = meet; at != a.slug; at = ends[0].came_from[at].first) {
    path.edges.push_back(ends[0].came_from[at].second);
  }
  std::reverse(path.edges.begin(), path.edges.end());
  for (std::string at = meet; at != b.slug; at = ends[1].came_from[at].first) {
    path.edges.push_back(ends[1].came_from[at].second);
  }
  ENGRAM_RETURN_IF_ERROR(FillContexts(store, &path.edges));
  return path;
}

Result<std::vector<ResolvedLink>> DeadLinks(PageStore& store, const ReadScope& scope) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<ResolvedLink> links, store.ResolvedLinks(scope, std::nullopt));
  std::erase_if(links, [](const ResolvedLink& l) { return !l.to_slug.empty() || l.reaches_hidden; });
  return links;
}

Result<std::vector<PageNames>> Orphans(PageStore& store, const ReadScope& scope) {
  // A page with a link either way to another page the scope sees is linked; a self-link connects nothing.
  ENGRAM_ASSIGN_OR_RETURN(std::vector<PageNames> pages, store.AllPageNames(scope));
  ENGRAM_ASSIGN_OR_RETURN(LinkGraphView graph, LinkGraphFor(store, scope));
  std::erase_if(pages, [&](const PageNames& p) {
    auto at = graph->by_slug.find(p.slug);
    if (at == graph->by_slug.end()) return false;
    auto linked = [&](const std::vector<LinkGraph::Arc>& arcs) {
      return std::any_of(arcs.begin(), arcs.end(), [&](const LinkGraph::Arc& a) {
        return a.other != at->second && scope.Sees(graph->pages[a.other].is_private);
      });
    };
    return linked(graph->out[at->second]) || linked(graph->in[at->second]);
  });
  return pages;
}

}  // namespace engram::graph
