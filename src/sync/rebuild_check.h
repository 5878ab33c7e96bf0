// The index checked against a rebuild: every derived row of a page (terms,
// chunk and title postings, chunks, links, tags, aliases, timeline) must be
// what writing the page's Markdown into an empty store produces.
//
// The rebuild uses the Markdown the page row holds, after its hash is
// checked; CheckAgainstCommit separately checks that hash against the synced
// commit, so together they compare the derived rows with the files. The
// rebuild goes through the same PreparePage and Engine::PutPage as every
// write, into a scratch in-memory store, and both stores' rows are compared
// through Engine::PageDerivedRows.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/status.h"
#include "engram/sync_reports.h"
#include "sync/page_indexer.h"

namespace engram::sync {

struct RebuildCheckOptions {
  std::string source = "default";
  IndexOptions indexing;         // the brain's: a rebuild must chunk and parse as the brain does
  bool full = false;             // every page; otherwise a random sample
  size_t sample = 100;           // pages compared when not full
  uint32_t seed = 0;             // of the sample; 0 picks one at random (each check sees other pages)
  std::set<std::string> include; // paths compared in any case (a repair checks again what it fixed)
};

// Appends a problem (the page's path, the structure that differs, the first
// differing row) for each page whose rows differ from its rebuild, and the
// page's path to reindex. *checked is the number of pages compared.
Status CheckAgainstRebuild(Engine& engine, const RebuildCheckOptions& options, std::vector<ImportIssue>* problems,
                           std::set<std::string>* reindex, size_t* checked);

}  // namespace engram::sync
