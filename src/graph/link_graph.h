// The page graph held in memory: every page of a source that a scope sees
// (private ones marked) and every link of those pages resolved to the page
// it reaches among them, with the resolution the store itself uses when it
// reads links (text::ResolveLinkTarget), so a walk over it sees what
// ResolvedLinks and Backlinks would for that scope — for a reader without
// private pages, the graph as it would be were they absent. Built once per
// store state, source and scope
// (graph/store_cache.h): a walk then reads vectors, not the store, and only
// the sentences of the links it returns are read afterwards
// (PageStore::LinkContexts).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "engram/status.h"
#include "engram/store/page_store.h"

namespace engram::graph {

struct LinkGraph {
  struct Page {
    PageId id;
    std::string slug;
    bool is_private = false;
  };
  // One end of a link seen from a page: the page at the other end, the
  // link's type (an index into types), its row and which way it points.
  struct Arc {
    uint32_t other = 0;
    uint32_t type = 0;
    int64_t link_id = 0;
    bool outbound = false;
  };
  std::vector<Page> pages;
  std::unordered_map<std::string, uint32_t> by_slug;
  std::vector<std::string> types;
  // Per page: its own links by row (a self-link among them), then the links
  // that reach it from other pages, by linking slug and row.
  std::vector<std::vector<Arc>> arcs;
  size_t links = 0;  // resolved links held (dead ones are not)
};

// The graph of scope's source as scope sees it, for the store's current state.
Result<std::shared_ptr<const LinkGraph>> LinkGraphFor(PageStore& store, const ReadScope& scope);

}  // namespace engram::graph
