// The page graph held in memory: every page of a source that a scope sees
// (private ones marked) and every link of those pages resolved to the page
// it reaches among them, with the resolution the store itself uses when it
// reads links (text::ResolveLinkTarget), so a walk over it sees what
// ResolvedLinks and Backlinks would for that scope — for a reader without
// private pages, the graph as it would be were they absent.
//
// One graph per database, source and scope is kept for the whole process
// and shared by every connection to the database (PageStore::StoreIdentity):
// a server's pooled connections walk the same graph instead of each
// building its own. A write moves the store's generation; the next reader
// brings the graph up to it by re-reading only the pages the change log
// names (their names and links) and re-resolving the links whose target
// names could now reach another page — a write changes only its pages'
// edges, in time proportional to them, not to the brain. A change log
// trimmed past the graph's generation, or a change touching more than a
// tenth of the pages, rebuilds it.
//
// Threading: readers hold a LinkGraphView (a shared lock) while they walk;
// bringing the graph up to date takes the lock exclusively, between walks.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engram/status.h"
#include "engram/store/page_store.h"

namespace engram::graph {

struct LinkGraph {
  struct Page {
    PageId id;
    std::string slug;
    std::string path;
    bool is_private = false;
    bool alive = true;  // false: deleted or no longer visible (its index is not reused)
  };
  // One end of a link seen from a page: the page at the other end, the
  // link's type (an index into types), its row and which way it points.
  struct Arc {
    uint32_t other = 0;
    uint32_t type = 0;
    int64_t link_id = 0;
    bool outbound = false;
  };
  // A page's link as stored, and where it resolves now.
  struct RawLink {
    int64_t link_id = 0;
    std::string target;  // as written (slug form)
    uint32_t type = 0;
    std::optional<uint32_t> to;
  };
  std::vector<Page> pages;
  std::unordered_map<std::string, uint32_t> by_slug;  // alive pages
  std::unordered_map<int64_t, uint32_t> by_id;        // every page ever held
  std::vector<std::string> types;
  std::unordered_map<std::string, uint32_t> type_ids;
  // Per page: its own links that reach a page, by row (a self-link among
  // them), and the links that reach it from other pages, by linking slug and
  // row — the order Backlinks gives. A walk reads out, then in.
  std::vector<std::vector<Arc>> out, in;
  size_t links = 0;  // resolved links held (dead ones are not)

  // What incremental updates need: each page's links as written; the
  // look-ups of text::ResolveLinkTarget over alive pages; and which pages
  // hold links whose target has a given file-name key.
  std::vector<std::vector<RawLink>> raw;
  std::unordered_map<std::string, std::vector<uint32_t>> by_path_key;  // PathKey(path) -> pages
  std::unordered_map<std::string, std::vector<uint32_t>> by_name;      // LinkName(PathKey(path)) -> pages
  std::unordered_map<std::string, std::unordered_set<uint32_t>> linkers_by_name;  // LinkName(target) -> pages
};

// A graph held for reading: the shared lock lasts as long as the view.
class LinkGraphView {
 public:
  LinkGraphView(std::shared_ptr<void> holder, std::shared_lock<std::shared_mutex> lock, const LinkGraph* graph)
      : holder_(std::move(holder)), lock_(std::move(lock)), graph_(graph) {}
  const LinkGraph* operator->() const { return graph_; }
  const LinkGraph& operator*() const { return *graph_; }

 private:
  std::shared_ptr<void> holder_;  // keeps the shared graph alive
  std::shared_lock<std::shared_mutex> lock_;
  const LinkGraph* graph_;
};

// The graph of scope's source as scope sees it, brought up to the store's
// current state.
Result<LinkGraphView> LinkGraphFor(PageStore& store, const ReadScope& scope);

// The graph built from nothing (what the shared one must always equal; the
// property test compares them).
Result<std::unique_ptr<LinkGraph>> BuildLinkGraph(PageStore& store, const ReadScope& scope);

// The graph in a form free of indexes and dead pages, one line per page and
// per arc, for comparing two graphs.
std::string DescribeLinkGraph(const LinkGraph& graph);

// How a view was obtained, for tests and benchmarks: builds from nothing and
// incremental updates this process made so far.
struct LinkGraphCounters {
  int64_t builds = 0;
  int64_t updates = 0;
};
LinkGraphCounters LinkGraphCountersNow();

}  // namespace engram::graph
