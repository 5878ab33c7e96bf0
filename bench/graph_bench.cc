// Knowledge-graph benchmark on an indexed brain (bench/run-graph-bench makes
// one from bench/gen_graph_brain.py): entity resolution, a depth-2
// neighbourhood (`engram graph --depth 2`), the shortest path between random
// entities (`engram path`), and what fact and relation extraction costs when
// pages are parsed. Medians over random picks with a fixed seed; single thread.
//
// Usage: graph_bench --brain DIR [--vault DIR] [--queries N] [--seed S]
//   --vault: also parse every .md file under DIR twice, with and without
//            reading facts and relations, and report the extraction's share.
// Prints one JSON object.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/utf8.h"
#include "engram/brain.h"
#include "graph/entities.h"
#include "graph/link_graph.h"
#include "graph/traverse.h"
#include "search/metrics.h"
#include "sync/page_indexer.h"
#include "text/page_facts.h"
#include "text/page_parser.h"

namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;
namespace fs = std::filesystem;

double Ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "graph_bench: %s\n", what.c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  std::string brain_dir, vault;
  size_t queries = 200;
  unsigned seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--brain") brain_dir = v;
    else if (k == "--vault") vault = v;
    else if (k == "--queries") queries = std::stoul(v);
    else if (k == "--seed") seed = static_cast<unsigned>(std::stoul(v));
    else Die("unknown option " + k);
  }
  if (brain_dir.empty()) Die("--brain DIR is required");
  auto brain = engram::Brain::Open(brain_dir);
  if (!brain.ok()) Die(brain.status().ToString());
  engram::Engine& store = (*brain)->engine();
  const engram::ReadScope scope = engram::ReadScope::All(engram::kDefaultSource);
  auto names = store.AllPageNames(scope);
  if (!names.ok() || names->empty()) Die("no pages");
  std::vector<const engram::PageNames*> entities;
  for (const auto& p : *names) {
    if (p.slug.rfind("people/", 0) == 0 || p.slug.rfind("companies/", 0) == 0) entities.push_back(&p);
  }
  if (entities.size() < 2) Die("no entity pages (people/, companies/)");
  std::mt19937 rng(seed);
  auto pick = [&] { return entities[rng() % entities.size()]; };
  Json out = {{"pages", names->size()}, {"queries", queries}};

  // Resolution: a title, an alias or a lower-case spelling.
  std::vector<double> ms;
  size_t resolved = 0;
  for (size_t q = 0; q < queries; ++q) {
    const engram::PageNames* p = pick();
    std::string name = p->title;
    if (q % 3 == 1 && !p->aliases.empty()) name = p->aliases[0];
    if (q % 3 == 2) name = engram::common::ToLower(name);
    const auto t0 = Clock::now();
    auto r = engram::graph::ResolveEntity(store, scope, name, engram::graph::GraphRules());
    ms.push_back(Ms(t0, Clock::now()));
    if (r.ok() && !r->empty()) ++resolved;
  }
  out["resolve_ms_p50"] = engram::search::Percentile(ms, 50);
  out["resolve_ms_p95"] = engram::search::Percentile(ms, 95);
  out["resolved"] = resolved;

  // The graph held in memory, built once per store state (the first walk pays it).
  {
    const auto t0 = Clock::now();
    auto g = engram::graph::LinkGraphFor(store, engram::ReadScope::All(engram::kDefaultSource));
    out["link_graph_build_ms"] = Ms(t0, Clock::now());
    if (!g.ok()) Die(g.status().ToString());
    out["link_graph_links"] = (**g).links;
  }

  // Depth-2 neighbourhoods.
  ms.clear();
  size_t nodes = 0, truncated = 0;
  for (size_t q = 0; q < queries; ++q) {
    engram::graph::WalkLimits limits;
    limits.depth = 2;
    const auto t0 = Clock::now();
    auto n = engram::graph::Explore(store, scope, pick()->slug, limits);
    ms.push_back(Ms(t0, Clock::now()));
    if (!n.ok()) Die(n.status().ToString());
    nodes += n->nodes.size();
    truncated += n->truncated;
  }
  out["graph_depth2_ms_p50"] = engram::search::Percentile(ms, 50);
  out["graph_depth2_ms_p95"] = engram::search::Percentile(ms, 95);
  out["graph_depth2_nodes_mean"] = static_cast<double>(nodes) / static_cast<double>(queries);
  out["graph_depth2_truncated"] = truncated;

  // Shortest paths between random entities.
  ms.clear();
  size_t found = 0, hops = 0, path_truncated = 0;
  for (size_t q = 0; q < queries; ++q) {
    engram::graph::WalkLimits limits;
    limits.max_nodes = 100000;
    const std::string a = pick()->slug, b = pick()->slug;
    const auto t0 = Clock::now();
    auto p = engram::graph::ShortestPath(store, scope, a, b, limits);
    ms.push_back(Ms(t0, Clock::now()));
    if (!p.ok()) Die(p.status().ToString());
    found += p->found;
    hops += p->edges.size();
    path_truncated += p->truncated;
  }
  out["path_ms_p50"] = engram::search::Percentile(ms, 50);
  out["path_ms_p95"] = engram::search::Percentile(ms, 95);
  out["paths_found"] = found;
  out["path_hops_mean"] = found == 0 ? 0.0 : static_cast<double>(hops) / static_cast<double>(found);
  out["paths_truncated"] = path_truncated;

  // A write followed by a walk (issue 32): the walk brings the graph held in memory up to the write by
  // re-reading the one page it changed. Each round rewrites an entity page with one more link.
  {
    std::vector<double> put_ms, walk_ms;
    const size_t rounds = std::min<size_t>(queries, 100);
    const auto before = engram::graph::LinkGraphCountersNow();
    for (size_t q = 0; q < rounds; ++q) {
      const engram::PageNames* p = pick();
      auto page = store.GetPage(scope, p->slug);
      if (!page.ok()) Die(page.status().ToString());
      const std::string content = page->content + "\nAlso met [[" + pick()->slug + "]].\n";
      auto write = engram::sync::PreparePage(page->path, content, {});
      if (!write.ok()) Die(write.status().ToString());
      auto t0 = Clock::now();
      if (auto put = store.PutPage(*write); !put.ok()) Die(put.status().ToString());
      put_ms.push_back(Ms(t0, Clock::now()));
      engram::graph::WalkLimits limits;
      limits.depth = 2;
      t0 = Clock::now();
      auto n = engram::graph::Explore(store, scope, p->slug, limits);
      walk_ms.push_back(Ms(t0, Clock::now()));
      if (!n.ok()) Die(n.status().ToString());
    }
    const auto after = engram::graph::LinkGraphCountersNow();
    out["write_put_ms_p50"] = engram::search::Percentile(put_ms, 50);
    out["write_then_walk_ms_p50"] = engram::search::Percentile(walk_ms, 50);
    out["write_then_walk_ms_p95"] = engram::search::Percentile(walk_ms, 95);
    out["write_then_walk_rebuilds"] = after.builds - before.builds;
    out["write_then_walk_updates"] = after.updates - before.updates;
  }

  // Extraction: parsing every page, then reading its facts and relations again on the parsed page.
  if (!vault.empty()) {
    double parse = 0, extract = 0;
    size_t files = 0, facts = 0;
    for (const auto& e : fs::recursive_directory_iterator(vault)) {
      if (!e.is_regular_file() || e.path().extension() != ".md") continue;
      if (e.path().string().find("/.") != std::string::npos) continue;
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      const std::string rel = fs::relative(e.path(), vault).string();
      auto t0 = Clock::now();
      auto page = engram::text::ParsePage(rel, text.str());
      parse += Ms(t0, Clock::now());
      if (!page.ok()) continue;
      ++files;
      page->facts.clear();
      const nlohmann::json fm = nlohmann::json::parse(page->frontmatter_json, nullptr, false);
      t0 = Clock::now();
      engram::text::ReadPageFacts(fm, &*page);
      extract += Ms(t0, Clock::now());
      facts += page->facts.size();
    }
    out["parse_files"] = files;
    out["parse_ms_total"] = parse;
    out["extract_ms_total"] = extract;
    out["facts"] = facts;
  }
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
