#include "server_commands.h"

#include <signal.h>

#include <atomic>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "command_support.h"
#include "engram/brain.h"
#include "ops/render.h"
#include "ops/tokens.h"
#include "server/http_server.h"
#include "server/mcp_stdio.h"

namespace engram::cli {

namespace {

using Json = nlohmann::json;

int Fail(const Status& st, bool json) {
  if (json) std::cout << ops::Dump(ops::ErrorJson(st), 2) << "\n";
  std::cerr << "engram: " << st.message() << "\n";
  return ExitCodeFor(st);
}

struct ServeArgs {
  std::string host;
  int port = -1;
  int threads = 0;
  double rate_limit = -1;
  bool quiet = false;
};

struct TokenArgs {
  std::string scope = "read";
  std::string name;
  std::string id;
};

int RunMcp(const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), false);
  std::cerr << "engram: MCP server on stdio for " << (*brain)->root().string() << "\n";
  Status st = server::ServeMcpStdio(**brain, stdin, stdout);
  if (!st.ok()) return Fail(st, false);
  return 0;
}

int RunServe(const ServeArgs& a, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), false);
  const BrainOptions& o = (*brain)->options();
  server::HttpOptions h;
  h.host = a.host.empty() ? o.server.host : a.host;
  h.port = a.port >= 0 ? a.port : o.server.port;
  h.threads = a.threads > 0 ? a.threads : o.server.threads;
  h.pool_size = o.store.pool_size;
  h.max_body_bytes = o.server.max_body_bytes;
  h.rate_limit = a.rate_limit >= 0 ? a.rate_limit : o.server.rate_limit;
  h.timeout_ms = o.server.timeout_ms;
  h.header_timeout_ms = o.server.header_timeout_ms;
  h.max_connections_per_peer = static_cast<size_t>(o.server.max_connections_per_peer);
  h.allowed_hosts = o.server.allowed_hosts;
  h.allowed_origins = o.server.allowed_origins;
  h.access_log = !a.quiet;
  const std::filesystem::path root = (*brain)->root();
  brain->reset();
  std::atomic<bool>& stop = StopOnSignals();
  signal(SIGPIPE, SIG_IGN);
  Status st = server::ServeHttp(root, h, stop, [&](int port) {
    std::cerr << "engram: serving " << root.string() << " on http://" << h.host << ":" << port
              << " (HTTP API /v1, MCP /mcp, " << h.threads << " workers)" << std::endl;
  });
  if (!st.ok()) return Fail(st, false);
  std::cerr << "engram: server stopped\n";
  return 0;
}

int RunToken(const std::string& action, const TokenArgs& a, bool json, const std::string& brain_dir) {
  auto root = Brain::Locate(brain_dir);
  if (!root.ok()) return Fail(root.status(), json);
  ops::TokenStore store(ops::TokenStore::FileOf(*root));
  if (action == "create") {
    Scope scope;
    if (!ParseScope(a.scope, &scope)) return Fail(Status::InvalidArgument("--scope must be read, write or admin"), json);
    auto t = store.Create(scope, a.name);
    if (!t.ok()) return Fail(t.status(), json);
    if (json) {
      std::cout << engram::ops::Dump(Json{{"token", t->token}, {"id", t->info.id}, {"scope", a.scope}, {"name", a.name}}, 2) << "\n";
    } else {
      std::cout << t->token << "\n";
      std::cerr << "engram: token " << t->info.id << " (" << a.scope << ") created; it is shown only this once\n";
    }
    return 0;
  }
  if (action == "list") {
    auto list = store.List();
    if (!list.ok()) return Fail(list.status(), json);
    if (json) {
      Json rows = Json::array();
      for (const auto& t : *list) {
        rows.push_back({{"id", t.id}, {"name", t.name}, {"scope", ScopeName(t.scope)}, {"created_at", t.created_at}});
      }
      std::cout << engram::ops::Dump(Json{{"tokens", rows}}, 2) << "\n";
    } else {
      for (const auto& t : *list) std::cout << t.id << "  " << ScopeName(t.scope) << "  " << t.created_at << "  " << t.name << "\n";
      std::cout << list->size() << " token(s)\n";
    }
    return 0;
  }
  Status st = store.Revoke(a.id);
  if (!st.ok()) return Fail(st, json);
  if (json) std::cout << engram::ops::Dump(Json{{"revoked", a.id}}, 2) << "\n";
  else std::cout << "Revoked " << a.id << "\n";
  return 0;
}

}  // namespace

void AddServerCommands(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto* mcp = app.add_subcommand("mcp", "Serve the brain to an AI agent over MCP on stdin/stdout");
  mcp->footer(
      "Model Context Protocol (revision 2025-06-18) over stdio: one JSON-RPC message per line on stdin, one\n"
      "per line on stdout; logs go to stderr. Tools: search, context, get_page, put_page, delete_page,\n"
      "list_pages, get_backlinks, get_timeline, add_timeline_entry, add_link, get_tags, add_tag, status.\n"
      "The agent is an untrusted remote caller with the write scope: it cannot leave the brain's folder,\n"
      "follow symlinks out, see private pages or run local-only operations. A client configuration:\n"
      "  {\"mcpServers\": {\"engram\": {\"command\": \"engram\", \"args\": [\"--brain\", \"/path/to/brain\", \"mcp\"]}}}");
  mcp->callback([brain_dir, exit_code] { *exit_code = RunMcp(*brain_dir); });

  auto sa = std::make_shared<ServeArgs>();
  auto* serve = app.add_subcommand("serve", "Serve the HTTP API (/v1) and MCP over HTTP (/mcp)");
  serve->add_option("--host", sa->host, "Address to bind (default [server] host, 127.0.0.1)");
  serve->add_option("--port", sa->port, "Port (default [server] port, 8765; 0 picks a free one)")->check(CLI::Range(0, 65535));
  serve->add_option("--threads", sa->threads, "Worker threads (default [server] threads, 8)")->check(CLI::Range(1, 1024));
  serve->add_option("--rate-limit", sa->rate_limit,
                    "Requests per second per caller, bursts of twice that (default [server] rate_limit, 50; 0: none)")
      ->check(CLI::Range(0.0, 1e9));
  serve->add_flag("--quiet", sa->quiet, "No access log on stderr");
  serve->footer(
      "Routes: GET /healthz; GET /v1/openapi.json; POST /v1/search, /v1/context (JSON bodies as the MCP tools'\n"
      "arguments); GET /v1/pages?type=&tag=&limit=; GET|PUT|DELETE /v1/pages/{slug} (PUT body {\"content\"});\n"
      "GET /v1/backlinks/{slug}; GET|POST /v1/timeline/{slug}; GET|POST /v1/tags/{slug}; POST /v1/links;\n"
      "GET /v1/status; POST /v1/call/{operation}; POST|DELETE /mcp (Streamable HTTP).\n"
      "POST and PUT bodies need 'Content-Type: application/json' (curl: -H 'Content-Type: application/json').\n"
      "Auth: 'Authorization: Bearer TOKEN' once any token exists (`engram token create`); without tokens the\n"
      "server binds to loopback only. A server started with tokens stays in token mode until restarted.\n"
      "The Host header must name this server (loopback, its address, [server] allowed_hosts) and a browser\n"
      "Origin must be a loopback page or in allowed_origins. Errors are {\"error\": {\"code\", \"message\"}}\n"
      "with 400/401/403/404/409/413/415/429/500/503. [server] in config.toml sets host, port, threads,\n"
      "max_body_bytes, rate_limit, timeout_ms, header_timeout_ms, max_connections_per_peer, allowed_hosts,\n"
      "allowed_origins; [store] pool_size caps the store connections it holds (a request waits for a free\n"
      "one). Stops on SIGINT/SIGTERM.");
  serve->callback([sa, brain_dir, exit_code] { *exit_code = RunServe(*sa, *brain_dir); });

  auto ta = std::make_shared<TokenArgs>();
  auto* token = app.add_subcommand("token", "Manage bearer tokens of `engram serve` (local only)");
  token->require_subcommand(1);
  auto* create = token->add_subcommand("create", "Create a token and print it (shown only once)");
  create->add_option("--scope", ta->scope, "read (search and read), write (also edit pages) or admin (default read)")
      ->check(CLI::IsMember({"read", "write", "admin"}));
  create->add_option("--name", ta->name, "A label, e.g. the agent's name");
  create->callback([ta, json, brain_dir, exit_code] { *exit_code = RunToken("create", *ta, *json, *brain_dir); });
  auto* list = token->add_subcommand("list", "List tokens (id, scope, creation time, name; never the secret)");
  list->callback([ta, json, brain_dir, exit_code] { *exit_code = RunToken("list", *ta, *json, *brain_dir); });
  auto* revoke = token->add_subcommand("revoke", "Revoke a token by id (a running server notices at once)");
  revoke->add_option("ID", ta->id, "The token's id (from `engram token list`)")->required();
  revoke->callback([ta, json, brain_dir, exit_code] { *exit_code = RunToken("revoke", *ta, *json, *brain_dir); });
  token->footer("Tokens are stored hashed (SHA-256) in .engram/tokens.json and compared in constant time.");
}

}  // namespace engram::cli
