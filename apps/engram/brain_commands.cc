#include "brain_commands.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>

#include "command_support.h"
#include "ops/migrate.h"
#include "ops/sync_module.h"
#include "output.h"

namespace engram::cli {

namespace {

using Json = nlohmann::json;

struct ImportArgs {
  std::string dir;  // "": the brain root
  bool dry_run = false, watch = false;
  double quiet = 0.5;
};

struct SyncArgs {
  bool full = false, worktree = false, quiet = false, watch = false;
  double interval = 2.0;
};

int RunInit(const std::string& dir, const std::string& postgres, bool json) {
  auto r = Brain::Init(dir, postgres);
  if (!r.ok()) return Fail(r.status(), json);
  if (json) {
    Print({{"root", r->root.string()},
           {"created", r->created},
           {"git_excluded", r->git_excluded},
           {"engine", postgres.empty() ? "sqlite" : "postgres"},
           {"database", r->database}});
  } else {
    std::cout << (r->created ? "Initialised brain at " : "Brain already initialised at ") << r->root.string()
              << "\n  config:   " << (r->root / ".engram" / "config.toml").string()
              << "\n  database: " << r->database << (postgres.empty() ? "" : " (PostgreSQL)") << "\n";
    if (r->git_excluded) std::cout << "  added .engram/ to .git/info/exclude\n";
  }
  return 0;
}

int RunImport(const ImportArgs& a, bool json, const std::string& brain_dir) {
  if (a.watch && a.dry_run) return Fail(Status::InvalidArgument("--watch and --dry-run do not go together"), json);
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  const std::filesystem::path dir = a.dir.empty() ? (*brain)->root() : std::filesystem::path(a.dir);
  if (a.watch) {
    Status st = (*brain)->Module<ops::SyncModule>().WatchImport(
        OperationContext{}, dir, static_cast<int>(a.quiet * 1000), StopOnSignals(), [json](const ImportReport& r) {
          if (json) {
            std::cout << ops::Dump(ToJson(r)) << std::endl;  // one document per import
          } else {
            std::cout << FormatImport(r) << std::flush;
          }
        });
    if (!st.ok()) return Fail(st, json);
    std::cerr << "engram: watch stopped\n";
    return 0;
  }
  auto r = CallOperation(**brain, "import", {{"dir", dir.string()}, {"dry_run", a.dry_run}});
  if (!r.ok()) return Fail(r.status(), json);
  if (json) Print(*r);
  else std::cout << (a.dry_run ? "(dry run) " : "") << FormatImport(*r);
  return 0;
}

// A progress line on a terminal for batches of more than ~100 files.
std::function<void(size_t, size_t)> SyncProgress() {
  auto start = std::chrono::steady_clock::now();
  return [start](size_t done, size_t total) {
    if (total <= 100 || (done % 50 != 0 && done != total)) return;
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double rate = secs > 0 ? static_cast<double>(done) / secs : 0;
    double eta = rate > 0 ? static_cast<double>(total - done) / rate : 0;
    std::fprintf(stderr, "\r[sync] %zu/%zu files  %.0f files/s  ETA %.0f s   ", done, total, rate, eta);
    if (done == total) std::fprintf(stderr, "\n");
  };
}

int RunSync(const SyncArgs& a, bool json, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  if (a.watch) {
    ops::SyncModule& sync = (*brain)->Module<ops::SyncModule>();
    Status st = sync.Watch(OperationContext{}, static_cast<int>(a.interval * 1000), a.worktree, StopOnSignals(),
                           [&a, json](const SyncReport& r) {
                             if (json) {
                               std::cout << ops::Dump(ToJson(r)) << std::endl;  // one document per sync
                             } else if (!a.quiet || !r.failed.empty()) {
                               std::cout << FormatSync(r) << std::flush;
                             }
                           });
    if (!st.ok()) return Fail(st, json);
    if (!a.quiet) std::cerr << "engram: watch stopped\n";
    return 0;
  }
  OperationContext ctx;
  if (!a.quiet && !json && isatty(STDERR_FILENO)) ctx.progress = SyncProgress();
  auto r = CallOperation(**brain, "sync", {{"full", a.full}, {"worktree", a.worktree}}, ctx);
  if (!r.ok()) return Fail(r.status(), json);
  const bool failed = !(*r)["failed"].empty();
  if (json) {
    Print(*r);
  } else if (!a.quiet || failed) {
    std::cout << FormatSync(*r);
  }
  return failed ? 1 : 0;
}

int RunAudit(size_t limit, bool json, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  auto r = (*brain)->Module<ops::SyncModule>().AuditLog(OperationContext{}, limit);
  if (!r.ok()) return Fail(r.status(), json);
  if (json) {
    Json rows = Json::array();
    for (const auto& e : *r) rows.push_back({{"at", e.at}, {"path", e.path}, {"rule", e.rule}, {"line", e.line}});
    Print({{"audit", rows}, {"count", r->size()}});
    return 0;
  }
  for (const auto& e : *r) {
    std::cout << e.at << "  " << e.rule << "  " << e.path
              << (e.line > 0 ? ":" + std::to_string(e.line) : std::string()) << "\n";
  }
  std::cout << r->size() << " quarantined file(s) recorded\n";
  return 0;
}

void PrintCheckText(const CheckReport& r) {
  const auto& left = r.repaired ? r.remaining : r.problems;
  for (const auto& p : r.problems) std::cout << "problem: " << (p.path.empty() ? "" : p.path + ": ") << p.reason << "\n";
  if (r.repaired) {
    std::cout << (r.synced_commit.empty() ? std::string("repaired: re-indexed from the stored Markdown")
                                          : "repaired: re-synced " + r.synced_commit.substr(0, 12))
              << "\n";
    for (const auto& p : r.remaining) {
      std::cout << "still wrong: " << (p.path.empty() ? "" : p.path + ": ") << p.reason << "\n";
    }
  }
  std::cout << "compared " << r.rebuilt_pages << " page(s) with a rebuild\n";
  std::cout << (left.empty() ? "ok: the brain is consistent" : "the brain is inconsistent") << "\n";
}

int RunCheck(const CheckOptions& options, bool json, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  auto r = (*brain)->Module<ops::SyncModule>().Check(OperationContext{}, options);
  if (!r.ok()) return Fail(r.status(), json);
  const auto& left = r->repaired ? r->remaining : r->problems;
  if (json) {
    auto list = [](const std::vector<ImportIssue>& v) {
      Json a = Json::array();
      for (const auto& p : v) a.push_back({{"path", p.path}, {"problem", p.reason}});
      return a;
    };
    Print({{"ok", left.empty()}, {"synced_commit", r->synced_commit}, {"problems", list(r->problems)},
           {"rebuilt_pages", r->rebuilt_pages}, {"repaired", r->repaired}, {"remaining", list(r->remaining)}});
  } else {
    PrintCheckText(*r);
  }
  return left.empty() ? 0 : 1;
}

int RunHook(const std::string& action, bool json, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  auto r = (*brain)->Module<ops::SyncModule>().Hooks(OperationContext{}, action);
  if (!r.ok()) return Fail(r.status(), json);
  if (json) {
    Json hooks = Json::array();
    for (const auto& h : *r) {
      hooks.push_back({{"name", h.name}, {"file", h.file}, {"installed", h.installed}, {"other_content", h.other_content}});
    }
    Print({{"hooks", hooks}});
    return 0;
  }
  for (const auto& h : *r) {
    std::cout << (h.installed ? "installed " : "absent    ") << h.name << "  " << h.file
              << (h.other_content ? "  (also runs other commands)" : "") << "\n";
  }
  return 0;
}

// The text of `engram status`, from the status operation's JSON.
void PrintStatusText(const Json& st) {
  const Json& emb = st["embedding"];
  std::cout << "brain:            " << StringField(st, "root") << "\n";
  std::cout << "markdown from:    " << StringField(st, "source_root") << "\n";
  const std::string synced = StringField(st, "synced_commit");
  std::cout << "synced commit:    " << (synced.empty() ? "(never synced)" : synced) << "\n";
  std::cout << FormatStats(st);
  if (StringField(emb, "provider") == "none") {
    std::cout << "embeddings:       none (keyword search only; `engram model use NAME` adds a model)\n";
  } else {
    std::cout << "embeddings:       " << StringField(emb, "provider") << " " << StringField(emb, "model") << ": "
              << emb["embedded"].get<int64_t>() << " of " << emb["chunks"].get<int64_t>() << " chunks embedded";
    if (emb["stale"].get<int64_t>() > 0) {
      std::cout << ", " << emb["stale"].get<int64_t>() << " stale (run `engram embed --stale`)";
    }
    std::cout << "\n";
  }
  const std::string sync_error = StringField(st, "last_sync_error");
  if (!sync_error.empty()) std::cout << "last sync failed: " << sync_error << "\n";
  if (!st["sync_failures"].empty()) {
    std::cout << "failed files (not pages; retried by the next sync or import):\n";
    for (const auto& x : st["sync_failures"]) {
      std::cout << "  " << StringField(x, "path") << ": " << StringField(x, "reason") << "\n";
    }
  }
  if (!st["quarantined"].empty()) {
    std::cout << "quarantined files (not pages; `engram get` says how to allow one):\n";
    for (const auto& q : st["quarantined"]) {
      const int line = q.value("line", 0);
      std::cout << "  " << StringField(q, "path") << ": rule " << StringField(q, "rule")
                << (line > 0 ? ", line " + std::to_string(line) : std::string(", path or name")) << "\n";
    }
  }
  if (!st["recent_problems"].empty()) {
    std::cout << "recent import problems:\n";
    for (const auto& e : st["recent_problems"]) {
      std::cout << "  " << StringField(e, "action") << " " << StringField(e, "path") << ": " << StringField(e, "message") << "\n";
    }
  }
}

int RunStatus(bool json, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  auto st = CallOperation(**brain, "status", Json::object());
  if (!st.ok()) return Fail(st.status(), json);
  if (json) Print(*st);
  else PrintStatusText(*st);
  return 0;
}

void AddInit(CLI::App& app, const bool* json, int* exit_code) {
  auto dir = std::make_shared<std::string>(".");
  auto* init = app.add_subcommand("init", "Create a brain: DIR/.engram/ with config.toml and engram.db");
  auto postgres = std::make_shared<std::string>();
  init->add_option("DIR", *dir, "Folder to turn into a brain (created if missing; default: .)");
  init->add_option("--postgres", *postgres,
                   "Keep the brain's database in PostgreSQL instead of .engram/engram.db:\n"
                   "postgres://USER[:PASSWORD]@HOST:PORT/DB (an empty database, or one engram created)");
  init->footer("An existing brain is left untouched. In a git repository, .engram/ is added to .git/info/exclude.\n"
               "With --postgres, config.toml gets [store] engine = \"postgres\" and the URL without its password:\n"
               "give the password through ~/.pgpass or PGPASSWORD, or put the whole URL in an environment\n"
               "variable and name it in [store] url_env. Several servers can share one such database.");
  init->callback([dir, postgres, json, exit_code] { *exit_code = RunInit(*dir, *postgres, *json); });
}

void AddImport(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto a = std::make_shared<ImportArgs>();
  auto* import = app.add_subcommand("import", "Index a folder of Markdown files (hash-based: new, changed, removed)");
  import->add_option("DIR", a->dir, "Folder to scan (default: the brain root)");
  import->add_flag("--dry-run", a->dry_run, "Report what would change without writing");
  import->add_flag("--watch", a->watch,
                   "Keep importing: after files change (inotify), once they have been quiet for --quiet seconds;\n"
                   "for vaults that are not git repositories. Ctrl-C stops it");
  import->add_option("--quiet", a->quiet, "Seconds without a change before --watch imports (default 0.5)")
      ->check(CLI::Range(0.05, 60.0));
  import->footer(
      "Scans DIR recursively for .md files (hidden folders and node_modules are skipped).\n"
      "Unchanged files (same sha256) are skipped; files that disappeared are removed from the brain.\n"
      "Non-UTF-8 or binary files and files over import.max_file_bytes are skipped with the reason.\n"
      "A brain indexes one folder: the brain root, or the folder of its first import.");
  import->callback([a, json, brain_dir, exit_code] { *exit_code = RunImport(*a, *json, *brain_dir); });
}

void AddSync(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto a = std::make_shared<SyncArgs>();
  auto* sync = app.add_subcommand("sync", "Index the changes since the last synced git commit (the brain is a git repository)");
  sync->add_flag("--full", a->full, "Walk every file of HEAD instead of diffing from the last synced commit");
  sync->add_flag("--worktree", a->worktree, "Also apply uncommitted and untracked (not ignored) changes");
  sync->add_flag("--quiet,-q", a->quiet, "Print nothing unless something failed");
  sync->add_flag("--watch", a->watch,
                 "Keep syncing: after each new commit (HEAD polled every --interval), and with --worktree\n"
                 "after file changes (inotify). Ends cleanly on SIGINT or SIGTERM");
  sync->add_option("--interval", a->interval, "Seconds between checks of HEAD with --watch (default 2)")
      ->check(CLI::Range(0.1, 3600.0));
  sync->footer(
      "Diffs the last synced commit against HEAD (added, modified, type-changed, deleted, renamed, copied);\n"
      "the first sync, --full, or a vanished anchor walk the whole tree, and the output says which.\n"
      "Unchanged files are skipped, a renamed file keeps its page's identity, a deleted file takes\n"
      "everything derived from it along. The anchor advances in the same transaction as the changes.\n"
      "A file that cannot be indexed is named here and in `engram status`, and retried by the next sync.\n"
      "Folders that are not git repositories: use `engram import`.");
  sync->callback([a, json, brain_dir, exit_code] { *exit_code = RunSync(*a, *json, *brain_dir); });
}

void AddAuditAndCheck(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto limit = std::make_shared<size_t>(100);
  auto* audit = app.add_subcommand("audit", "List files kept out by the sensitive-content quarantine (path, rule, time)");
  audit->add_option("--limit", *limit, "At most this many rows, newest first (default 100)")
      ->check(CLI::Range(1, 1000000));
  audit->footer("Rows never contain file content. Silence a false positive with quarantine.allow in config.toml.");
  audit->callback([limit, json, brain_dir, exit_code] { *exit_code = RunAudit(*limit, *json, *brain_dir); });

  auto options = std::make_shared<CheckOptions>();
  auto* check = app.add_subcommand("check", "Verify the database against the files, a rebuild and itself");
  check->add_flag("--repair", options->repair, "Re-index what is wrong, then check again");
  check->add_flag("--full", options->full, "Compare every page with a rebuild (default: a random sample)");
  check->add_flag("--discard", options->discard,
                  "With --repair: an interrupted write that stops at a file you changed since keeps your version of it, finishes its other files and is closed");
  check->add_option("--sample", options->sample, "Pages compared with a rebuild without --full (default 100)")
      ->check(CLI::Range(0, 100000000));
  check->footer(
      "Finds files of the synced commit without a page, pages without a file, pages whose content differs,\n"
      "files the last sync could not index, rows left by deleted pages, posting lists that disagree with the\n"
      "chunks and titles or are damaged, corpus statistics that differ from the sums over the rows, and\n"
      "vector-log drift (unlogged vectors, vectors of deleted chunks or of changed text), writes that were\n"
      "interrupted (a merge, split or put killed halfway: what it was and how far it got) and the\n"
      "temporary files such a write left.\n"
      "Derived rows must equal a rebuild: for each sampled page (every page with --full) the Markdown is\n"
      "indexed again into a scratch store and its terms, chunks, chunk and title postings, links, tags,\n"
      "aliases and timeline entries are compared with the brain's; each difference names the page and the\n"
      "structure. --repair finishes interrupted writes (each file as the write planned it, byte for byte),\n"
      "removes their temporary files, re-indexes those pages (git brains from the synced commit, folders\n"
      "from the stored Markdown) and recomputes the statistics. Exits 1 when anything is wrong (after --repair:\n"
      "still wrong).");
  check->callback([options, json, brain_dir, exit_code] { *exit_code = RunCheck(*options, *json, *brain_dir); });
}

void AddHook(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto action = std::make_shared<std::string>();
  auto* hook = app.add_subcommand("hook", "Install, remove or show the git hooks that sync after each commit");
  hook->add_option("ACTION", *action, "install | uninstall | status")
      ->required()
      ->check(CLI::IsMember({"install", "uninstall", "status"}));
  hook->footer(
      "install adds a marked block to post-commit, post-merge and post-rewrite (in core.hooksPath when set)\n"
      "that starts `engram sync --quiet` in the background, logging to .engram/sync.log; the commit returns\n"
      "at once. Installing twice changes nothing; other commands in those hooks are kept. uninstall removes\n"
      "only engram's block (and a hook file that held nothing else).");
  hook->callback([action, json, brain_dir, exit_code] { *exit_code = RunHook(*action, *json, *brain_dir); });
}

int RunMigrate(const std::string& to, bool no_switch, bool json, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  const auto start = std::chrono::steady_clock::now();
  auto r = ops::MigrateBrain(**brain, to, !no_switch, [&](const CopyProgress& p) {
    if (!json) ProgressBar("migrate", p.rows_done, p.rows_total, start);
  });
  if (!r.ok()) return Fail(r.status(), json);
  if (json) {
    nlohmann::json tables = nlohmann::json::array();
    for (const CopiedTable& t : r->copy.tables) {
      tables.push_back({{"table", t.name}, {"rows", t.rows}, {"sha256", t.sha256}, {"resumed_after", t.resumed_after}});
    }
    Print({{"from", r->from}, {"to", r->to}, {"rows", r->copy.rows}, {"tables", tables},
           {"switched", r->switched}, {"seconds", r->seconds}});
    return 0;
  }
  int64_t resumed = 0;
  for (const CopiedTable& t : r->copy.tables) resumed += t.resumed_after;
  std::cout << "Copied " << r->copy.rows << " rows in " << r->copy.tables.size() << " tables from " << r->from
            << " to " << r->to << " (" << std::fixed << std::setprecision(1) << r->seconds << " s";
  if (resumed > 0) std::cout << "; resumed after " << resumed << " rows of an earlier run";
  std::cout << ")\n  verified: every table's row count and SHA-256 equal in both\n";
  if (r->switched) std::cout << "  the brain now uses " << r->to << " ([store] in .engram/config.toml)\n";
  else std::cout << "  the brain still uses " << r->from << " (the copy is not switched to)\n";
  return 0;
}

void AddMigrate(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto to = std::make_shared<std::string>();
  auto no_switch = std::make_shared<bool>(false);
  auto* migrate = app.add_subcommand("migrate", "Copy the brain's database to another engine (SQLite <-> PostgreSQL)");
  migrate->add_option("--to", *to, "Where to: a postgres:// URL, sqlite (this brain's .engram/engram.db) or sqlite:PATH")
      ->required();
  migrate->add_flag("--no-switch", *no_switch, "Only copy: leave [store] in config.toml as it is");
  migrate->footer(
      "Copies every table (pages, versions, chunks with their vectors, postings, links, tags, aliases, timeline,\n"
      "audit and ingest logs, sync anchors and failures, knowledge collections and entries, the change log)\n"
      "with their ids, under the brain's write lock, then reads every table back on both sides and compares\n"
      "row counts and SHA-256 checksums. The source is never modified. The target must be empty (or hold an\n"
      "interrupted migrate of this brain: running the same command again resumes it). Afterwards config.toml's\n"
      "[store] names the target (written without the URL's password; see `engram init --help`).");
  migrate->callback([to, no_switch, json, brain_dir, exit_code] {
    *exit_code = RunMigrate(*to, *no_switch, *json, *brain_dir);
  });
}

}  // namespace

void AddStatusCommand(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto* status = app.add_subcommand("status", "Show the brain's location, page counts and recent import problems");
  status->footer(
      "Also lists the files that are not pages and why: failed (with the reason) and quarantined (with the\n"
      "rule and line, never the content), and the last import or sync's error (the hook's background sync\n"
      "included). `engram get` on such a file says how to index it.");
  status->callback([json, brain_dir, exit_code] { *exit_code = RunStatus(*json, *brain_dir); });
}

void AddBrainCommands(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  AddInit(app, json, exit_code);
  AddImport(app, json, brain_dir, exit_code);
  AddSync(app, json, brain_dir, exit_code);
  AddAuditAndCheck(app, json, brain_dir, exit_code);
  AddHook(app, json, brain_dir, exit_code);
  AddMigrate(app, json, brain_dir, exit_code);
}

}  // namespace engram::cli
