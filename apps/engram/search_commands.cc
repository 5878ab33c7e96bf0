#include "search_commands.h"

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "command_support.h"
#include "common/files.h"
#include "common/utf8.h"
#include "output.h"
#include "search/metrics.h"
#include "ops/search_module.h"

namespace engram::cli {

namespace {

using Json = nlohmann::json;

constexpr const char* kSearchFooter =
    "Query syntax: plain words (any may match; pages matching more and rarer words rank higher),\n"
    "\"quoted phrases\" and +required words that must match, -excluded words or -\"phrases\".\n"
    "Chinese needs no spaces: 机器学习 matches 机器学习; Traditional characters find Simplified ones.\n"
    "Hybrid: the query's intent (entity, temporal, event, concept, general) weights a keyword arm, a\n"
    "title/alias arm and a vector arm, fused by reciprocal rank (k = 60), rescored 0.7 rrf + 0.3 cosine,\n"
    "deduplicated (at most 2 chunks per page, no type over 60%) and boosted by backlinks. Filters\n"
    "(--type, --tag, --folder, --source, --since, --until) apply in every mode.";

constexpr const char* kContextFooter =
    "The block starts with a line saying that what follows is reference data, not instructions; each\n"
    "entry gives slug, title, type, date, score and file:lines, then the text. Text is escaped (& < > as\n"
    "entities, '[' at a line start) so nothing inside can close or imitate the block. The budget covers the\n"
    "whole block; the entry that crosses it is cut with '…'. No match: an empty block (exit 0).";

struct SearchArgs {
  std::string query;
  size_t limit = 0;  // 0: search.limit
  bool explain = false;
  std::string mode;  // "": search.mode
  ChunkFilter filter;
};

struct ContextArgs {
  std::string query, memory, mode;
  size_t max_chars = 2500, limit = 0;
  ChunkFilter filter;
};

struct BenchArgs {
  std::string queries, mode;
  int limit = 10;
};

// The filter flags search and context share, and the operations' "filters" object from them.
void AddFilterOptions(CLI::App* cmd, ChunkFilter* filter) {
  cmd->add_option("--type", filter->types, "Only pages of this type (repeatable)");
  cmd->add_option("--tag", filter->tags, "Only pages with this tag (repeatable)");
  cmd->add_option("--folder", filter->folder, "Only pages whose path starts with this, e.g. people/");
  cmd->add_option("--source", filter->source, "Only pages of this source (default: any)");
  cmd->add_option("--since", filter->since,
                  "Only notes dated on or after this date (YYYY-MM-DD): a note's date is its frontmatter "
                  "updated/date/created, else its last commit (git brain), else its file's modification time");
  cmd->add_option("--until", filter->until, "Only notes dated on or before this date (YYYY-MM-DD; see --since)");
}

void AddFiltersJson(const ChunkFilter& f, Json* args) {
  Json filters = Json::object();
  if (!f.types.empty()) filters["type"] = f.types;
  if (!f.tags.empty()) filters["tag"] = f.tags;
  if (!f.folder.empty()) filters["folder"] = f.folder;
  if (!f.source.empty()) filters["source"] = f.source;
  if (!f.since.empty()) filters["since"] = f.since;
  if (!f.until.empty()) filters["until"] = f.until;
  if (!filters.empty()) (*args)["filters"] = std::move(filters);
}

// The search operation's arguments from the flags.
Json SearchArgsJson(const SearchArgs& a) {
  Json args = {{"query", a.query}};
  if (a.limit > 0) args["limit"] = a.limit;
  if (!a.mode.empty()) args["mode"] = a.mode;
  if (a.explain) args["explain"] = true;
  AddFiltersJson(a.filter, &args);
  return args;
}

int RunSearch(const SearchArgs& a, bool json, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  auto r = CallOperation(**brain, "search", SearchArgsJson(a));
  if (!r.ok()) return Fail(r.status(), json);
  if (json) Print(*r);
  else std::cout << FormatSearch(*r, a.explain);
  return 0;
}

int RunContext(const ContextArgs& a, bool json, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  Json args = {{"query", a.query}, {"max_chars", a.max_chars}};
  if (a.limit > 0) args["limit"] = a.limit;
  if (!a.mode.empty()) args["mode"] = a.mode;
  AddFiltersJson(a.filter, &args);
  if (!a.memory.empty()) {  // read here, at query time: the operation takes the text
    auto text = common::ReadFile(a.memory, 1 << 20);
    if (!text.ok()) return Fail(text.status().WithContext("--memory"), json);
    if (!common::IsValidUtf8(*text)) return Fail(Status::InvalidArgument(a.memory + ": not valid UTF-8"), json);
    args["memory"] = *text;
    args["memory_name"] = std::filesystem::path(a.memory).filename().string();
  }
  auto r = CallOperation(**brain, "context", args);
  if (!r.ok()) return Fail(r.status(), json);
  if (json) Print(*r);
  else std::cout << (*r)["context"].get<std::string>();
  return 0;
}

// The queries of a JSONL file: {"text"} or {"query"} per line.
Result<std::vector<std::string>> ReadBenchQueries(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound(path + ": cannot open");
  std::vector<std::string> queries;
  size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Json j = Json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !(j.contains("text") || j.contains("query"))) {
      return Status::InvalidArgument(path + ":" + std::to_string(line_no) +
                                     ": expected a JSON object with \"text\" or \"query\"");
    }
    const Json& t = j.contains("text") ? j["text"] : j["query"];
    if (!t.is_string()) return Status::InvalidArgument(path + ":" + std::to_string(line_no) + ": not a string");
    queries.push_back(t.get<std::string>());
  }
  if (queries.empty()) return Status::InvalidArgument(path + ": no queries");
  return queries;
}

int RunBenchSearch(const BenchArgs& a, bool json, const std::string& brain_dir) {
  auto brain_or = OpenBrain(brain_dir);
  if (!brain_or.ok()) return Fail(brain_or.status(), json);
  Brain& brain = **brain_or;
  auto queries = ReadBenchQueries(a.queries);
  if (!queries.ok()) return Fail(queries.status(), json);
  const OperationContext ctx;
  SearchOptions so = brain.Module<ops::SearchModule>().DefaultSearchOptions();
  so.limit = static_cast<size_t>(a.limit);
  if (!a.mode.empty()) so.mode = ParseSearchMode(a.mode).value_or(SearchMode::kDefault);  // CLI11 checked it
  std::string mode;
  for (const auto& q : *queries) {  // the warm-up
    auto r = brain.Module<ops::SearchModule>().Search(ctx, q, so);
    if (r.ok()) mode = SearchModeName(r->mode);
  }
  std::vector<double> ms;
  auto t0 = std::chrono::steady_clock::now();
  for (const auto& q : *queries) {
    auto qs = std::chrono::steady_clock::now();
    (void)brain.Module<ops::SearchModule>().Search(ctx, q, so);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - qs).count());
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Print({{"p50_ms", search::Percentile(ms, 50)},
         {"p95_ms", search::Percentile(ms, 95)},
         {"p99_ms", search::Percentile(ms, 99)},
         {"qps", static_cast<double>(queries->size()) / total},
         {"queries", queries->size()},
         {"mode", mode}});
  return 0;
}

void AddSearch(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto a = std::make_shared<SearchArgs>();
  auto* search = app.add_subcommand(
      "search", "Search the brain: keyword (bilingual BM25), vector (embeddings) or hybrid (both, fused)");
  search->add_option("QUERY", a->query, "Query text")->required();
  search->add_option("--limit,-n", a->limit, "Number of results (default: search.limit, 10)")
      ->check(OperationRange("search", "limit"));
  search->add_option("--mode", a->mode,
                     "keyword, vector or hybrid (default: search.mode; hybrid when a model is configured)")
      ->check(CLI::IsMember({"keyword", "vector", "hybrid"}));
  search->add_flag("--explain", a->explain, "Show how each result was scored, stage by stage");
  AddFilterOptions(search, &a->filter);
  search->footer(kSearchFooter);
  search->callback([a, json, brain_dir, exit_code] { *exit_code = RunSearch(*a, *json, *brain_dir); });
}

void AddContext(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto a = std::make_shared<ContextArgs>();
  auto* context = app.add_subcommand("context", "Print search results as a <retrieved_context> block for an agent");
  context->add_option("QUERY", a->query, "Query text")->required();
  context->add_option("--max-chars", a->max_chars, "Budget of the whole block in characters (default 2500)")
      ->check(OperationRange("context", "max_chars"));
  context->add_option("--limit,-n", a->limit, "Results to consider (default: search.limit, 10)")
      ->check(OperationRange("context", "limit"));
  context->add_option("--memory", a->memory,
                      "A MEMORY.md of preferences and facts, put first in the block (read at query time)");
  context->add_option("--mode", a->mode, "keyword, vector or hybrid (default as for search)")
      ->check(CLI::IsMember({"keyword", "vector", "hybrid"}));
  AddFilterOptions(context, &a->filter);
  context->footer(kContextFooter);
  context->callback([a, json, brain_dir, exit_code] { *exit_code = RunContext(*a, *json, *brain_dir); });
}

void AddBenchSearch(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto a = std::make_shared<BenchArgs>();
  auto* bench_search = app.get_subcommand("bench")->add_subcommand(
      "search", "Search latency on the current brain: p50/p95/p99 ms and queries/s, one thread");
  bench_search->add_option("--queries", a->queries, "JSONL, one {\"text\"} (or {\"query\"}) per line")->required();
  bench_search->add_option("--mode", a->mode, "keyword, vector or hybrid (default as for search)")
      ->check(CLI::IsMember({"keyword", "vector", "hybrid"}));
  bench_search->add_option("--limit,-n", a->limit, "Results per query (default 10)")->check(CLI::Range(1, 1000));
  bench_search->footer(
      "Runs every query once as a warm-up (the vector index is opened and the query vectors cached), then\n"
      "times each query once more. Prints {\"p50_ms\", \"p95_ms\", \"p99_ms\", \"qps\", \"queries\", \"mode\"}.");
  bench_search->callback([a, json, brain_dir, exit_code] { *exit_code = RunBenchSearch(*a, *json, *brain_dir); });
}

}  // namespace

void AddSearchCommands(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  AddSearch(app, json, brain_dir, exit_code);
  AddContext(app, json, brain_dir, exit_code);
}

void AddBenchSearchCommand(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  AddBenchSearch(app, json, brain_dir, exit_code);
}

void HintDashQuery(const CLI::App& app, int argc, char** argv) {
  const bool search = app.get_subcommand("search")->parsed();
  const bool query_command = search || app.get_subcommand("context")->parsed();
  bool dash_word = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    dash_word = dash_word ||
                (arg.size() > 2 && arg[0] == '-' && arg[1] != '-' && !std::isdigit(static_cast<unsigned char>(arg[1])));
  }
  if (query_command && dash_word) {
    std::cerr << "A query that starts with '-' must follow `--`: engram " << (search ? "search" : "context")
              << " -- -word\n";
  }
}

}  // namespace engram::cli
