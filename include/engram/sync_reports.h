// What an import or a sync did, file by file: the reports `engram import`
// and `engram sync` print and the operations return. The sync module fills
// them; the operation layer (engram/brain.h) passes them on.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace engram {

struct ImportIssue {
  std::string path;    // source-relative
  std::string reason;
  int line = 0;        // quarantined: the line of the hit (0: the path or name hit)
};

struct ImportReport {
  std::string root;
  int64_t scanned = 0;
  int64_t added = 0;
  int64_t updated = 0;
  int64_t unchanged = 0;
  int64_t removed = 0;
  std::vector<ImportIssue> skipped;   // not indexed, with the reason
  std::vector<ImportIssue> warnings;  // indexed, but something was wrong (e.g. frontmatter)
  std::vector<ImportIssue> quarantined;  // kept out by a sensitive-content rule (reason = rule id)
  // Markdown files not indexed, counted by kind (sync::SkipKind): the skipped
  // ones above, quarantined ones, and those out of scope (skip_files, exclude…).
  std::map<std::string, int64_t> skipped_by_reason;
  int64_t rekeyed = 0;                // pages whose slug changed when new indexing rules re-indexed the brain
  double seconds = 0;
  int64_t embedded = 0;               // chunks embedded inline (small imports, a model configured)
  int64_t embedding_stale = 0;        // chunks left for `engram embed`
  std::string embedding_note;         // why embedding was skipped or failed ("" when fine)
};

struct SyncReport {
  std::string from;        // the anchor before this sync ("" on the first one)
  std::string to;          // the commit now synced
  std::string mode;        // "up to date", "diff", "full walk", and why when it had to fall back
  int64_t added = 0;
  int64_t updated = 0;
  int64_t renamed = 0;
  int64_t deleted = 0;
  int64_t unchanged = 0;
  std::vector<ImportIssue> skipped;   // not pages: symlinks, submodules
  std::vector<ImportIssue> failed;    // could not be indexed; retried by the next sync
  std::vector<ImportIssue> warnings;  // indexed, but something was wrong (e.g. frontmatter)
  std::vector<ImportIssue> quarantined;  // kept out by a sensitive-content rule (reason = rule id)
  // Files not indexed, counted by kind (as ImportReport::skipped_by_reason),
  // of the files this sync looked at.
  std::map<std::string, int64_t> skipped_by_reason;
  bool worktree = false;              // uncommitted and untracked changes were applied too
  int64_t rekeyed = 0;                // pages whose slug changed when new indexing rules re-indexed the brain
  double seconds = 0;
  int64_t embedded = 0;               // chunks embedded inline after the sync
  int64_t embedding_stale = 0;        // chunks left for `engram embed`
  std::string embedding_note;         // why embedding was skipped or failed ("" when fine)
};

}  // namespace engram
