#include "ops/config.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <optional>
#include <type_traits>
#include <vector>

#include "common/files.h"
#include "ops/toml_subset.h"

namespace engram::ops {

namespace {

// One row per number setting: where it lives, its bounds, and how to store
// and read it (whole numbers for integer fields).
struct Setting {
  const char* section;
  const char* key;
  double min;
  double max;
  bool integer;
  std::function<void(BrainOptions*, double)> set;
  std::function<double(const BrainOptions&)> get;
};

// A setting's field, reached through its section: ENGRAM_FIELD(chunker.target_words).
#define ENGRAM_FIELD(path) [](auto& o) -> auto& { return o.path; }

template <typename Field>
Setting Number(const char* section, const char* key, double min, double max, Field field) {
  using T = std::remove_cvref_t<decltype(field(std::declval<BrainOptions&>()))>;
  return {section, key, min, max, std::is_integral_v<T>,
          [field](BrainOptions* o, double v) { field(*o) = static_cast<T>(v); },
          [field](const BrainOptions& o) { return static_cast<double>(field(o)); }};
}

const std::vector<Setting>& Settings() {
  static const std::vector<Setting> kSettings = {
      Number("import", "max_file_bytes", 1, 1e12, ENGRAM_FIELD(import.max_file_bytes)),
      Number("chunker", "target_words", 20, 10000, ENGRAM_FIELD(chunker.target_words)),
      Number("chunker", "overlap_words", 0, 5000, ENGRAM_FIELD(chunker.overlap_words)),
      Number("search", "limit", 1, 1000, ENGRAM_FIELD(search.limit)),
      Number("search", "bm25_k1", 0, 10, ENGRAM_FIELD(search.bm25_k1)),
      Number("search", "bm25_b", 0, 1, ENGRAM_FIELD(search.bm25_b)),
      Number("search", "title_weight", 0, 100, ENGRAM_FIELD(search.title_weight)),
      Number("search", "expansion", 0, 2, ENGRAM_FIELD(search.expansion)),
      Number("llm", "timeout_ms", 1, 600000, ENGRAM_FIELD(llm.timeout_ms)),
      Number("kb", "threshold", 0, 1, ENGRAM_FIELD(kb.threshold)),
      Number("kb", "same_threshold", 0, 1, ENGRAM_FIELD(kb.same_threshold)),
      Number("kb", "top_k", 1, 100, ENGRAM_FIELD(kb.top_k)),
      Number("kb", "answer_similarity", 0, 1, ENGRAM_FIELD(kb.answer_similarity)),
      Number("kb", "temperature", 0, 2, ENGRAM_FIELD(kb.temperature)),
      Number("kb", "max_tokens", 1, 100000, ENGRAM_FIELD(kb.max_tokens)),
      Number("kb", "timeout_ms", 1, 600000, ENGRAM_FIELD(kb.timeout_ms)),
      Number("kb", "max_turns", 1, 1000, ENGRAM_FIELD(kb.max_turns)),
      Number("vector", "exact_below", 0, 1e9, ENGRAM_FIELD(vector.exact_below)),
      Number("vector", "exact_filter_max", 0, 1e9, ENGRAM_FIELD(vector.exact_filter_max)),
      Number("vector", "m", 2, 256, ENGRAM_FIELD(vector.m)),
      Number("vector", "ef_construction", 1, 100000, ENGRAM_FIELD(vector.ef_construction)),
      Number("vector", "ef_search", 1, 100000, ENGRAM_FIELD(vector.ef_search)),
      Number("embedding", "dimensions", 0, 65536, ENGRAM_FIELD(embedding.dimensions)),
      Number("embedding", "threads", 0, 256, ENGRAM_FIELD(embedding.threads)),
      Number("embedding", "max_batch", 1, 4096, ENGRAM_FIELD(embedding.max_batch)),
      Number("embedding", "max_batch_tokens", 1, 1000000, ENGRAM_FIELD(embedding.max_batch_tokens)),
      Number("embedding", "timeout_ms", 1, 3600000, ENGRAM_FIELD(embedding.timeout_ms)),
      Number("embedding", "max_retries", 0, 100, ENGRAM_FIELD(embedding.max_retries)),
      Number("embedding", "requests_per_minute", 0, 1e6, ENGRAM_FIELD(embedding.requests_per_minute)),
      Number("embedding", "inline_limit", 0, 1e7, ENGRAM_FIELD(embedding.inline_limit)),
      Number("server", "port", 0, 65535, ENGRAM_FIELD(server.port)),
      Number("server", "threads", 1, 1024, ENGRAM_FIELD(server.threads)),
      Number("server", "max_body_bytes", 1024, 1e10, ENGRAM_FIELD(server.max_body_bytes)),
      Number("server", "rate_limit", 0, 1e9, ENGRAM_FIELD(server.rate_limit)),
      Number("server", "timeout_ms", 100, 3600000, ENGRAM_FIELD(server.timeout_ms)),
      Number("server", "header_timeout_ms", 100, 600000, ENGRAM_FIELD(server.header_timeout_ms)),
      Number("server", "max_connections_per_peer", 1, 100000, ENGRAM_FIELD(server.max_connections_per_peer)),
      Number("store", "busy_timeout_ms", 0, 600000, ENGRAM_FIELD(store.busy_timeout_ms)),
      Number("store", "lock_timeout_ms", 0, 3600000, ENGRAM_FIELD(store.lock_timeout_ms)),
      Number("store", "pool_size", 0, 1024, ENGRAM_FIELD(store.pool_size)),
  };
  return kSettings;
}

// String settings: section, key, field, and the values allowed when they
// form a fixed set (Validate checks them, with its own messages).
struct TextSetting {
  const char* section;
  const char* key;
  std::function<std::string&(BrainOptions&)> field;
  std::vector<std::string> allowed;
};

const std::vector<TextSetting>& TextSettings() {
  static const std::vector<TextSetting> kText = {
      {"pages", "title", ENGRAM_FIELD(pages.title), {"file_name", "heading"}},
      {"search", "mode", ENGRAM_FIELD(search.mode), {"", "keyword", "vector", "hybrid"}},
      {"llm", "base_url", ENGRAM_FIELD(llm.base_url), {}},
      {"llm", "model", ENGRAM_FIELD(llm.model), {}},
      {"llm", "api_key_env", ENGRAM_FIELD(llm.api_key_env), {}},
      {"kb", "answer_constraints", ENGRAM_FIELD(kb.answer_constraints), {}},
      {"kb", "dialog_principles", ENGRAM_FIELD(kb.dialog_principles), {}},
      {"embedding", "provider", ENGRAM_FIELD(embedding.provider), {"none", "bert", "openai", "hash"}},
      {"embedding", "model", ENGRAM_FIELD(embedding.model), {}},
      {"embedding", "base_url", ENGRAM_FIELD(embedding.base_url), {}},
      {"embedding", "api_key_env", ENGRAM_FIELD(embedding.api_key_env), {}},
      {"embedding", "precision", ENGRAM_FIELD(embedding.precision), {"fp32", "bf16"}},
      {"server", "host", ENGRAM_FIELD(server.host), {}},
      {"store", "engine", ENGRAM_FIELD(store.engine), {"sqlite", "postgres"}},
      {"store", "url", ENGRAM_FIELD(store.url), {}},
      {"store", "url_env", ENGRAM_FIELD(store.url_env), {}},
      {"store", "read_url", ENGRAM_FIELD(store.read_url), {}},
      {"git", "author_name", ENGRAM_FIELD(git.author_name), {}},
      {"git", "author_email", ENGRAM_FIELD(git.author_email), {}},
      {"git", "message", ENGRAM_FIELD(git.message), {}},
  };
  return kText;
}

// List settings: section, key, field, and whether an environment variable
// (comma-separated) overrides it.
struct ListSetting {
  const char* section;
  const char* key;
  std::function<std::vector<std::string>&(BrainOptions&)> field;
  bool from_environment;
};

const std::vector<ListSetting>& ListSettings() {
  static const std::vector<ListSetting> kLists = {
      {"scope", "include", ENGRAM_FIELD(scope.include), true},
      {"scope", "exclude", ENGRAM_FIELD(scope.exclude), true},
      {"scope", "skip_files", ENGRAM_FIELD(scope.skip_files), true},
      {"quarantine", "path_components", ENGRAM_FIELD(quarantine.path_components), false},
      {"quarantine", "name_keywords", ENGRAM_FIELD(quarantine.name_keywords), false},
      {"quarantine", "allow", ENGRAM_FIELD(quarantine.allow), false},
      {"quarantine", "disable", ENGRAM_FIELD(quarantine.disable), false},
      {"graph", "entity_types", ENGRAM_FIELD(graph.entity_types), false},
      {"graph", "single_valued", ENGRAM_FIELD(graph.single_valued), false},
      {"server", "allowed_hosts", ENGRAM_FIELD(server.allowed_hosts), true},
      {"server", "allowed_origins", ENGRAM_FIELD(server.allowed_origins), true},
  };
  return kLists;
}

template <typename Row>
const Row* FindRow(const std::vector<Row>& rows, std::string_view section, std::string_view key) {
  for (const Row& r : rows) {
    if (section == r.section && key == r.key) return &r;
  }
  return nullptr;
}

std::string EnvName(std::string_view section, std::string_view key) {
  std::string name = "ENGRAM_";
  name.append(section);
  name.push_back('_');
  name.append(key);
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

Status SetValue(BrainOptions* o, const Setting& s, double v, const std::string& where) {
  std::string name = std::string(s.section) + "." + s.key;
  if (s.integer && v != static_cast<double>(static_cast<int64_t>(v))) {
    return Status::InvalidArgument(where + ": " + name + " must be a whole number, not " + FormatTomlNumber(v));
  }
  if (v < s.min || v > s.max) {
    return Status::InvalidArgument(where + ": " + name + " = " + FormatTomlNumber(v) + " is out of range [" +
                                   FormatTomlNumber(s.min) + ", " + FormatTomlNumber(s.max) + "]");
  }
  s.set(o, v);
  return Status::Ok();
}

// The file `engram init` writes: every setting with its default and what it
// does (a test parses it back to the built-in defaults).
constexpr const char kDefaultConfigToml[] = R"(# engram brain configuration.
# Every setting is listed with its default. Precedence: command-line flags,
# then ENGRAM_<SECTION>_<KEY> environment variables (e.g. ENGRAM_SEARCH_LIMIT=20),
# then this file, then the built-in default. Unknown keys are errors.

[import]
# Markdown files larger than this many bytes are skipped, with the reason.
max_file_bytes = 5242880

[pages]
# The name a page shows when its frontmatter has no `title`: "file_name" (the
# note's file name without .md) or "heading" (its first "# " heading, else
# the file name). Either way the file name and the heading stay names of the
# page (aliases): searched in the title arm and resolved by `get` and links.
# Changing it re-indexes every page at the next import or sync.
title = "file_name"

[chunker]
# Words per chunk; a Chinese/Japanese character counts as one word.
target_words = 300
# Words repeated from the end of one chunk at the start of the next
# (at most half of target_words).
overlap_words = 50

[search]
# Results returned when --limit is not given.
limit = 10
# BM25 term-frequency saturation (k1) and length normalisation (b).
bm25_k1 = 0.9
bm25_b = 0.4
# Weight of the title/alias arm added to the best chunk's BM25 score
# (0 turns the arm off). Keyword mode.
title_weight = 0.5
# "keyword", "vector" or "hybrid"; empty: hybrid when [embedding] names a
# model, else keyword. `engram search --mode` overrides it.
mode = ""
# Hybrid queries rewritten by an LLM ([llm] below) into up to this many
# variants (0: off, the default; at most 2), each searched by its own vector
# arm. If the model fails or times out, the search goes on without them and
# says so ("degraded").
expansion = 0

[llm]
# An OpenAI-compatible chat server: query expansion, and the knowledge
# service's guarded answers and dialog checks ([kb]).
base_url = "http://127.0.0.1:8080/v1"
model = ""
api_key_env = "OPENAI_API_KEY"
timeout_ms = 3000

[kb]
# The red-line knowledge service (`engram kb`, /knowledge/*, /dialog): the
# defaults of a call that does not give them. Scores are in [0, 1].
# Minimum score of a hit (inclusive), and hits per text.
threshold = 0.8
top_k = 5
# A top hit at least this similar is answered with its safeChat, no LLM.
same_threshold = 0.9
# An LLM answer less similar than this to the top hit's safeChat is held back
# (answer_backup, "模型输出与文档相似度低").
answer_similarity = 0.7
# The guarded answer's and the dialog check's calls to [llm]'s model.
temperature = 0.1
max_tokens = 512
timeout_ms = 10000
# A dialog check reads the last max_turns x 2 messages.
max_turns = 20
# The rules given to the model ("" = the built-in ones, shown by
# `engram kb answer --help` and `engram kb dialog --help`); "\n" starts a line.
answer_constraints = ""
dialog_principles = ""

[vector]
# The index over chunk vectors (.engram/vectors-*.hnsw, rebuilt from the
# database whenever it is missing, damaged or behind). Brains with fewer
# vectors than exact_below are searched exactly, without a graph; so are
# filters that allow fewer than exact_filter_max chunks.
exact_below = 10000
exact_filter_max = 2000
# HNSW links per node, candidates while inserting and while searching.
m = 16
ef_construction = 200
ef_search = 64

[scope]
# Folders (paths from the brain root, matched on whole components) to index;
# empty means every folder. Hidden folders and node_modules are never indexed.
include = []
# Folders never indexed: "04_Archive" excludes 04_Archive/x.md, not my04_Archive/x.md.
exclude = []
# Files never indexed (case-insensitive paths from the brain root: these describe the brain;
# "notes/README.md" stays an ordinary note). "**/NAME" skips NAME in every folder.
skip_files = ["README.md", "index.md", "log.md", "RESOLVER.md", "schema.md"]

[quarantine]
# Files that look like secrets are never indexed: an audit row (`engram audit`)
# records path, rule and time, never the content. The built-in rules always
# apply (README: "Sensitive-content quarantine"); these lists add to them.
path_components = []
name_keywords = []
# Source-relative paths that are never quarantined (a false positive).
allow = []
# Rule ids switched off, e.g. ["cn_mobile"] or ["name:secret"].
disable = []

[graph]
# Page types (frontmatter `type`) that are entities: listed first when a name
# resolves, given entity cards in `context`, answered about by graph questions.
entity_types = ["person", "company", "organization", "project", "concept", "place", "product", "event", "meeting"]
# Predicates that hold one value at a time: a newer fact closes the older one
# (valid_until), and two facts that hold at once and disagree are a conflict
# (`engram conflicts`). Others (e.g. invested_in) collect every value.
single_valued = ["role", "works_at", "location", "status", "born", "died", "founded", "reports_to"]

[embedding]
# What turns text into vectors for semantic search:
#   "none"   keyword search only (the default);
#   "bert"   engram's own runtime on a local model: model = a name from
#            `engram model list` (installed with `engram model pull NAME`) or a
#            Hugging Face model directory (BERT family, model.safetensors);
#   "openai" any OpenAI-compatible /embeddings server (base_url, model, and the
#            key in the environment variable named by api_key_env);
#   "hash"   deterministic feature hashing (tests, no model needed).
# `engram model use NAME` rewrites this section.
provider = "none"
model = ""
base_url = "https://api.openai.com/v1"
api_key_env = "OPENAI_API_KEY"
# openai: requested output dimensions (0: the model's own); hash: 256 when 0.
dimensions = 0
# bert: encoder threads (0: all cores).
threads = 0
# bert: "fp32", or "bf16" (weights and GEMM inputs in bfloat16, sums in fp32:
# about twice the speed and half the weight memory; embeddings stay within
# cosine 0.999 of fp32, so a brain need not be re-embedded when it changes).
precision = "fp32"
# Texts per request or forward pass, and estimated tokens per request.
max_batch = 64
max_batch_tokens = 8000
# openai: per-request time-out, retries of 429/5xx/time-outs, and a client-side
# requests-per-minute limit (0: none).
timeout_ms = 30000
max_retries = 5
requests_per_minute = 0
# sync and put embed up to this many changed chunks inline; larger change sets
# are left stale for `engram embed --stale` (status shows how many).
inline_limit = 256

[git]
# On a brain that is a git repository, each put, delete and page edit
# (add_tag, add_link, add_timeline_entry — local, MCP or HTTP) commits the one
# file it wrote, so a later `sync --full` or `check --repair` keeps it. A file
# with uncommitted changes of yours is never overwritten: the write is refused.
# Author of those commits; empty: the repository's user.name / user.email,
# else "engram" / "engram@localhost".
author_name = ""
author_email = ""
# The commit's first line: {operation}, {path}, {caller} and {transport} are
# filled in. Trailers naming the operation and the caller always follow.
message = "engram {operation}: {path}"

[store]
# Where the brain's database lives: "sqlite" (.engram/engram.db, the default)
# or "postgres" (a PostgreSQL database shared by several servers; see the
# README's "Scale out with PostgreSQL"). For postgres, url is
# postgres://USER@HOST:PORT/DB; keep the password out of this file: name an
# environment variable holding the whole URL in url_env, or use ~/.pgpass.
engine = "sqlite"
url = ""
url_env = ""
# postgres: a hot standby of that database (streaming replication) that
# serves reads — searches, pages, status — while writes go to url. A process
# reads its own writes from the primary until the standby has replayed them;
# results name the standby when it lags.
read_url = ""
# Milliseconds a writer waits for another writer's transaction to finish.
busy_timeout_ms = 5000
# Milliseconds a write (import, put, delete, sync) waits for the brain's
# write lock (.engram/write.lock) before failing with the holder's name.
lock_timeout_ms = 10000
# `engram serve`: at most this many connections to the store (a request
# waits for a free one); 0 opens one per worker thread as requests need
# them. With PostgreSQL, keeps several servers within max_connections.
pool_size = 0

[server]
# `engram serve`: the HTTP API (/v1) and MCP over HTTP (/mcp). Binding to an
# address other than loopback needs at least one token (`engram token create`).
host = "127.0.0.1"
port = 8765
# Worker threads; one is held only while a request is read and answered
# (idle keep-alive connections and unfinished request heads hold none).
threads = 8
max_body_bytes = 8388608
# Requests per second per caller (token), in bursts of up to twice that; 0: none.
rate_limit = 50
# Milliseconds a request's body may take to arrive (from the end of its
# headers); also how long one write waits for a slow reader.
timeout_ms = 30000
# Milliseconds a request's line and headers may take to arrive. Until they
# have, the connection holds no worker.
header_timeout_ms = 10000
# Open connections from one address; more get 503 at once.
max_connections_per_peer = 64
# Host header values served besides loopback names, the address a request
# arrived on and `host` (DNS rebinding protection), e.g. ["brain.lan"].
allowed_hosts = []
# Browser Origins allowed besides loopback pages and the server's own origin,
# each "scheme://host[:port]", e.g. ["https://notes.example"].
allowed_origins = []
)";

}  // namespace

std::string DefaultConfigToml() { return kDefaultConfigToml; }

Result<BrainOptions> ParseConfig(const std::string& text, const std::string& file_name) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<TomlEntry> entries, ParseTomlSubset(text, file_name));
  BrainOptions options;
  for (const TomlEntry& e : entries) {
    std::string where = file_name + ":" + std::to_string(e.line);
    if (e.table.empty()) return Status::InvalidArgument(where + ": " + e.key + " must be inside a [section]");
    if (const ListSetting* list = FindRow(ListSettings(), e.table, e.key)) {
      const auto* items = std::get_if<std::vector<std::string>>(&e.value.value);
      if (items == nullptr) {
        return Status::InvalidArgument(where + ": " + e.table + "." + e.key + " must be a list of \"strings\"");
      }
      list->field(options) = *items;
      continue;
    }
    if (const TextSetting* text_setting = FindRow(TextSettings(), e.table, e.key)) {
      const auto* text = std::get_if<std::string>(&e.value.value);
      if (text == nullptr) return Status::InvalidArgument(where + ": " + e.table + "." + e.key + " must be a \"string\"");
      text_setting->field(options) = *text;
      continue;
    }
    const Setting* setting = FindRow(Settings(), e.table, e.key);
    if (setting == nullptr) return Status::InvalidArgument(where + ": unknown setting " + e.table + "." + e.key);
    const double* number = std::get_if<double>(&e.value.value);
    if (number == nullptr) return Status::InvalidArgument(where + ": " + e.table + "." + e.key + " must be a number");
    ENGRAM_RETURN_IF_ERROR(SetValue(&options, *setting, *number, where));
  }
  ENGRAM_RETURN_IF_ERROR(options.Validate().WithContext(file_name));
  return options;
}

Status ApplyEnvironment(BrainOptions* options) {
  // Lists: comma-separated, e.g. ENGRAM_SCOPE_EXCLUDE=04_Archive,00_Inbox
  for (const ListSetting& l : ListSettings()) {
    if (!l.from_environment) continue;
    const char* raw = std::getenv(EnvName(l.section, l.key).c_str());
    if (raw == nullptr) continue;
    std::vector<std::string>* list = &l.field(*options);
    list->clear();
    std::string all(raw);
    size_t start = 0;
    while (start <= all.size()) {
      size_t end = all.find(',', start);
      if (end == std::string::npos) end = all.size();
      if (end > start) list->push_back(all.substr(start, end - start));
      start = end + 1;
    }
  }
  for (const TextSetting& t : TextSettings()) {
    const std::string name = EnvName(t.section, t.key);
    if (const char* raw = std::getenv(name.c_str())) t.field(*options) = raw;
  }
  for (const Setting& s : Settings()) {
    const std::string name = EnvName(s.section, s.key);
    const char* raw = std::getenv(name.c_str());
    if (raw == nullptr) continue;
    char* end = nullptr;
    double v = std::strtod(raw, &end);
    if (end == raw || *end != '\0') return Status::InvalidArgument(name + "='" + raw + "' is not a number");
    ENGRAM_RETURN_IF_ERROR(SetValue(options, s, v, name));
  }
  return options->Validate();
}

Result<BrainOptions> LoadConfig(const std::filesystem::path& config_file) {
  BrainOptions options;
  auto text = common::ReadFile(config_file, 1 << 20);
  if (text.ok()) {
    ENGRAM_ASSIGN_OR_RETURN(options, ParseConfig(*text, config_file.string()));
  } else if (text.status().code() != StatusCode::kNotFound) {
    return text.status();
  }
  ENGRAM_RETURN_IF_ERROR(ApplyEnvironment(&options));
  return options;
}

namespace {

// The catalogue row of one table row; nullopt when no table has the key.
std::optional<SettingInfo> Describe(const std::string& section, const std::string& key) {
  SettingInfo info;
  info.section = section;
  info.key = key;
  info.name = section + "." + key;
  info.env = EnvName(section, key);
  // What IndexFingerprint and the scope fingerprint of sync cover.
  info.reindexes = section == "chunker" || section == "scope" || info.name == "pages.title";
  if (const Setting* s = FindRow(Settings(), section, key)) {
    info.type = s->integer ? SettingType::kInteger : SettingType::kNumber;
    info.min = s->min;
    info.max = s->max;
  } else if (const TextSetting* t = FindRow(TextSettings(), section, key)) {
    info.type = SettingType::kString;
    info.allowed = t->allowed;
  } else if (const ListSetting* l = FindRow(ListSettings(), section, key)) {
    info.type = SettingType::kList;
    if (!l->from_environment) info.env.clear();
  } else {
    return std::nullopt;
  }
  return info;
}

std::vector<SettingInfo> BuildCatalogue() {
  std::vector<SettingInfo> out;
  auto add = [&out](const std::string& section, const std::string& key) {
    for (const SettingInfo& known : out) {
      if (known.section == section && known.key == key) return;
    }
    if (auto info = Describe(section, key)) out.push_back(std::move(*info));
  };
  // The documented order first, then (defensively) any row the default file
  // does not list — a unit test keeps that second part empty.
  auto documented = ParseTomlSubset(DefaultConfigToml(), "default config");
  if (documented.ok()) {
    for (const TomlEntry& e : *documented) add(e.table, e.key);
  }
  for (const Setting& s : Settings()) add(s.section, s.key);
  for (const TextSetting& t : TextSettings()) add(t.section, t.key);
  for (const ListSetting& l : ListSettings()) add(l.section, l.key);
  return out;
}

}  // namespace

const std::vector<SettingInfo>& SettingCatalogue() {
  static const std::vector<SettingInfo> kCatalogue = BuildCatalogue();
  return kCatalogue;
}

TomlValue SettingValue(const BrainOptions& options, const SettingInfo& setting) {
  TomlValue v;
  BrainOptions copy = options;  // the text and list rows reach their field through a mutable reference
  if (const Setting* s = FindRow(Settings(), setting.section, setting.key)) {
    v.value = s->get(options);
    v.is_integer = s->integer;
  } else if (const TextSetting* t = FindRow(TextSettings(), setting.section, setting.key)) {
    v.value = t->field(copy);
  } else if (const ListSetting* l = FindRow(ListSettings(), setting.section, setting.key)) {
    v.value = l->field(copy);
  }
  return v;
}

const char* SettingTypeName(SettingType type) {
  switch (type) {
    case SettingType::kInteger: return "integer";
    case SettingType::kNumber: return "number";
    case SettingType::kString: return "string";
    case SettingType::kList: return "list";
  }
  return "string";
}

Result<std::string> BrainStoreUri(const std::filesystem::path& root, const StoreOptions& store) {
  if (store.engine != "postgres") return "sqlite:" + (root / ".engram" / "engram.db").string();
  if (!store.url_env.empty()) {
    const char* url = std::getenv(store.url_env.c_str());
    if (url == nullptr || *url == '\0') {
      return Status::FailedPrecondition("store.url_env names " + store.url_env + ", which is not set; export it as "
                                        "the PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DB)");
    }
    return std::string(url);
  }
  if (store.url.empty()) {
    return Status::FailedPrecondition("store.engine is \"postgres\" but neither store.url nor store.url_env is set");
  }
  return store.url;
}

std::string WithoutPassword(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const size_t at = url.find('@', scheme + 3);
  const size_t slash = url.find('/', scheme + 3);
  if (at == std::string::npos || (slash != std::string::npos && slash < at)) return url;
  const size_t colon = url.find(':', scheme + 3);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon) + url.substr(at);
}


}  // namespace engram::ops
