// A brain: a folder of Markdown pages plus <root>/.engram/ (config.toml and
// engram.db). Brain is the core the modules share — the root, the options,
// the store (engine), the single-writer lock and the pages' folder — and
// wires them to the modules that carry out the operations of
// src/ops/operations.h: ops::PageModule (page_module.h), ops::SearchModule,
// ops::SyncModule and ops::EmbeddingModule, and every later one, each built on
// first use by Module<M>(). An OperationContext says whether the caller is
// local (owns the filesystem) or remote (an agent: untrusted, never sees
// private pages).
//
// Who may call what is decided once, by the operation layer (ops::Call and
// ops::Run: the caller's scope and the local-only flag); no module checks it
// again. Remote callers (HTTP, MCP, `engram call --remote`) reach the modules
// only through operations; methods without an operation (watch, check,
// audit, hooks) are the local CLI's. What a remote caller may see and write
// is still the modules' business: ReadScopeOf(ctx), the trust boundary.
//
// Threading: one Brain (and so one of each module) per thread.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
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
namespace common {
class RootedDir;
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
  std::string database;               // the SQLite file, or PostgreSQL's host:port/db
  bool created = false;               // false: the brain already existed, nothing overwritten
  bool git_excluded = false;          // .engram/ was added to .git/info/exclude
};

struct CheckOptions {
  bool repair = false;  // re-index what is wrong, then check again
  bool full = false;    // compare every page with a rebuild, not a sample
  size_t sample = 100;  // pages compared with a rebuild when not full
  // With repair: an interrupted write stopped at a file someone changed
  // since keeps the person's version and is closed (else it stays open).
  bool discard = false;
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

// The base of a brain's modules. A module owns one concern of the brain
// (pages, search, sync, embeddings; later knowledge collections, the graph,
// jobs): its methods, its state (an open index, a client) and, through its
// registrar in src/ops/operations.h, its operations. Modules are built on
// first use by Brain::Module<M>() from the Brain they serve, reach the
// stores, options, locks and files through it, and each other through
// Module<>() too; Brain knows none of them.
class BrainModule {
 public:
  virtual ~BrainModule() = default;
};

class Brain {
 public:
  ~Brain();
  Brain(const Brain&) = delete;
  Brain& operator=(const Brain&) = delete;

  // Creates dir/.engram/ with config.toml and engram.db. An existing brain is
  // left as it is (created = false); a corrupt engram.db is an error.
  // With postgres_url, the brain's database is that PostgreSQL database
  // ([store] engine = "postgres"; the URL is written without its password).
  static Result<InitReport> Init(const std::filesystem::path& dir, const std::string& postgres_url = "");

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

  // The module of type M (derived from BrainModule, constructible from
  // Brain&), built on first use and kept for the brain's life.
  template <class M>
  M& Module() {
    static_assert(std::is_base_of_v<BrainModule, M>, "a brain module derives from BrainModule");
    std::unique_ptr<BrainModule>& slot = modules_[std::type_index(typeid(M))];
    if (!slot) slot = std::make_unique<M>(*this);
    return static_cast<M&>(*slot);
  }

  Result<BrainStats> Stats();
  // Folder holding the Markdown of the default source.
  Result<std::filesystem::path> SourceRoot();
  // The pages' folder, opened so that no file operation leaves it: remote
  // callers never pass a symbolic link (common/rooted_dir.h).
  Result<std::unique_ptr<common::RootedDir>> Files(const OperationContext& ctx);
  // The single-writer lock, held for the whole of a write.
  Result<std::unique_ptr<sync::WriteLock>> LockForWrite(std::string_view what);

 private:
  Brain(std::filesystem::path root, BrainOptions options, std::unique_ptr<Engine> engine);

  std::filesystem::path root_;
  BrainOptions options_;
  std::unique_ptr<Engine> engine_;
  // Declared last: modules go before the engine they use.
  std::map<std::type_index, std::unique_ptr<BrainModule>> modules_;
};

}  // namespace engram
