// A brain: a folder of Markdown pages plus <root>/.engram/ (config.toml and
// engram.db). Brain carries out what the operations of src/ops/operations.h
// ask, with an OperationContext that says whether the caller is local (owns
// the filesystem) or remote (an agent: untrusted, never sees private pages).
//
// Who may call what is decided once, by the operation layer (ops::Call and
// ops::Run: the caller's scope and the local-only flag); Brain does not check
// it again. Remote callers (HTTP, MCP, `engram call --remote`) reach Brain
// only through operations; methods without an operation (Watch, WatchImport,
// Check, AuditLog, Hooks) are the local CLI's. What a remote caller may see
// and write is still Brain's business: ReadScopeOf(ctx), the trust boundary.
//
// Threading: one Brain per thread.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "engram/engine.h"
#include "engram/options.h"
#include "engram/search.h"
#include "engram/status.h"
#include "engram/sync_reports.h"

namespace engram {

namespace sync {
class WriteLock;
}
namespace search {
class VectorArm;
struct ContextOptions;
}
namespace llm {
class ChatClient;
}
namespace embed {
class Embedder;
}
namespace common {
class RootedDir;
}
namespace ops {
struct PageWriteLock;
class GitWrites;
}

// What a caller may do; each scope includes the ones before it.
enum class Scope { kRead = 0, kWrite = 1, kAdmin = 2 };
const char* ScopeName(Scope scope);            // "read", "write", "admin"
bool ParseScope(std::string_view name, Scope* scope);

struct OperationContext {
  bool remote = false;          // true for MCP/HTTP callers
  std::string transport = "cli";
  std::string caller;
  Scope scope = Scope::kAdmin;  // the local CLI may do anything
  // Optional: long operations (sync) report (files done, files in the batch).
  std::function<void(size_t, size_t)> progress = {};
};

// What the caller reads: the brain's pages, without the private ones for a
// remote caller. Every read on the caller's behalf passes it to the store.
ReadScope ReadScopeOf(const OperationContext& ctx);

struct InitReport {
  std::filesystem::path root;
  bool created = false;               // false: the brain already existed, nothing overwritten
  bool git_excluded = false;          // .engram/ was added to .git/info/exclude
};

struct CheckOptions {
  bool repair = false;  // re-index what is wrong, then check again
  bool full = false;    // compare every page with a rebuild, not a sample
  size_t sample = 100;  // pages compared with a rebuild when not full
};

struct CheckReport {
  std::string synced_commit;           // what the database was checked against ("" for plain folders)
  std::vector<ImportIssue> problems;   // path ("" when not about one file) and what is wrong
  size_t rebuilt_pages = 0;            // pages whose derived rows were compared with a rebuild
  bool repaired = false;               // --repair ran a re-sync
  std::vector<ImportIssue> remaining;  // problems still there after the repair
};

struct HookInfo {
  std::string name;        // "post-commit", "post-merge", "post-rewrite"
  std::string file;        // the hook file
  bool installed = false;  // engram's block is in it
  bool other_content = false;
};

struct EmbedReport {
  std::string provider;
  std::string model;
  int dims = 0;
  int64_t embedded = 0;       // chunks embedded now
  int64_t chunks = 0;         // chunks in the brain
  int64_t stale = 0;          // chunks still without an embedding of the model
  double seconds = 0;
  std::string index_note;     // what happened to the vector index (built, caught up), "" when nothing
};

struct EmbeddingStatus {
  std::string provider;       // "none" when keyword-only
  std::string model;          // configured model
  std::string recorded_model; // the model the brain's vectors come from ("" before the first embed)
  int recorded_dims = 0;
  int64_t chunks = 0;
  int64_t current = 0;
  int64_t stale = 0;
};

struct PutReport {
  std::string slug;
  std::string path;       // file written, relative to the source root
  bool created = false;   // false: an existing page was overwritten (a version was kept)
  std::vector<std::string> warnings;
  bool changed = true;    // edits (tag, link, timeline entry): false when the page already said it
  std::string commit;     // a git brain: the commit that holds the write
};

// `engram status`: where the brain is, what it holds, what went wrong lately.
struct BrainStatus {
  std::string root, source_root, database;  // empty for remote callers
  std::string synced_commit;                // "" before the first sync
  BrainStats stats;
  EmbeddingStatus embedding;
  std::vector<SyncFailure> sync_failures;       // files that are not pages because they failed
  std::vector<AuditEntry> quarantined;          // files kept out now: the latest rule and line per file
  std::string last_sync_error;                  // "" when the last import or sync finished
  std::vector<IngestLogEntry> recent_problems;  // skips, warnings and errors of recent imports
};

struct ContextReport {
  std::string block;  // the <retrieved_context> block
  size_t count = 0;   // entries in it
};

class Brain {
 public:
  ~Brain();
  Brain(const Brain&) = delete;
  Brain& operator=(const Brain&) = delete;

  // Creates dir/.engram/ with config.toml and engram.db. An existing brain is
  // left as it is (created = false); a corrupt engram.db is an error.
  static Result<InitReport> Init(const std::filesystem::path& dir);

  // The brain root: explicit (--brain), else $ENGRAM_BRAIN, else the first
  // directory from the current one upwards that holds .engram/.
  static Result<std::filesystem::path> Locate(const std::string& explicit_dir);

  static Result<std::unique_ptr<Brain>> Open(const std::filesystem::path& root);

  // The built-in defaults with ENGRAM_* environment overrides applied: the
  // options of a command that runs outside any brain (eval).
  static Result<BrainOptions> DefaultOptions();

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path db_path() const { return root_ / ".engram" / "engram.db"; }
  const BrainOptions& options() const { return options_; }
  BrainOptions& mutable_options() { return options_; }
  Engine& engine() { return *engine_; }

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
  // Writes <source root>/<slug>.md and indexes it.
  Result<PutReport> Put(const OperationContext& ctx, std::string_view slug, std::string_view content);
  // NotFound for a local caller naming a file that is not a page says why
  // (failed, quarantined: rule and line, out of scope) and how to index it.
  Result<StoredPage> Get(const OperationContext& ctx, std::string_view slug);
  Result<std::vector<PageSummary>> List(const OperationContext& ctx, ListFilter filter);
  // Removes the page and its Markdown file.
  Status Delete(const OperationContext& ctx, std::string_view slug);
  // Pages linking to slug (for remote callers, none from private pages).
  Result<std::vector<LinkRecord>> Backlinks(const OperationContext& ctx, std::string_view slug);
  Result<std::vector<TimelineEntry>> Timeline(const OperationContext& ctx, std::string_view slug);
  Result<std::vector<std::string>> Tags(const OperationContext& ctx, std::string_view slug);
  // Edits of a page's Markdown (text/page_edit.h), written and indexed like
  // Put, under the write lock for the whole read-modify-write.
  Result<PutReport> AddTag(const OperationContext& ctx, std::string_view slug, std::string_view tag);
  Result<PutReport> AddTimelineEntry(const OperationContext& ctx, std::string_view slug, std::string_view date,
                                     std::string_view summary, std::string_view source);
  Result<PutReport> AddLink(const OperationContext& ctx, std::string_view slug, std::string_view target,
                            std::string_view type);
  Result<BrainStatus> GetStatus(const OperationContext& ctx);
  // The agent context block for a query (search/context_block.h); a query
  // with no searchable words gives an empty block.
  Result<ContextReport> Context(const OperationContext& ctx, std::string_view query, SearchOptions options,
                                const search::ContextOptions& context);
  Result<SearchResponse> Search(const OperationContext& ctx, std::string_view query, SearchOptions options);
  // Embeds stale chunks (all chunks with all) with the configured provider;
  // progress (optional) gets (done, total). A brain whose vectors come from
  // another model refuses --stale: the dimensions or the space differ.
  Result<EmbedReport> Embed(const OperationContext& ctx, bool all, std::function<void(int64_t, int64_t)> progress = {});
  Result<EmbeddingStatus> EmbeddingState();
  // A query's vector from the configured embedder, cached in the database.
  Result<std::vector<float>> EmbedQuery(std::string_view query);
  // The configured embedder (opened once); FailedPrecondition when provider = "none".
  Result<embed::Embedder*> GetEmbedder();

  // Search options filled from the brain's configuration.
  SearchOptions DefaultSearchOptions() const;
  Result<BrainStats> Stats();

  // Folder holding the Markdown of the default source.
  Result<std::filesystem::path> SourceRoot();

 private:
  Brain(std::filesystem::path root, BrainOptions options, std::unique_ptr<Engine> engine);
  // The pages' folder, opened so that no file operation leaves it: remote
  // callers never pass a symbolic link (common/rooted_dir.h).
  Result<std::unique_ptr<common::RootedDir>> Files(const OperationContext& ctx);
  // Put with the page-write lock already held; operation names the write
  // in its commit ("put", "tag", ...).
  Result<PutReport> PutLocked(const OperationContext& ctx, ops::PageWriteLock& held, std::string_view operation,
                              std::string_view slug, std::string_view content);
  // Delete on a git brain: the file's removal is committed with the page's.
  Status DeleteCommitted(const OperationContext& ctx, ops::GitWrites& git, common::RootedDir& dir,
                         const StoredPage& page);
  // Reads the page, applies edit to its content, writes it back when it changed.
  Result<PutReport> EditPage(const OperationContext& ctx, std::string_view slug, std::string_view what,
                             const std::function<Result<std::string>(const StoredPage&)>& edit);
  // Why the file a local caller named is not a page (failed, quarantined
  // with rule and line, out of scope) and how to index it; "" when no such file.
  std::string WhyNotAPage(std::string_view slug);
  // The single-writer lock, held for the whole of a write.
  Result<std::unique_ptr<sync::WriteLock>> LockForWrite(std::string_view what);
  // The lock of a put, delete or page edit. On a git brain the database
  // first catches up with HEAD, and the lock carries what commits the write.
  Result<std::unique_ptr<ops::PageWriteLock>> LockForPageWrite(std::string_view what);
  // Under the write lock: embeds up to options().embedding_inline_limit stale
  // chunks; embeds nothing when more are stale. Returns (embedded, stale, note).
  std::tuple<int64_t, int64_t, std::string> EmbedInline();
  Result<EmbedReport> EmbedLocked(bool all, const std::function<void(int64_t, int64_t)>& progress);
  // The vector index of the recorded model, caught up with the database.
  Result<search::VectorArm*> Vectors();

  std::filesystem::path root_;
  BrainOptions options_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<embed::Embedder> embedder_;
  std::unique_ptr<search::VectorArm> vectors_;  // opened by the first vector search
  std::string vectors_note_;                     // what opening it did (built, caught up)
  std::unique_ptr<llm::ChatClient> chat_;        // query expansion, when configured
};

}  // namespace engram
