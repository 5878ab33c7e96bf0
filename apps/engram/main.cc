// The `engram` command line: a thin adapter over engram::Brain.
//
// Contract: `--json` prints exactly one JSON document on stdout; logs,
// progress and errors go to stderr. Exit codes: 0 ok, 1 the operation
// failed, 2 usage error.
#include <signal.h>
#include <unistd.h>

#include <atomic>

#include <CLI/CLI.hpp>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "engram/brain.h"
#include "engram/eval.h"
#include "search/context_block.h"
#include "search/metrics.h"
#include "common/files.h"
#include "common/utf8.h"
#include "call_command.h"
#include "config_command.h"
#include "server_commands.h"
#include "embed_commands.h"
#include "vector_commands.h"
#include "model_commands.h"
#include "output.h"

namespace {

using engram::Brain;
using engram::OperationContext;
using engram::Result;
using engram::Status;
using Json = nlohmann::json;

struct Globals {
  std::string brain_dir;
  bool json = false;
};

int Fail(const Status& st, const Globals& g) { return engram::cli::Fail(st, g.json); }

// Never throws: invalid UTF-8 from a file name, an argument or a page is replaced.
void Print(const Json& j) { std::cout << engram::ops::Dump(j, 2) << "\n"; }

Result<std::unique_ptr<Brain>> OpenBrain(const Globals& g) {
  ENGRAM_ASSIGN_OR_RETURN(std::filesystem::path root, Brain::Locate(g.brain_dir));
  return Brain::Open(root);
}

// Reads all of stdin, refusing more than max_bytes.
Result<std::string> ReadStdin(uint64_t max_bytes) {
  std::string data;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
    data.append(buf, n);
    if (data.size() > max_bytes) {
      return Status::InvalidArgument("input is over the limit of " + std::to_string(max_bytes) + " bytes");
    }
  }
  return data;
}

// Reads a whole file, refusing more than max_bytes.
Result<std::string> ReadFile(const std::string& path, uint64_t max_bytes) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return Status::InvalidArgument(path + ": not a regular file");
  if (std::filesystem::file_size(path, ec) > max_bytes) {
    return Status::InvalidArgument(path + ": over the limit of " + std::to_string(max_bytes) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError(path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "engram: a local-first knowledge brain for people and AI agents.\n"
      "Markdown pages (Chinese and English) in a folder or git repository, indexed into an embedded\n"
      "SQLite database and searched by keyword (bilingual BM25), by meaning (a built-in BERT runtime or an\n"
      "OpenAI-compatible server, HNSW) or both (hybrid), with an agent-safe context block.",
      "engram"};
  app.set_version_flag("--version", "engram 0.1.0");
  app.require_subcommand(1);
  app.fallthrough();  // global options (--json, --brain) also after the command: `engram token create --json`
  app.footer(
      "A brain is found from --brain DIR, then $ENGRAM_BRAIN, then the current directory upwards.\n"
      "Exit codes: 0 ok, 1 the operation failed, 2 usage error.\n"
      "Run `engram COMMAND --help` for a command's options.");
  Globals g;
  app.add_option("--brain", g.brain_dir, "Brain root folder (the one holding .engram/)")->envname("ENGRAM_BRAIN");
  app.add_flag("--json", g.json, "Print one JSON document on stdout instead of text");

  // init
  std::string init_dir = ".";
  auto* init = app.add_subcommand("init", "Create a brain: DIR/.engram/ with config.toml and engram.db");
  init->add_option("DIR", init_dir, "Folder to turn into a brain (created if missing; default: .)");
  init->footer("An existing brain is left untouched. In a git repository, .engram/ is added to .git/info/exclude.");

  // import
  std::string import_dir;
  bool dry_run = false;
  auto* import = app.add_subcommand("import", "Index a folder of Markdown files (hash-based: new, changed, removed)");
  import->add_option("DIR", import_dir, "Folder to scan (default: the brain root)");
  import->add_flag("--dry-run", dry_run, "Report what would change without writing");
  bool import_watch = false;
  double import_quiet = 0.5;
  import->add_flag("--watch", import_watch,
                   "Keep importing: after files change (inotify), once they have been quiet for --quiet seconds;\n"
                   "for vaults that are not git repositories. Ctrl-C stops it");
  import->add_option("--quiet", import_quiet, "Seconds without a change before --watch imports (default 0.5)")
      ->check(CLI::Range(0.05, 60.0));
  import->footer(
      "Scans DIR recursively for .md files (hidden folders and node_modules are skipped).\n"
      "Unchanged files (same sha256) are skipped; files that disappeared are removed from the brain.\n"
      "Non-UTF-8 or binary files and files over import.max_file_bytes are skipped with the reason.\n"
      "A brain indexes one folder: the brain root, or the folder of its first import.");

  // sync
  bool sync_full = false, sync_worktree = false, sync_quiet = false, sync_watch = false;
  double sync_interval = 2.0;
  auto* sync = app.add_subcommand("sync", "Index the changes since the last synced git commit (the brain is a git repository)");
  sync->add_flag("--full", sync_full, "Walk every file of HEAD instead of diffing from the last synced commit");
  sync->add_flag("--worktree", sync_worktree, "Also apply uncommitted and untracked (not ignored) changes");
  sync->add_flag("--quiet,-q", sync_quiet, "Print nothing unless something failed");
  sync->add_flag("--watch", sync_watch,
                 "Keep syncing: after each new commit (HEAD polled every --interval), and with --worktree\n"
                 "after file changes (inotify). Ends cleanly on SIGINT or SIGTERM");
  sync->add_option("--interval", sync_interval, "Seconds between checks of HEAD with --watch (default 2)")
      ->check(CLI::Range(0.1, 3600.0));
  sync->footer(
      "Diffs the last synced commit against HEAD (added, modified, type-changed, deleted, renamed, copied);\n"
      "the first sync, --full, or a vanished anchor walk the whole tree, and the output says which.\n"
      "Unchanged files are skipped, a renamed file keeps its page's identity, a deleted file takes\n"
      "everything derived from it along. The anchor advances in the same transaction as the changes.\n"
      "A file that cannot be indexed is named here and in `engram status`, and retried by the next sync.\n"
      "Folders that are not git repositories: use `engram import`.");

  // audit
  size_t audit_limit = 100;
  auto* audit = app.add_subcommand("audit", "List files kept out by the sensitive-content quarantine (path, rule, time)");
  audit->add_option("--limit", audit_limit, "At most this many rows, newest first (default 100)")
      ->check(CLI::Range(1, 1000000));
  audit->footer("Rows never contain file content. Silence a false positive with quarantine.allow in config.toml.");

  // check
  engram::CheckOptions check_options;
  auto* check = app.add_subcommand("check", "Verify the database against the files, a rebuild and itself");
  check->add_flag("--repair", check_options.repair, "Re-index what is wrong, then check again");
  check->add_flag("--full", check_options.full, "Compare every page with a rebuild (default: a random sample)");
  check->add_option("--sample", check_options.sample, "Pages compared with a rebuild without --full (default 100)")
      ->check(CLI::Range(0, 100000000));
  check->footer(
      "Finds files of the synced commit without a page, pages without a file, pages whose content differs,\n"
      "files the last sync could not index, rows left by deleted pages, posting lists that disagree with the\n"
      "chunks and titles or are damaged, corpus statistics that differ from the sums over the rows, and\n"
      "vector-log drift (unlogged vectors, vectors of deleted chunks or of changed text).\n"
      "Derived rows must equal a rebuild: for each sampled page (every page with --full) the Markdown is\n"
      "indexed again into a scratch store and its terms, chunks, chunk and title postings, links, tags,\n"
      "aliases and timeline entries are compared with the brain's; each difference names the page and the\n"
      "structure. --repair re-indexes those pages (git brains from the synced commit, folders from the\n"
      "stored Markdown) and recomputes the statistics. Exits 1 when anything is wrong (after --repair:\n"
      "still wrong).");

  // hook
  std::string hook_action;
  auto* hook = app.add_subcommand("hook", "Install, remove or show the git hooks that sync after each commit");
  hook->add_option("ACTION", hook_action, "install | uninstall | status")
      ->required()
      ->check(CLI::IsMember({"install", "uninstall", "status"}));
  hook->footer(
      "install adds a marked block to post-commit, post-merge and post-rewrite (in core.hooksPath when set)\n"
      "that starts `engram sync --quiet` in the background, logging to .engram/sync.log; the commit returns\n"
      "at once. Installing twice changes nothing; other commands in those hooks are kept. uninstall removes\n"
      "only engram's block (and a hook file that held nothing else).");

  // put
  std::string put_slug, put_file;
  auto* put = app.add_subcommand("put", "Write a page (Markdown with frontmatter) into the brain and index it");
  put->add_option("SLUG", put_slug, "Page slug, e.g. people/zhang-san (written to SLUG.md)")->required();
  put->add_option("--file,-f", put_file, "Read the Markdown from this file (default: stdin)");
  put->footer("An existing page is overwritten; its previous content is kept as a version.");

  // get
  std::string get_slug;
  auto* get = app.add_subcommand("get", "Print a page's Markdown (or, with --json, its fields)");
  get->add_option("SLUG", get_slug, "Page slug")->required();

  // list
  std::string list_type, list_tag;
  size_t list_limit = 100;
  auto* list = app.add_subcommand("list", "List pages, optionally by type or tag");
  list->add_option("--type", list_type, "Only pages of this type (person, company, meeting, concept, ...)");
  list->add_option("--tag", list_tag, "Only pages with this tag");
  list->add_option("--limit", list_limit, "At most this many pages (default 100)")->check(CLI::Range(1, 1000000));

  // delete
  std::string delete_slug;
  auto* del = app.add_subcommand("delete", "Delete a page and its Markdown file");
  del->add_option("SLUG", delete_slug, "Page slug")->required();

  // search
  std::string query;
  size_t search_limit = 0;
  bool explain = false;
  std::string search_mode;
  engram::ChunkFilter search_filter;
  auto* search = app.add_subcommand(
      "search", "Search the brain: keyword (bilingual BM25), vector (embeddings) or hybrid (both, fused)");
  search->add_option("QUERY", query, "Query text")->required();
  search->add_option("--limit,-n", search_limit, "Number of results (default: search.limit, 10)")
      ->check(CLI::Range(1, 1000));
  search->add_option("--mode", search_mode,
                     "keyword, vector or hybrid (default: search.mode; hybrid when a model is configured)")
      ->check(CLI::IsMember({"keyword", "vector", "hybrid"}));
  search->add_flag("--explain", explain, "Show how each result was scored, stage by stage");
  search->add_option("--type", search_filter.types, "Only pages of this type (repeatable)");
  search->add_option("--tag", search_filter.tags, "Only pages with this tag (repeatable)");
  search->add_option("--folder", search_filter.folder, "Only pages whose path starts with this, e.g. people/");
  search->add_option("--source", search_filter.source, "Only pages of this source (default: any)");
  search->add_option("--since", search_filter.since, "Only notes dated on or after this date (YYYY-MM-DD): a note's date is its frontmatter updated/date/created, else its last commit (git brain), else its file's modification time");
  search->add_option("--until", search_filter.until, "Only notes dated on or before this date (YYYY-MM-DD; see --since)");
  search->footer(
      "Query syntax: plain words (any may match; pages matching more and rarer words rank higher),\n"
      "\"quoted phrases\" and +required words that must match, -excluded words or -\"phrases\".\n"
      "Chinese needs no spaces: 机器学习 matches 机器学习; Traditional characters find Simplified ones.\n"
      "Hybrid: the query's intent (entity, temporal, event, concept, general) weights a keyword arm, a\n"
      "title/alias arm and a vector arm, fused by reciprocal rank (k = 60), rescored 0.7 rrf + 0.3 cosine,\n"
      "deduplicated (at most 2 chunks per page, no type over 60%) and boosted by backlinks. Filters\n"
      "(--type, --tag, --folder, --source, --since, --until) apply in every mode.");

  // context
  std::string context_query, context_memory, context_mode;
  size_t context_chars = 2500, context_limit = 0;
  auto* context = app.add_subcommand("context", "Print search results as a <retrieved_context> block for an agent");
  context->add_option("QUERY", context_query, "Query text")->required();
  context->add_option("--max-chars", context_chars, "Budget of the whole block in characters (default 2500)")
      ->check(CLI::Range(200, 1000000));
  context->add_option("--limit,-n", context_limit, "Results to consider (default: search.limit, 10)")
      ->check(CLI::Range(1, 1000));
  context->add_option("--memory", context_memory,
                      "A MEMORY.md of preferences and facts, put first in the block (read at query time)");
  context->add_option("--mode", context_mode, "keyword, vector or hybrid (default as for search)")
      ->check(CLI::IsMember({"keyword", "vector", "hybrid"}));
  context->footer(
      "The block starts with a line saying that what follows is reference data, not instructions; each\n"
      "entry gives slug, title, type, date, score and file:lines, then the text. Text is escaped (& < > as\n"
      "entities, '[' at a line start) so nothing inside can close or imitate the block. The budget covers the\n"
      "whole block; the entry that crosses it is cut with '…'. No match: an empty block (exit 0).");

  // status
  auto* status = app.add_subcommand("status", "Show the brain's location, page counts and recent import problems");
  status->footer(
      "Also lists the files that are not pages and why: failed (with the reason) and quarantined (with the\n"
      "rule and line, never the content), and the last import or sync's error (the hook's background sync\n"
      "included). `engram get` on such a file says how to index it.");

  // eval
  engram::EvalOptions eval_opts;
  std::string eval_mode = "keyword";
  auto* eval = app.add_subcommand("eval", "Measure retrieval quality on a BEIR-layout benchmark");
  eval->add_option("--corpus", eval_opts.corpus, "corpus.jsonl ({\"_id\",\"title\",\"text\"} per line)")->required();
  eval->add_option("--queries", eval_opts.queries, "queries.jsonl ({\"_id\",\"text\"} per line)")->required();
  eval->add_option("--qrels", eval_opts.qrels, "qrels TSV (query-id, corpus-id, score; header line)")->required();
  eval->add_option("--mode", eval_mode, "Retrieval mode: keyword (default), hybrid or vector")
      ->check(CLI::IsMember({"keyword", "hybrid", "vector"}));
  eval->add_option("--embedder", eval_opts.embedder,
                   "hybrid/vector: hash (default), openai (the [embedding] settings) or a model directory");
  std::string eval_per_query;
  eval->add_option("--per-query", eval_per_query,
                   "Also write one JSON line per query to this file: {\"id\", \"ndcg@10\", \"recall@100\",\n"
                   "\"vector_confidence\"} (null in keyword mode)");
  eval->footer(
      "Indexes the corpus into a throwaway brain, runs every query present in the qrels with the top 100\n"
      "results, and prints nDCG@10, Recall@10, Recall@100, MRR@10, index time and query latency.\n"
      "Uses the brain's config when run inside one (ENGRAM_SEARCH_BM25_K1 etc. also apply).");

  int command_exit = -1;  // set by commands that run from their own callback
  engram::cli::AddEmbedCommands(app, &g.json, &command_exit);
  engram::cli::AddVectorBenchCommand(app, &g.json, &command_exit);
  engram::cli::AddModelCommands(app, &g.json, &g.brain_dir, &command_exit);
  engram::cli::AddCallCommand(app, &g.brain_dir, &command_exit);
  engram::cli::AddConfigCommand(app, &g.json, &g.brain_dir, &command_exit);
  engram::cli::AddServerCommands(app, &g.json, &g.brain_dir, &command_exit);
  // bench search runs on the brain (below), so it has no callback of its own.
  std::string bench_queries, bench_mode;
  int bench_limit = 10;
  auto* bench_search = app.get_subcommand("bench")->add_subcommand(
      "search", "Search latency on the current brain: p50/p95/p99 ms and queries/s, one thread");
  bench_search->add_option("--queries", bench_queries, "JSONL, one {\"text\"} (or {\"query\"}) per line")->required();
  bench_search->add_option("--mode", bench_mode, "keyword, vector or hybrid (default as for search)")
      ->check(CLI::IsMember({"keyword", "vector", "hybrid"}));
  bench_search->add_option("--limit,-n", bench_limit, "Results per query (default 10)")->check(CLI::Range(1, 1000));
  bench_search->footer(
      "Runs every query once as a warm-up (the vector index is opened and the query vectors cached), then\n"
      "times each query once more. Prints {\"p50_ms\", \"p95_ms\", \"p99_ms\", \"qps\", \"queries\", \"mode\"}.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "engram: " << e.what() << "\n";
    // A query that starts with '-' reads as an option: say how to pass it.
    const bool query_command = *search || *context;
    bool dash_word = false;
    for (int i = 1; i < argc; ++i) {
      const std::string_view arg = argv[i];
      dash_word = dash_word || (arg.size() > 2 && arg[0] == '-' && arg[1] != '-' && !std::isdigit(static_cast<unsigned char>(arg[1])));
    }
    if (query_command && dash_word) {
      std::cerr << "A query that starts with '-' must follow `--`: engram " << (*search ? "search" : "context")
                << " -- -word\n";
    }
    std::cerr << "Run `engram --help` for usage.\n";
    return 2;
  }

  if (command_exit >= 0) return command_exit;
  OperationContext ctx;  // the local CLI: the user owns the filesystem

  if (*init) {
    auto r = Brain::Init(init_dir);
    if (!r.ok()) return Fail(r.status(), g);
    if (g.json) {
      Print({{"root", r->root.string()}, {"created", r->created}, {"git_excluded", r->git_excluded}});
    } else {
      std::cout << (r->created ? "Initialised brain at " : "Brain already initialised at ") << r->root.string()
                << "\n  config:   " << (r->root / ".engram" / "config.toml").string()
                << "\n  database: " << (r->root / ".engram" / "engram.db").string() << "\n";
      if (r->git_excluded) std::cout << "  added .engram/ to .git/info/exclude\n";
    }
    return 0;
  }

  if (*eval) {
    eval_opts.mode = eval_mode;
    auto root = Brain::Locate(g.brain_dir);
    if (root.ok()) {
      auto brain = Brain::Open(*root);
      if (!brain.ok()) return Fail(brain.status(), g);
      eval_opts.brain = (*brain)->options();
    } else {
      auto defaults = Brain::DefaultOptions();
      if (!defaults.ok()) return Fail(defaults.status(), g);
      eval_opts.brain = *defaults;
    }
    auto r = engram::RunEval(eval_opts);
    if (!r.ok()) return Fail(r.status(), g);
    if (!eval_per_query.empty()) {
      std::ofstream out(eval_per_query, std::ios::trunc);
      for (const auto& q : r->per_query) {
        Json line = {{"id", q.id}, {"ndcg@10", q.ndcg10}, {"recall@100", q.recall100},
                     {"vector_confidence", q.vector_confidence < 0 ? Json(nullptr) : Json(q.vector_confidence)}};
        out << engram::ops::Dump(line) << "\n";
      }
      out.flush();
      if (!out) return Fail(engram::Status::IOError("cannot write " + eval_per_query), g);
    }
    Json j = {{"ndcg@10", r->ndcg10},     {"recall@10", r->recall10},         {"recall@100", r->recall100},
              {"mrr@10", r->mrr10},       {"queries", r->queries},            {"docs", r->docs},
              {"index_seconds", r->index_seconds}, {"query_ms_p50", r->query_ms_p50}, {"query_ms_p95", r->query_ms_p95},
              {"mode", eval_mode}};
    if (eval_mode != "keyword") {
      j["embedder"] = r->embedder_model;
      j["embed_seconds"] = r->embed_seconds;
      j["vector_index_seconds"] = r->vector_index_seconds;
      j["query_embed_ms_p50"] = r->query_embed_ms_p50;
      j["search_ms_p50"] = r->search_ms_p50;
      j["search_ms_p95"] = r->search_ms_p95;
      j["stage_ms_p50"] = r->stage_ms_p50;
    }
    if (g.json) {
      Print(j);
    } else {
      std::printf("nDCG@10 %.4f  Recall@10 %.4f  Recall@100 %.4f  MRR@10 %.4f\n", r->ndcg10, r->recall10,
                  r->recall100, r->mrr10);
      std::printf("%zu queries, %zu docs, indexed in %.2f s, query p50 %.3f ms, p95 %.3f ms\n", r->queries, r->docs,
                  r->index_seconds, r->query_ms_p50, r->query_ms_p95);
    }
    return 0;
  }

  auto brain_or = OpenBrain(g);
  if (!brain_or.ok()) return Fail(brain_or.status(), g);
  Brain& brain = **brain_or;

  if (*import && import_watch) {
    if (dry_run) return Fail(Status::InvalidArgument("--watch and --dry-run do not go together"), g);
    std::filesystem::path dir = import_dir.empty() ? brain.root() : std::filesystem::path(import_dir);
    static std::atomic<bool> stop{false};
    struct sigaction sa {};
    sa.sa_handler = [](int) { stop = true; };
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    Status st = brain.WatchImport(ctx, dir, static_cast<int>(import_quiet * 1000), stop,
                                  [&](const engram::ImportReport& r) {
                                    if (g.json) {
                                      std::cout << engram::ops::Dump(engram::cli::ToJson(r)) << std::endl;  // one document per import
                                    } else {
                                      std::cout << engram::cli::FormatImport(r) << std::flush;
                                    }
                                  });
    if (!st.ok()) return Fail(st, g);
    std::cerr << "engram: watch stopped\n";
    return 0;
  }
  if (*import) {
    std::filesystem::path dir = import_dir.empty() ? brain.root() : std::filesystem::path(import_dir);
    auto r = brain.Import(ctx, dir, dry_run);
    if (!r.ok()) return Fail(r.status(), g);
    if (g.json) Print(engram::cli::ToJson(*r));
    else std::cout << (dry_run ? "(dry run) " : "") << engram::cli::FormatImport(*r);
    return 0;
  }
  if (*sync && sync_watch) {
    static std::atomic<bool> stop{false};
    struct sigaction sa {};
    sa.sa_handler = [](int) { stop = true; };
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    Status st = brain.Watch(ctx, static_cast<int>(sync_interval * 1000), sync_worktree, stop,
                            [&](const engram::SyncReport& r) {
                              if (g.json) {
                                std::cout << engram::ops::Dump(engram::cli::ToJson(r)) << std::endl;  // one document per sync
                              } else if (!sync_quiet || !r.failed.empty()) {
                                std::cout << engram::cli::FormatSync(r) << std::flush;
                              }
                            });
    if (!st.ok()) return Fail(st, g);
    if (!sync_quiet) std::cerr << "engram: watch stopped\n";
    return 0;
  }
  if (*sync) {
    // A progress line on a terminal for batches of more than ~100 files.
    std::function<void(size_t, size_t)> progress;
    if (!sync_quiet && !g.json && isatty(STDERR_FILENO)) {
      auto start = std::chrono::steady_clock::now();
      progress = [start](size_t done, size_t total) {
        if (total <= 100 || (done % 50 != 0 && done != total)) return;
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        double rate = secs > 0 ? static_cast<double>(done) / secs : 0;
        double eta = rate > 0 ? static_cast<double>(total - done) / rate : 0;
        std::fprintf(stderr, "\r[sync] %zu/%zu files  %.0f files/s  ETA %.0f s   ", done, total, rate, eta);
        if (done == total) std::fprintf(stderr, "\n");
      };
    }
    auto r = brain.Sync(ctx, sync_full, sync_worktree, progress);
    if (!r.ok()) return Fail(r.status(), g);
    if (g.json) {
      Print(engram::cli::ToJson(*r));
    } else if (!sync_quiet || !r->failed.empty()) {
      std::cout << engram::cli::FormatSync(*r);
    }
    return r->failed.empty() ? 0 : 1;
  }
  if (*audit) {
    auto r = brain.AuditLog(ctx, audit_limit);
    if (!r.ok()) return Fail(r.status(), g);
    if (g.json) {
      Json rows = Json::array();
      for (const auto& e : *r) rows.push_back({{"at", e.at}, {"path", e.path}, {"rule", e.rule}, {"line", e.line}});
      Print({{"audit", rows}, {"count", r->size()}});
    } else {
      for (const auto& e : *r) {
        std::cout << e.at << "  " << e.rule << "  " << e.path
                  << (e.line > 0 ? ":" + std::to_string(e.line) : std::string()) << "\n";
      }
      std::cout << r->size() << " quarantined file(s) recorded\n";
    }
    return 0;
  }
  if (*check) {
    auto r = brain.Check(ctx, check_options);
    if (!r.ok()) return Fail(r.status(), g);
    const auto& left = r->repaired ? r->remaining : r->problems;
    if (g.json) {
      auto list = [](const std::vector<engram::ImportIssue>& v) {
        Json a = Json::array();
        for (const auto& p : v) a.push_back({{"path", p.path}, {"problem", p.reason}});
        return a;
      };
      Print({{"ok", left.empty()}, {"synced_commit", r->synced_commit}, {"problems", list(r->problems)},
             {"rebuilt_pages", r->rebuilt_pages}, {"repaired", r->repaired}, {"remaining", list(r->remaining)}});
    } else {
      for (const auto& p : r->problems) std::cout << "problem: " << (p.path.empty() ? "" : p.path + ": ") << p.reason << "\n";
      if (r->repaired) {
        std::cout << (r->synced_commit.empty() ? std::string("repaired: re-indexed from the stored Markdown")
                                               : "repaired: re-synced " + r->synced_commit.substr(0, 12))
                  << "\n";
        for (const auto& p : r->remaining) std::cout << "still wrong: " << (p.path.empty() ? "" : p.path + ": ") << p.reason << "\n";
      }
      std::cout << "compared " << r->rebuilt_pages << " page(s) with a rebuild\n";
      std::cout << (left.empty() ? "ok: the brain is consistent" : "the brain is inconsistent") << "\n";
    }
    return left.empty() ? 0 : 1;
  }
  if (*hook) {
    auto r = brain.Hooks(ctx, hook_action);
    if (!r.ok()) return Fail(r.status(), g);
    if (g.json) {
      Json hooks = Json::array();
      for (const auto& h : *r) {
        hooks.push_back({{"name", h.name}, {"file", h.file}, {"installed", h.installed}, {"other_content", h.other_content}});
      }
      Print({{"hooks", hooks}});
    } else {
      for (const auto& h : *r) {
        std::cout << (h.installed ? "installed " : "absent    ") << h.name << "  " << h.file
                  << (h.other_content ? "  (also runs other commands)" : "") << "\n";
      }
    }
    return 0;
  }
  if (*put) {
    Result<std::string> content = put_file.empty() ? ReadStdin(brain.options().import_max_file_bytes)
                                                   : ReadFile(put_file, brain.options().import_max_file_bytes);
    if (!content.ok()) return Fail(content.status(), g);
    auto r = brain.Put(ctx, put_slug, *content);
    if (!r.ok()) return Fail(r.status(), g);
    if (g.json) {
      Print(engram::cli::ToJson(*r));
    } else {
      std::cout << (r->created ? "Created " : "Updated ") << r->slug << " (" << r->path << ")";
      if (!r->commit.empty()) std::cout << ", committed " << r->commit.substr(0, 12);
      std::cout << "\n";
      for (const auto& w : r->warnings) std::cerr << "warning: " << w << "\n";
    }
    return 0;
  }
  if (*get) {
    auto r = brain.Get(ctx, get_slug);
    if (!r.ok()) return Fail(r.status(), g);
    if (g.json) Print(engram::cli::ToJson(*r));
    else std::cout << r->content << (r->content.empty() || r->content.back() == '\n' ? "" : "\n");
    return 0;
  }
  if (*list) {
    engram::ListFilter f;
    f.type = list_type;
    f.tag = list_tag;
    f.limit = list_limit;
    auto r = brain.List(ctx, f);
    if (!r.ok()) return Fail(r.status(), g);
    if (g.json) {
      Print(engram::cli::ToJson(*r));
    } else {
      std::fputs(engram::cli::FormatList(*r).c_str(), stdout);
    }
    return 0;
  }
  if (*del) {
    Status st = brain.Delete(ctx, delete_slug);
    if (!st.ok()) return Fail(st, g);
    if (g.json) Print({{"deleted", delete_slug}});
    else std::cout << "Deleted " << delete_slug << "\n";
    return 0;
  }
  if (*search) {
    engram::SearchOptions so = brain.DefaultSearchOptions();
    if (search_limit > 0) so.limit = search_limit;
    so.explain = explain;
    if (!search_mode.empty()) so.mode = search_mode;
    so.filter = search_filter;
    auto r = brain.Search(ctx, query, so);
    if (!r.ok()) return Fail(r.status(), g);
    if (g.json) Print(engram::cli::ToJson(*r, explain));
    else std::cout << engram::cli::FormatSearch(*r, explain);
    return 0;
  }
  if (*bench_search) {
    std::ifstream in(bench_queries);
    if (!in) return Fail(engram::Status::NotFound(bench_queries + ": cannot open"), g);
    std::vector<std::string> queries;
    size_t line_no = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_no;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      Json j = Json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object() || !(j.contains("text") || j.contains("query"))) {
        return Fail(engram::Status::InvalidArgument(bench_queries + ":" + std::to_string(line_no) +
                                                    ": expected a JSON object with \"text\" or \"query\""),
                    g);
      }
      const Json& t = j.contains("text") ? j["text"] : j["query"];
      if (!t.is_string()) {
        return Fail(engram::Status::InvalidArgument(bench_queries + ":" + std::to_string(line_no) + ": not a string"), g);
      }
      queries.push_back(t.get<std::string>());
    }
    if (queries.empty()) return Fail(engram::Status::InvalidArgument(bench_queries + ": no queries"), g);
    engram::SearchOptions so = brain.DefaultSearchOptions();
    so.limit = static_cast<size_t>(bench_limit);
    if (!bench_mode.empty()) so.mode = bench_mode;
    std::string mode;
    for (const auto& q : queries) {
      auto r = brain.Search(ctx, q, so);
      if (r.ok()) mode = r->mode;
    }
    std::vector<double> ms;
    auto t0 = std::chrono::steady_clock::now();
    for (const auto& q : queries) {
      auto qs = std::chrono::steady_clock::now();
      (void)brain.Search(ctx, q, so);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - qs).count());
    }
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    Print({{"p50_ms", engram::search::Percentile(ms, 50)},
           {"p95_ms", engram::search::Percentile(ms, 95)},
           {"p99_ms", engram::search::Percentile(ms, 99)},
           {"qps", static_cast<double>(queries.size()) / total},
           {"queries", queries.size()},
           {"mode", mode}});
    return 0;
  }
  if (*context) {
    engram::SearchOptions so = brain.DefaultSearchOptions();
    if (context_limit > 0) so.limit = context_limit;
    if (!context_mode.empty()) so.mode = context_mode;
    engram::search::ContextOptions co;
    co.max_chars = context_chars;
    if (!context_memory.empty()) {
      auto text = engram::common::ReadFile(context_memory, 1 << 20);
      if (!text.ok()) return Fail(text.status().WithContext("--memory"), g);
      if (!engram::common::IsValidUtf8(*text)) {
        return Fail(engram::Status::InvalidArgument(context_memory + ": not valid UTF-8"), g);
      }
      co.memory = *text;
      co.memory_name = std::filesystem::path(context_memory).filename().string();
    }
    auto r = brain.Context(ctx, context_query, so, co);
    if (!r.ok()) return Fail(r.status(), g);
    const std::string& block = r->block;
    if (g.json) {
      Print({{"query", context_query}, {"context", block}, {"count", r->count}});
    } else {
      std::cout << block;
    }
    return 0;
  }
  if (*status) {
    auto st = brain.GetStatus(ctx);
    if (!st.ok()) return Fail(st.status(), g);
    if (g.json) {
      Print(engram::cli::ToJson(*st));
    } else {
      const engram::EmbeddingStatus& emb = st->embedding;
      std::cout << "brain:            " << st->root << "\n";
      std::cout << "markdown from:    " << st->source_root << "\n";
      std::cout << "synced commit:    " << (st->synced_commit.empty() ? "(never synced)" : st->synced_commit) << "\n";
      std::cout << engram::cli::FormatStats(st->stats);
      if (emb.provider == "none") {
        std::cout << "embeddings:       none (keyword search only; `engram model use NAME` adds a model)\n";
      } else {
        std::cout << "embeddings:       " << emb.provider << " " << emb.model << ": " << emb.current << " of "
                  << emb.chunks << " chunks embedded";
        if (emb.stale > 0) std::cout << ", " << emb.stale << " stale (run `engram embed --stale`)";
        std::cout << "\n";
      }
      if (!st->last_sync_error.empty()) std::cout << "last sync failed: " << st->last_sync_error << "\n";
      if (!st->sync_failures.empty()) {
        std::cout << "failed files (not pages; retried by the next sync or import):\n";
        for (const auto& x : st->sync_failures) std::cout << "  " << x.path << ": " << x.reason << "\n";
      }
      if (!st->quarantined.empty()) {
        std::cout << "quarantined files (not pages; `engram get` says how to allow one):\n";
        for (const auto& q : st->quarantined) {
          std::cout << "  " << q.path << ": rule " << q.rule
                    << (q.line > 0 ? ", line " + std::to_string(q.line) : std::string(", path or name")) << "\n";
        }
      }
      if (!st->recent_problems.empty()) {
        std::cout << "recent import problems:\n";
        for (const auto& e : st->recent_problems) std::cout << "  " << e.action << " " << e.path << ": " << e.message << "\n";
      }
    }
    return 0;
  }
  return 2;
}
