// The brain's core (engram/brain.h): creating, finding and opening a brain,
// and what every module shares — the source folder, the files, the write
// lock, the store's counts.
#include "engram/brain.h"

#include <cstdlib>
#include <fstream>

#include "common/files.h"
#include "common/rooted_dir.h"
#include "engram/store/open_store.h"
#include "ops/config.h"
#include "ops/config_edit.h"
#include "ops/index_format.h"
#include "sync/write_lock.h"

namespace engram {

namespace fs = std::filesystem;

namespace {

// Adds ".engram/" to .git/info/exclude of a repository root, once.
Result<bool> ExcludeFromGit(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root / ".git", ec)) return false;
  fs::path info = root / ".git" / "info";
  fs::create_directories(info, ec);
  if (ec) return Status::IOError(info.string() + ": " + ec.message());
  fs::path exclude = info / "exclude";
  std::string current;
  if (fs::exists(exclude, ec)) {
    ENGRAM_ASSIGN_OR_RETURN(current, common::ReadFile(exclude, 1 << 20));
  }
  if (current.find("\n.engram/\n") != std::string::npos || current.rfind(".engram/\n", 0) == 0) return false;
  if (!current.empty() && current.back() != '\n') current.push_back('\n');
  current += "# engram's database and config stay out of git\n.engram/\n";
  ENGRAM_RETURN_IF_ERROR(common::WriteFileAtomic(exclude, current));
  return true;
}

}  // namespace

Brain::Brain(fs::path root, BrainOptions options, std::unique_ptr<Engine> engine)
    : root_(std::move(root)), options_(options), engine_(std::move(engine)) {}

Brain::~Brain() = default;

namespace {

// A brain's SQLite file that exists and holds nothing was truncated or lost
// (a full disk, a bad copy): opening it would make a new, empty brain and
// silently forget what lived only there (knowledge collections, governed
// entries, the audit logs). Refused, with the way out.
Status RefuseEmptyDatabase(const fs::path& db) {
  std::error_code ec;
  if (!fs::is_regular_file(db, ec) || fs::file_size(db, ec) != 0 || ec) return Status::Ok();
  return Status::Corruption(db.string() +
                            " is empty (0 bytes): the brain's database was truncated or lost, and opening it would "
                            "start an empty brain. Restore it from a backup; or move it aside (mv " + db.string() +
                            " " + db.string() + ".lost), run `engram init` and `engram sync` (or `engram import`) to "
                            "rebuild the pages from the Markdown — knowledge collections and governed entries lived "
                            "only in the database and come back only from a backup or `engram kb import`");
}

// A database `engram migrate` was still copying into carries the source's
// name until the copy is verified; as a brain it is incomplete.
Status RefuseUnfinishedCopy(Engine& engine, const std::string& where) {
  ENGRAM_ASSIGN_OR_RETURN(std::string source, engine.GetConfigValue("migrated_from"));
  if (source.empty()) return Status::Ok();
  return Status::FailedPrecondition(
      where + " is an unfinished copy of " + source + " (`engram migrate` was interrupted): run the same `engram "
      "migrate --to ...` again from the brain that holds " + source + " to finish the copy, or point [store] in "
      "config.toml back at it");
}

}  // namespace

Result<InitReport> Brain::Init(const fs::path& dir, const std::string& postgres_url) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IOError(dir.string() + ": " + ec.message());
  InitReport report;
  report.root = fs::canonical(dir, ec);
  if (ec) return Status::IOError(dir.string() + ": " + ec.message());
  fs::path meta = report.root / ".engram";
  fs::create_directories(meta, ec);
  if (ec) return Status::IOError(meta.string() + ": " + ec.message());
  fs::path config = meta / "config.toml";
  fs::path db = meta / "engram.db";
  const bool had_config = fs::exists(config, ec);
  if (!postgres_url.empty()) {
    if (had_config) {
      ENGRAM_ASSIGN_OR_RETURN(BrainOptions existing, ops::LoadConfig(config));
      if (existing.store.engine != "postgres") {
        return Status::FailedPrecondition(report.root.string() + " is already a brain on SQLite; move it with "
                                          "`engram migrate --to postgres://...` instead of init");
      }
    } else {
      std::string text = ops::DefaultConfigToml();
      for (const auto& [key, value] : {std::pair<std::string, std::string>{"store.engine", "postgres"},
                                       {"store.url", ops::WithoutPassword(postgres_url)}}) {
        ENGRAM_ASSIGN_OR_RETURN(const ops::SettingInfo* setting, ops::FindSetting(key));
        ENGRAM_ASSIGN_OR_RETURN(ops::TomlValue v, ops::ParseSettingArgument(*setting, value));
        ENGRAM_ASSIGN_OR_RETURN(text, ops::SetInConfigText(text, *setting, v, config.string()));
      }
      ENGRAM_RETURN_IF_ERROR(common::WriteFileAtomic(config, text));
    }
  } else if (!had_config) {
    ENGRAM_RETURN_IF_ERROR(common::WriteFileAtomic(config, ops::DefaultConfigToml()));
  }
  ENGRAM_ASSIGN_OR_RETURN(BrainOptions options, ops::LoadConfig(config));
  EngineOptions eo;
  eo.create_if_missing = true;
  eo.busy_timeout_ms = options.store.busy_timeout_ms;
  const bool postgres = options.store.engine == "postgres";
  if (!postgres) ENGRAM_RETURN_IF_ERROR(RefuseEmptyDatabase(db));
  report.created = postgres ? !had_config : !fs::exists(db, ec);
  ENGRAM_ASSIGN_OR_RETURN(std::string uri, ops::BrainStoreUri(report.root, options.store));
  // This run connects with the URL as given (its password included); later ones find it through url_env or ~/.pgpass.
  if (!postgres_url.empty() && !had_config) uri = postgres_url;
  report.database = postgres ? DescribeStore(uri) : db.string();
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, OpenStore(uri, eo));
  ENGRAM_ASSIGN_OR_RETURN(report.git_excluded, ExcludeFromGit(report.root));
  // A new brain's pages are all indexed under today's rules and settings.
  if (report.created) {
    ENGRAM_RETURN_IF_ERROR(ops::RecordIndexFormat(*engine, kDefaultSource, ops::IndexFingerprint(options)));
  }
  return report;
}

Result<fs::path> Brain::Locate(const std::string& explicit_dir) {
  std::error_code ec;
  auto check = [&](const fs::path& p, const std::string& from) -> Result<fs::path> {
    if (!fs::is_directory(p / ".engram", ec)) {
      return Status::FailedPrecondition(from + p.string() + " is not a brain (no .engram/ folder); run `engram init " +
                                        p.string() + "`");
    }
    return fs::canonical(p, ec);
  };
  if (!explicit_dir.empty()) return check(explicit_dir, "--brain ");
  if (const char* env = std::getenv("ENGRAM_BRAIN"); env != nullptr && *env != '\0') {
    return check(env, "ENGRAM_BRAIN=");
  }
  fs::path dir = fs::current_path(ec);
  while (!dir.empty()) {
    if (fs::is_directory(dir / ".engram", ec)) return dir;
    fs::path parent = dir.parent_path();
    if (parent == dir) break;
    dir = parent;
  }
  return Status::FailedPrecondition(
      "no brain found in the current directory or above; run `engram init DIR`, or pass --brain DIR "
      "or set ENGRAM_BRAIN");
}

Result<std::unique_ptr<Brain>> Brain::Open(const fs::path& root) {
  ENGRAM_ASSIGN_OR_RETURN(BrainOptions options, ops::LoadConfig(root / ".engram" / "config.toml"));
  EngineOptions eo;
  eo.busy_timeout_ms = options.store.busy_timeout_ms;
  ENGRAM_ASSIGN_OR_RETURN(std::string uri, ops::BrainStoreUri(root, options.store));
  if (options.store.engine == "postgres") {
    eo.read_uri = options.store.read_url;
  } else {
    ENGRAM_RETURN_IF_ERROR(RefuseEmptyDatabase(root / ".engram" / "engram.db"));
  }
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, OpenStore(uri, eo));
  ENGRAM_RETURN_IF_ERROR(RefuseUnfinishedCopy(*engine, DescribeStore(uri)));
  return std::unique_ptr<Brain>(new Brain(root, options, std::move(engine)));
}

Result<BrainOptions> Brain::DefaultOptions() {
  BrainOptions options;
  ENGRAM_RETURN_IF_ERROR(ops::ApplyEnvironment(&options));
  return options;
}

Result<fs::path> Brain::SourceRoot() {
  ENGRAM_ASSIGN_OR_RETURN(std::string root, engine_->SourceRoot(kDefaultSource));
  return root.empty() ? root_ : fs::path(root);
}

Result<std::unique_ptr<sync::WriteLock>> Brain::LockForWrite(std::string_view what) {
  return sync::WriteLock::Acquire(root_ / ".engram" / "write.lock", what, options_.store.lock_timeout_ms);
}

Result<std::unique_ptr<common::RootedDir>> Brain::Files(const OperationContext& ctx) {
  ENGRAM_ASSIGN_OR_RETURN(fs::path source_root, SourceRoot());
  // Remote callers never pass a link, whatever the folder holds; the owner's
  // own links (a linked folder in a vault) are followed for local callers.
  return common::RootedDir::Open(source_root, ctx.remote ? common::RootedDir::Links::kRefuse
                                                         : common::RootedDir::Links::kFollow);
}

ReadScope ReadScopeOf(const OperationContext& ctx) {
  return ctx.remote ? ReadScope::Public(kDefaultSource) : ReadScope::All(kDefaultSource);
}

Result<BrainStats> Brain::Stats() { return engine_->Stats(ReadScope::All(kDefaultSource)); }

const char* ScopeName(Scope scope) {
  switch (scope) {
    case Scope::kRead: return "read";
    case Scope::kWrite: return "write";
    case Scope::kAdmin: return "admin";
  }
  return "read";
}

bool ParseScope(std::string_view name, Scope* scope) {
  for (Scope s : {Scope::kRead, Scope::kWrite, Scope::kAdmin}) {
    if (name == ScopeName(s)) {
      *scope = s;
      return true;
    }
  }
  return false;
}

}  // namespace engram
