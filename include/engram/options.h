// Brain configuration: one struct per config.toml section, each field with
// its default here and nowhere else, each section with a Validate() that
// checks what the per-key ranges cannot (allowed names, combinations).
// Precedence: flags > ENGRAM_* environment variables > config.toml > default.
// The keys, their ranges and their environment variables are the table in
// src/ops/config.cc, which loading, `engram config` and the defaults file
// (`engram init`) all read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engram/status.h"

namespace engram {

// [import]
struct ImportOptions {
  uint64_t max_file_bytes = 5u << 20;  // files over this are skipped with the reason
};

// [pages]
struct PagesOptions {
  std::string title = "file_name";  // title without frontmatter `title`: "file_name" or "heading" (first H1)
  Status Validate() const;
};

// [chunker]
struct ChunkerOptions {
  int target_words = 300;  // words per chunk (a CJK character counts as a word)
  int overlap_words = 50;  // words repeated between consecutive chunks (at most half of target_words)
  Status Validate() const;
};

// [search]
struct SearchSettings {
  int limit = 10;             // results when --limit is not given
  double bm25_k1 = 0.9;       // BM25 term-frequency saturation
  double bm25_b = 0.4;        // BM25 length normalisation
  double title_weight = 0.5;  // weight of the title/alias arm
  std::string mode;           // "keyword", "vector", "hybrid"; "" = hybrid with a model, else keyword
  int expansion = 0;          // LLM rewrites of each hybrid query (0 = off, at most 2; needs [llm] model)
  Status Validate() const;
};

// [llm] an OpenAI-compatible chat server, for query expansion.
struct LlmOptions {
  std::string base_url = "http://127.0.0.1:8080/v1";
  std::string model;
  std::string api_key_env = "OPENAI_API_KEY";
  int timeout_ms = 3000;
  Status Validate() const;
};

// [kb] the red-line knowledge service: the defaults of a search, a guarded
// answer and a dialog check when a call does not give them, and the texts of
// their prompts ("" = the built-in ones). The LLM is [llm]'s server and model.
struct KbOptions {
  double threshold = 0.8;          // minimum reference score, inclusive
  double same_threshold = 0.9;     // a top hit this similar is answered with its safeChat, no LLM
  int top_k = 5;                   // hits per text
  double answer_similarity = 0.7;  // answer_knowledge_similarity_threshold
  double temperature = 0.1;        // the answer and dialog LLM calls
  int max_tokens = 512;
  int timeout_ms = 10000;          // one LLM call, retries included
  int max_turns = 20;              // a dialog check reads the last max_turns x 2 messages
  std::string answer_constraints;  // the guarded answer's rules for the model
  std::string dialog_principles;   // the dialog check's labelling rules
};

// [vector] the index over chunk vectors.
struct VectorSettings {
  int exact_below = 10000;      // fewer vectors: exact search, no graph
  int exact_filter_max = 2000;  // filters allowing fewer chunks: exact search over them
  int m = 16;
  int ef_construction = 200;
  int ef_search = 64;
};

// [scope] folders are paths from the brain root, matched on whole components.
struct ScopeOptions {
  std::vector<std::string> include;  // when non-empty, only files under these folders
  std::vector<std::string> exclude;  // never files under these folders
  std::vector<std::string> skip_files = {"README.md", "index.md", "log.md", "RESOLVER.md", "schema.md"};
  Status Validate() const;
};

// [quarantine] the built-in rules always apply; these add to or silence them.
struct QuarantineOptions {
  std::vector<std::string> path_components;  // more folder names that hold secrets
  std::vector<std::string> name_keywords;    // more file-name keywords
  std::vector<std::string> allow;            // paths never quarantined (false positives)
  std::vector<std::string> disable;          // rule ids switched off
  Status Validate() const;
};

// [graph] the knowledge graph (src/graph): which page types are entities, and
// which predicates hold one value at a time (a newer fact closes the older;
// two that hold at once and disagree are a conflict).
struct GraphOptions {
  std::vector<std::string> entity_types = {"person",  "company", "organization", "project", "concept",
                                           "place",   "product", "event",        "meeting"};
  std::vector<std::string> single_valued = {"role", "works_at", "location", "status",
                                            "born", "died",     "founded",  "reports_to"};
  Status Validate() const;
};

// [embedding] none: keyword search only; bert: the local runtime on a model
// (a name from `engram model list`, installed with `engram model pull`, or a
// model directory); openai: an OpenAI-compatible server; hash: feature hashing.
struct EmbeddingOptions {
  std::string provider = "none";
  std::string model;                      // bert: name or directory; openai: the server's model id
  std::string base_url = "https://api.openai.com/v1";
  std::string api_key_env = "OPENAI_API_KEY";
  int dimensions = 0;                     // openai "dimensions" (0: the model's own); hash: 256 when 0
  int threads = 0;                        // bert: encoder threads (0: all cores)
  std::string precision = "fp32";         // bert: "fp32" or "bf16"
  int max_batch = 64;                     // texts per request / forward pass
  int max_batch_tokens = 8000;            // estimated tokens per request
  int timeout_ms = 30000;                 // openai: per request
  int max_retries = 5;                    // openai: retries of 429 / 5xx / time-outs
  double requests_per_minute = 0;         // openai: client-side limit (0: none)
  int inline_limit = 256;                 // sync/put embed this many stale chunks inline; more wait for `engram embed`
  Status Validate() const;
};

// [git] on a git brain each put, delete and page edit is committed.
struct GitOptions {
  std::string author_name;   // "": the repository's user.name, else "engram"
  std::string author_email;  // "": the repository's user.email, else "engram@localhost"
  std::string message = "engram {operation}: {path}";  // the commit's first line
  Status Validate() const;
};

// [store]
struct StoreOptions {
  std::string engine = "sqlite";  // "sqlite": .engram/engram.db; "postgres": the database url names
  std::string url;                // postgres://USER@HOST:PORT/DB (a password belongs in url_env or ~/.pgpass)
  std::string url_env;            // the environment variable holding the URL; wins over url
  std::string read_url;           // a hot standby serving reads (postgres); "" = the primary serves them
  int busy_timeout_ms = 5000;   // how long a writer waits for another writer's transaction
  int lock_timeout_ms = 10000;  // how long a write waits for the brain's write lock
  int pool_size = 0;            // `engram serve`: store connections open at most (0: one per worker thread)
  Status Validate() const;
};

// [server] `engram serve`.
struct ServerOptions {
  std::string host = "127.0.0.1";  // a non-loopback address needs a token (`engram token create`)
  int port = 8765;
  int threads = 8;                 // workers; one is held only while a request is handled
  uint64_t max_body_bytes = 8u << 20;
  double rate_limit = 50;          // requests per second per caller (bursts of twice that); 0: none
  int timeout_ms = 30000;          // a request body must arrive within this; also the write time-out
  int header_timeout_ms = 10000;   // a request head (request line + headers) must arrive within this
  int max_connections_per_peer = 64;     // open connections from one address
  std::vector<std::string> allowed_hosts;    // Host names served besides loopback ones and `host`
  std::vector<std::string> allowed_origins;  // browser Origins allowed besides loopback pages
  Status Validate() const;
};

struct BrainOptions {
  ImportOptions import;
  PagesOptions pages;
  ChunkerOptions chunker;
  SearchSettings search;
  LlmOptions llm;
  KbOptions kb;
  VectorSettings vector;
  ScopeOptions scope;
  QuarantineOptions quarantine;
  GraphOptions graph;
  EmbeddingOptions embedding;
  GitOptions git;
  StoreOptions store;
  ServerOptions server;
  // Every section's Validate(), then what spans sections (search.expansion
  // needs llm.model). InvalidArgument naming the key ("embedding.model").
  Status Validate() const;
};

}  // namespace engram
