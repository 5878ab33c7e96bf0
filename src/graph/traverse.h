// Walking the graph of pages: a page's neighbourhood to a depth, the
// shortest path between two pages, the links that reach nothing and the
// pages nothing links. Edges are page links (typed by their field or
// pattern, "mentions" otherwise) resolved when read, in both directions,
// from the graph held in memory per store state (graph/link_graph.h); every
// walk keeps a visited set and stops at a node cap and a time budget, so a
// cycle, a self-link or a huge brain never hangs it.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/store/page_store.h"

namespace engram::graph {

struct WalkLimits {
  int depth = 1;                 // 1 .. kMaxDepth
  std::string relation;          // only links of this type ("" = any)
  size_t max_nodes = 1000;       // stop (truncated) beyond this many pages
  std::chrono::milliseconds budget{2000};
};
inline constexpr int kMaxDepth = 6;

// Graph walks at once in this process (Explore, ShortestPath, Orphans): a
// walk waits for a free slot, at most its budget, then fails Unavailable.
// The default leaves half the cores to everything else (searches keep
// answering under any number of walks); a server may set it once at start.
void SetConcurrentWalks(size_t walks);
size_t ConcurrentWalks();
inline constexpr int kMaxPathHops = 12;

struct Node {
  std::string slug;
  std::string title;
  std::string type;
  int depth = 0;
};

// A link as its page writes it: from -> to, with its type and sentence.
struct Edge {
  std::string from;
  std::string to;
  std::string type;
  std::string context;
  int64_t link_id = 0;  // its row (not compared: an edge is what it says)
  bool operator==(const Edge& o) const {
    return from == o.from && to == o.to && type == o.type && context == o.context;
  }
};

struct Neighbourhood {
  std::vector<Node> nodes;  // the root first, then by depth and slug
  std::vector<Edge> edges;  // between nodes of the walk, each once
  bool truncated = false;   // the node cap or the time budget stopped the walk
};

// The pages within limits.depth links of `slug` (either direction).
// NotFound when the scope does not see it; InvalidArgument for a depth
// outside 1..kMaxDepth.
Result<Neighbourhood> Explore(PageStore& store, const ReadScope& scope, std::string_view slug, const WalkLimits& limits);

struct Path {
  bool found = false;
  bool truncated = false;  // the search stopped (cap or budget) before it could tell
  std::vector<Edge> edges; // from `from` to `to`, each as written (its direction may point back)
};

// The shortest chain of links between two pages (either direction), at
// most kMaxPathHops long; breadth first, so the first found is shortest.
Result<Path> ShortestPath(PageStore& store, const ReadScope& scope, std::string_view from, std::string_view to,
                          const WalkLimits& limits);

// Links that reach no page (what `dead-links` lists), by linking page.
Result<std::vector<ResolvedLink>> DeadLinks(PageStore& store, const ReadScope& scope);

// Pages no link reaches and that link to no page, by slug.
Result<std::vector<PageNames>> Orphans(PageStore& store, const ReadScope& scope);

}  // namespace engram::graph
