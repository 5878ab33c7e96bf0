// Folder import: a hash-based scan of a directory of Markdown files. New and
// changed files are indexed, unchanged ones skipped, files that disappeared
// (or became unreadable as text) are removed from the brain. This is the path
// for folders that are not git repositories.
//
// One file never aborts the import: a file that cannot be read or prepared
// (even by an exception) is skipped with the reason, recorded as a failure
// (Engine::SyncFailures: the import's own, replacing the last import's) and
// the rest commit. Quarantined files get an audit row with rule and line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/status.h"
#include "engram/sync_reports.h"
#include "sync/scope.h"
#include "sync/sensitive.h"
#include "sync/page_indexer.h"

namespace engram::sync {

struct ImportOptions {
  std::string source = "default";
  uint64_t max_file_bytes = 5u << 20;  // larger files are skipped with the reason
  IndexOptions indexing;  // chunking and parsing as the brain does
  bool dry_run = false;                // report what would change, write nothing
  Scope scope;
  SensitiveRules sensitive = SensitiveRules::Defaults();
};

// Scans root and brings the engine's source in line with it.
Result<ImportReport> ImportDirectory(Engine& engine, const std::filesystem::path& root, const ImportOptions& options);

}  // namespace engram::sync
