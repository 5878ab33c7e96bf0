// Brain configuration: one aggregate with a documented default per field.
// Precedence: flags > ENGRAM_* environment variables > config.toml > default.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace engram {

struct BrainOptions {
  // [import]
  uint64_t import_max_file_bytes = 5u << 20;  // files over this are skipped with the reason
  // [pages]
  std::string page_title = "file_name";  // title without frontmatter `title`: "file_name" or "heading" (first H1)
  // [chunker]
  int chunk_target_words = 300;   // words per chunk (a CJK character counts as a word)
  int chunk_overlap_words = 50;   // words repeated between consecutive chunks
  // [search]
  int search_limit = 10;          // results when --limit is not given
  double bm25_k1 = 0.9;           // BM25 term-frequency saturation
  double bm25_b = 0.4;            // BM25 length normalisation
  double title_weight = 0.5;      // weight of the title/alias arm
  std::string search_mode;        // "keyword", "vector", "hybrid"; "" = hybrid with a model, else keyword
  int search_expansion = 0;       // LLM rewrites of each hybrid query (0 = off, at most 2)
  // [llm] an OpenAI-compatible chat server, for query expansion.
  std::string llm_base_url = "http://127.0.0.1:8080/v1";
  std::string llm_model;
  std::string llm_api_key_env = "OPENAI_API_KEY";
  int llm_timeout_ms = 3000;
  // [vector] the index over chunk vectors.
  int vector_exact_below = 10000;   // fewer vectors: exact search, no graph
  int vector_exact_filter_max = 2000;  // filters allowing fewer chunks: exact search over them
  int vector_m = 16;
  int vector_ef_construction = 200;
  int vector_ef_search = 64;
  // [scope] folders are paths from the brain root, matched on whole components
  std::vector<std::string> scope_include;  // when non-empty, only files under these folders
  std::vector<std::string> scope_exclude;  // never files under these folders
  std::vector<std::string> scope_skip_files = {"README.md", "index.md", "log.md", "RESOLVER.md", "schema.md"};
  // [quarantine] the built-in rules always apply; these add to or silence them
  std::vector<std::string> quarantine_path_components;  // more folder names that hold secrets
  std::vector<std::string> quarantine_name_keywords;    // more file-name keywords
  std::vector<std::string> quarantine_allow;            // paths never quarantined (false positives)
  std::vector<std::string> quarantine_disable;          // rule ids switched off
  // [embedding] none: keyword search only; bert: the local runtime on a model
  // (a name from `engram model list`, installed with `engram model pull`, or a
  // model directory); openai: an OpenAI-compatible server; hash: feature hashing.
  std::string embedding_provider = "none";
  std::string embedding_model;            // bert: name or directory; openai: the server's model id
  std::string embedding_base_url = "https://api.openai.com/v1";
  std::string embedding_api_key_env = "OPENAI_API_KEY";
  int embedding_dimensions = 0;           // openai "dimensions" (0: the model's own); hash: 256 when 0
  int embedding_threads = 0;              // bert: encoder threads (0: all cores)
  std::string embedding_precision = "fp32";  // bert: "fp32" or "bf16"
  int embedding_max_batch = 64;           // texts per request / forward pass
  int embedding_max_batch_tokens = 8000;  // estimated tokens per request
  int embedding_timeout_ms = 30000;       // openai: per request
  int embedding_max_retries = 5;          // openai: retries of 429 / 5xx / time-outs
  double embedding_requests_per_minute = 0;  // openai: client-side limit (0: none)
  int embedding_inline_limit = 256;       // sync/put embed this many stale chunks inline; more wait for `engram embed`
  // [git] on a git brain each put, delete and page edit is committed
  std::string git_author_name;   // "": the repository's user.name, else "engram"
  std::string git_author_email;  // "": the repository's user.email, else "engram@localhost"
  std::string git_message = "engram {operation}: {path}";  // the commit's first line
  // [store]
  int busy_timeout_ms = 5000;     // how long a writer waits for another writer's transaction
  int lock_timeout_ms = 10000;    // how long a write waits for the brain's write lock
  // [server] `engram serve`
  std::string server_host = "127.0.0.1";  // a non-loopback address needs a token (`engram token create`)
  int server_port = 8765;
  int server_threads = 8;                 // workers; one is held only while a request is handled
  uint64_t server_max_body_bytes = 8u << 20;
  double server_rate_limit = 50;          // requests per second per caller (bursts of twice that); 0: none
  int server_timeout_ms = 30000;          // a request body must arrive within this; also the write time-out
  int server_header_timeout_ms = 10000;   // a request head (request line + headers) must arrive within this
  int server_max_connections_per_peer = 64;  // open connections from one address
  std::vector<std::string> server_allowed_hosts;    // Host names served besides loopback ones and `host`
  std::vector<std::string> server_allowed_origins;  // browser Origins allowed besides loopback pages
};

}  // namespace engram
