// The sync module: bringing the brain in line with its files — `import` of a
// folder, `sync` with a git repository's HEAD, watching either — and keeping
// it honest: `check` (and --repair), the quarantine audit, the git hooks.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <string_view>
#include <vector>

#include "engram/brain.h"

namespace engram::ops {

class SyncModule final : public BrainModule {
 public:
  explicit SyncModule(Brain& brain) : brain_(brain) {}

  // Scans dir into the default source (see `engram import --help`).
  Result<ImportReport> Import(const OperationContext& ctx, const std::filesystem::path& dir, bool dry_run);
  // Syncs, then keeps syncing until *stop is set: whenever HEAD moves (polled
  // every interval_ms) or, with worktree, when files change (inotify).
  // on_sync gets each sync that changed something (or failed a file).
  Status Watch(const OperationContext& ctx, int interval_ms, bool worktree, const std::atomic<bool>& stop,
               const std::function<void(const SyncReport&)>& on_sync);
  // Imports dir, then keeps importing it until *stop is set: after files
  // change (inotify on every non-hidden folder), once quiet_ms pass with no
  // further change, so a burst of saves costs one import. on_import gets the
  // first import and each later one that changed something.
  Status WatchImport(const OperationContext& ctx, const std::filesystem::path& dir, int quiet_ms,
                     const std::atomic<bool>& stop, const std::function<void(const ImportReport&)>& on_import);
  // Brings the brain in line with its git repository's HEAD (see `engram sync --help`).
  // progress (optional) is called with (files done, files in the batch).
  Result<SyncReport> Sync(const OperationContext& ctx, bool full, bool worktree,
                          std::function<void(size_t, size_t)> progress = {});
  // With the write lock held: syncs the brain with HEAD (committed files
  // only), as a write on a git brain does before it builds on HEAD.
  Status CatchUpLocked();
  // Verifies the database against the synced commit, against itself, and
  // the derived rows of a sample of pages (all with options.full) against a
  // rebuild from their Markdown; with options.repair, re-indexes what is
  // wrong and checks again.
  Result<CheckReport> Check(const OperationContext& ctx, const CheckOptions& options);
  Result<CheckReport> Check(const OperationContext& ctx, bool repair) {
    return Check(ctx, CheckOptions{.repair = repair});
  }
  // Quarantine audit rows, newest first.
  Result<std::vector<AuditEntry>> AuditLog(const OperationContext& ctx, size_t limit);
  // Git hooks that run `engram sync --quiet` in the background after commits,
  // merges and rewrites. action: "install", "uninstall" or "status".
  Result<std::vector<HookInfo>> Hooks(const OperationContext& ctx, std::string_view action);

 private:
  Brain& brain_;
};

// `engram status`: the brain's counts, its sync and embedding state, and
// what went wrong lately (where the files are only for a local caller).
Result<BrainStatus> GetStatus(Brain& brain, const OperationContext& ctx);

}  // namespace engram::ops
