#include "server/http_server.h"

#include <httplib.h>
#include <sys/stat.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/files.h"
#include "common/hash.h"
#include "common/json_limits.h"
#include "engram/brain.h"
#include "ops/operations.h"
#include "ops/render.h"
#include "ops/tokens.h"
#include "server/http_gate.h"
#include "server/knowledge_api.h"
#include "server/mcp.h"
#include "server/openapi.h"
#include "server/request_guard.h"

namespace engram::server {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

bool IsLoopback(const std::string& host) { return IsLoopbackHost(host); }

namespace {

// One Brain per concurrent request: opened on demand, reused afterwards. At
// most max_open of them ([store] pool_size; 0: no limit): past that a request
// waits for one to come back.
class BrainPool {
 public:
  BrainPool(fs::path root, int max_open) : root_(std::move(root)), max_open_(max_open) {}
  Result<Json> With(const std::function<Result<Json>(Brain&)>& fn) {
    std::unique_ptr<Brain> brain;
    {
      std::unique_lock<std::mutex> lock(mu_);
      returned_.wait(lock, [&] { return !free_.empty() || max_open_ <= 0 || open_ < max_open_; });
      if (!free_.empty()) {
        brain = std::move(free_.back());
        free_.pop_back();
      } else {
        ++open_;  // counted before opening, so that no other request opens past the limit meanwhile
      }
    }
    if (!brain) {
      auto opened = Brain::Open(root_);
      if (!opened.ok()) {
        std::lock_guard<std::mutex> lock(mu_);
        --open_;
        returned_.notify_one();
        return opened.status();
      }
      brain = std::move(*opened);
    }
    brain->engine().FinishReads();  // each request reads the latest commit
    Result<Json> r = fn(*brain);
    brain->engine().FinishReads();
    {
      std::lock_guard<std::mutex> lock(mu_);
      free_.push_back(std::move(brain));
    }
    returned_.notify_one();
    return r;
  }

 private:
  fs::path root_;
  const int max_open_;
  std::mutex mu_;
  std::condition_variable returned_;
  int open_ = 0;
  std::vector<std::unique_ptr<Brain>> free_;
};

// The token file, re-read when it changes (a revoked token stops working
// while the server runs).
//
// Token mode is sticky: once the server has seen a token (at start or
// later), an empty token file means "nobody may call", never "anybody may
// call" — revoking the last token must not open a running server, and a
// server on a non-loopback address must never be open at all.
class Auth {
 public:
  Auth(fs::path file, bool loopback_only) : store_(file), file_(std::move(file)), loopback_only_(loopback_only) {}
  // Whether any token exists now.
  bool AnyTokens() {
    std::lock_guard<std::mutex> lock(mu_);
    Refresh();
    return any_;
  }
  // One look at the token file per request: nothing when the server is open
  // (no token ever seen, loopback only), the entry of the bearer token in
  // `authorization`, else Unauthenticated.
  Result<std::optional<ops::TokenInfo>> Check(const std::string& authorization) {
    std::lock_guard<std::mutex> lock(mu_);
    Refresh();
    if (!token_mode_) return std::optional<ops::TokenInfo>();
    if (!any_) {
      return Status::Unauthenticated(
          "every token of this server has been revoked: it refuses all requests until it is restarted "
          "(create a token with `engram token create`)");
    }
    if (authorization.rfind("Bearer ", 0) != 0) {
      return Status::Unauthenticated("missing bearer token (Authorization: Bearer engram_…; see `engram token create`)");
    }
    const std::string token = authorization.substr(7);
    auto it = cache_.find(token);
    if (it == cache_.end()) {
      ENGRAM_ASSIGN_OR_RETURN(std::optional<ops::TokenInfo> info, store_.Verify(token));
      if (cache_.size() > 10000) cache_.clear();  // random tokens cannot grow it without bound
      it = cache_.emplace(token, std::move(info)).first;
    }
    if (!it->second) return Status::Unauthenticated("invalid or revoked token");
    return it->second;
  }

 private:
  void Refresh() {
    struct stat st {};
    const bool exists = ::stat(file_.c_str(), &st) == 0;
    const std::pair<int64_t, int64_t> stamp = exists ? std::pair<int64_t, int64_t>(st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec, st.st_size)
                                                     : std::pair<int64_t, int64_t>(-1, -1);
    if (loaded_ && stamp == stamp_) return;
    stamp_ = stamp;
    loaded_ = true;
    cache_.clear();
    auto list = store_.List();
    any_ = !list.ok() || !list->empty();  // an unreadable file counts as "tokens required"
    // The bind rule, re-checked on every change of the token file: only a
    // loopback server that has never seen a token is open.
    if (any_ || !loopback_only_) token_mode_ = true;
  }
  ops::TokenStore store_;
  fs::path file_;
  const bool loopback_only_;
  std::mutex mu_;
  bool loaded_ = false, any_ = false, token_mode_ = false;
  std::pair<int64_t, int64_t> stamp_{-2, -2};
  std::unordered_map<std::string, std::optional<ops::TokenInfo>> cache_;
};

// A token bucket per caller: `rate` requests per second, bursts of 2 × rate.
class RateLimiter {
 public:
  explicit RateLimiter(double rate) : rate_(rate) {}
  // Takes one token of key's bucket; false when it is empty.
  bool Allow(const std::string& key) { return Take(key, true); }
  // Whether key's bucket holds a token, none taken (a charge comes later, with Charge).
  bool Peek(const std::string& key) { return Take(key, false); }
  void Charge(const std::string& key) { (void)Take(key, true); }

 private:
  bool Take(const std::string& key, bool take) {
    if (rate_ <= 0) return true;
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = Clock::now();
    if (buckets_.size() > 100000) buckets_.clear();  // many addresses cannot grow it without bound
    auto [it, fresh] = buckets_.try_emplace(key, Bucket{2 * rate_, now});
    Bucket& b = it->second;
    if (!fresh) {
      b.tokens = std::min(2 * rate_, b.tokens + rate_ * std::chrono::duration<double>(now - b.at).count());
      b.at = now;
    }
    if (b.tokens < 1) return false;
    if (take) b.tokens -= 1;
    return true;
  }

  struct Bucket {
    double tokens;
    Clock::time_point at;
  };
  double rate_;
  std::mutex mu_;
  std::unordered_map<std::string, Bucket> buckets_;
};

struct McpEntry {
  std::unique_ptr<McpSession> session;
  std::string owner;  // the caller that opened it
  std::mutex mu;      // one message at a time per session
  std::atomic<int64_t> used{0};  // steady-clock nanoseconds of the last message
};

int64_t NowNs() { return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count(); }

// Per request, set by the guard before routing (the guard, the handler and
// the logger run on the same worker thread).
thread_local Clock::time_point t_start;
thread_local std::string t_caller;
thread_local std::optional<OperationContext> t_ctx;

void SendJson(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_content(ops::Dump(body), "application/json");
}

void SendError(httplib::Response& res, const Status& st) { SendJson(res, HttpStatusFor(st), ops::ErrorJson(st)); }

// Whether the request carries a body the handler has not read.
bool DeclaresBody(const httplib::Request& req) {
  const std::string length = req.get_header_value("Content-Length");
  return (!length.empty() && length != "0") || req.has_header("Transfer-Encoding");
}

// The connection closes after this response (a body may be left unread,
// and must not be taken for the next request); the client is told so.
void CloseAfter(httplib::Response& res) {
  res.set_header("Connection", "close");
  GatedServer::CloseAfterThisResponse();
}

class Server {
 public:
  Server(const fs::path& root, const HttpOptions& options);

  Status Run(std::atomic<bool>& stop, const std::function<void(int)>& on_listening);

 private:
  // Host, Origin, content type, then authentication and the rate limit —
  // all before the body is read. Handled (the error is sent) or Unhandled.
  httplib::Server::HandlerResponse Guard(const httplib::Request& req, httplib::Response& res);
  Result<OperationContext> Authenticate(const httplib::Request& req, const std::string& transport);
  // Reads the body through httplib's content reader (max_body_bytes and
  // the body deadline apply); false when it could not, the error sent.
  bool ReadBody(httplib::Response& res, const httplib::ContentReader& reader, std::string* body);
  void Operation(const httplib::Request& req, httplib::Response& res, const std::string& op, const Result<Json>& args);
  // POST /<route>: the red-line knowledge service's API (server/knowledge_api.h).
  void Knowledge(httplib::Response& res, const httplib::ContentReader& reader, const std::string& route);
  void Mcp(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader);
  Status AddMcpSession(const std::string& id, const std::shared_ptr<McpEntry>& entry);
  void Routes();

  HttpOptions options_;
  HostPolicy hosts_;
  BrainPool pool_;
  Auth auth_;
  RateLimiter limiter_;
  // Failed authentications per remote address: a burst of 10, then 5 a second.
  static constexpr double kAuthFailuresPerSecond = 5;
  RateLimiter auth_failures_;
  GatedServer http_;
  std::mutex sessions_mu_;
  std::map<std::string, std::shared_ptr<McpEntry>> sessions_;
};

GateOptions GateOptionsFor(const HttpOptions& o) {
  GateOptions g;
  g.workers = static_cast<size_t>(std::max(1, o.threads));
  g.header_timeout = std::chrono::milliseconds(o.header_timeout_ms);
  g.body_timeout = std::chrono::milliseconds(o.timeout_ms);
  g.max_connections_per_peer = std::max<size_t>(1, o.max_connections_per_peer);
  return g;
}

Server::Server(const fs::path& root, const HttpOptions& options)
    : options_(options),
      pool_(root, options.pool_size),
      auth_(ops::TokenStore::FileOf(root), IsLoopback(options.host)),
      limiter_(options.rate_limit),
      auth_failures_(kAuthFailuresPerSecond),
      http_(GateOptionsFor(options)) {
  for (std::string h : options.allowed_hosts) {
    for (char& c : h) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    hosts_.allowed_hosts.push_back(h);
  }
  if (auto bound = ParseAuthority(options.host); bound && bound->host != "0.0.0.0" && bound->host != "::") {
    hosts_.allowed_hosts.push_back(bound->host);  // the name or address the user asked to serve on
  }
  hosts_.allowed_origins = options.allowed_origins;
}

Result<OperationContext> Server::Authenticate(const httplib::Request& req, const std::string& transport) {
  OperationContext ctx;
  ctx.remote = true;
  ctx.transport = transport;
  ENGRAM_ASSIGN_OR_RETURN(std::optional<ops::TokenInfo> info, auth_.Check(req.get_header_value("Authorization")));
  if (!info) {  // no token exists: loopback only, the local user's agents
    if (!IsLoopbackHost(req.remote_addr)) {
      return Status::Unauthenticated("this server has no tokens and only answers loopback callers");
    }
    ctx.caller = "local:" + req.remote_addr;
    ctx.scope = Scope::kWrite;
    return ctx;
  }
  ctx.caller = info->id + (info->name.empty() ? "" : ":" + info->name);
  ctx.scope = info->scope;
  return ctx;
}

httplib::Server::HandlerResponse Server::Guard(const httplib::Request& req, httplib::Response& res) {
  using HR = httplib::Server::HandlerResponse;
  t_start = Clock::now();
  t_caller.clear();
  t_ctx.reset();
  auto refuse = [&](const Status& st, int http_status) {
    if (req.path.rfind("/knowledge/", 0) == 0 || req.path.rfind("/data/redline_knowledge/", 0) == 0 ||
        req.path == "/dialog") {
      // The knowledge service's callers read its envelope.
      res.status = http_status;
      res.set_content(knowledge::Envelope(st, 0, nullptr), "application/json");
    } else {
      SendJson(res, http_status, ops::ErrorJson(st));
    }
    if (DeclaresBody(req)) CloseAfter(res);  // the body stays unread
    return HR::Handled;
  };
  const std::string host = req.get_header_value("Host");
  if (Status st = CheckHost(host, req.local_addr, hosts_); !st.ok()) return refuse(st, 403);
  if (Status st = CheckOrigin(req.get_header_value("Origin"), host, hosts_); !st.ok()) return refuse(st, 403);
  if ((req.method == "POST" || req.method == "PUT" || req.method == "PATCH") &&
      !IsJsonContentType(req.get_header_value("Content-Type"))) {
    // Not only a matter of form: text/plain, form and multipart bodies are
    // what any web page may send cross-site without a preflight.
    const std::string got = req.get_header_value("Content-Type");
    const bool form = got.rfind("application/x-www-form-urlencoded", 0) == 0;
    return refuse(Status::InvalidArgument(
                      "send the body as JSON with 'Content-Type: application/json' (got " +
                      (got.empty() ? std::string("no Content-Type") : "'" + got.substr(0, 100) + "'") +
                      (form ? ", which curl -d sends unless told otherwise: add -H 'Content-Type: application/json'" : "") +
                      ")"),
                  415);
  }
  if (req.path == "/healthz" || req.path == "/healthcheck" || req.path == "/v1/openapi.json") return HR::Unhandled;
  // Guessing tokens is slowed per address: after a burst of failed
  // authentications the address is refused before its token is even looked at.
  if (!auth_failures_.Peek(req.remote_addr)) {
    res.set_header("Retry-After", "1");
    return refuse(Status::ResourceExhausted("too many failed authentications from this address; wait and retry"),
                  429);
  }
  auto ctx = Authenticate(req, req.path == "/mcp" ? "mcp-http" : "http");
  if (!ctx.ok()) {
    if (ctx.status().code() == StatusCode::kUnauthenticated) auth_failures_.Charge(req.remote_addr);
    res.set_header("WWW-Authenticate", "Bearer");
    return refuse(ctx.status(), HttpStatusFor(ctx.status()));
  }
  t_caller = ctx->caller;
  if (!limiter_.Allow(ctx->caller)) {
    res.set_header("Retry-After", "1");
    return refuse(Status::ResourceExhausted("rate limit: over " + std::to_string(options_.rate_limit) +
                                            " requests per second for this caller"),
                  429);
  }
  t_ctx = std::move(*ctx);
  return HR::Unhandled;
}

bool Server::ReadBody(httplib::Response& res, const httplib::ContentReader& reader, std::string* body) {
  if (reader([&](const char* data, size_t n) {
        body->append(data, n);
        return true;
      })) {
    return true;
  }
  CloseAfter(res);  // part of the body may still be on its way
  if (res.status == 413) {
    SendError(res, Status::ResourceExhausted("request body over the size limit of " +
                                             std::to_string(options_.max_body_bytes) + " bytes ([server] max_body_bytes)"));
    res.status = 413;
  } else {
    SendError(res, Status::InvalidArgument("the request body did not arrive in full within " +
                                           std::to_string(options_.timeout_ms) + " ms ([server] timeout_ms)"));
  }
  return false;
}

// A JSON body, its nesting checked before it is parsed (common/json_limits.h).
Result<Json> ParseBody(const std::string& body) {
  if (body.empty()) return Json::object();
  ENGRAM_RETURN_IF_ERROR(common::CheckJsonLimits(body, "the request body"));
  Json j = Json::parse(body, nullptr, false);
  if (j.is_discarded()) return Status::InvalidArgument("the request body is not valid JSON");
  return j;
}

void Server::Operation(const httplib::Request& req, httplib::Response& res, const std::string& op,
                       const Result<Json>& args) {
  (void)req;
  if (!t_ctx) return SendError(res, Status::Internal("request was not admitted"));
  if (!args.ok()) return SendError(res, args.status());
  const OperationContext& ctx = *t_ctx;
  auto r = pool_.With([&](Brain& brain) { return ops::Call(brain, ctx, op, *args); });
  if (!r.ok()) return SendError(res, r.status());
  SendJson(res, 200, *r);
}

void Server::Knowledge(httplib::Response& res, const httplib::ContentReader& reader, const std::string& route) {
  std::string body;
  if (!ReadBody(res, reader, &body)) return;
  Status st;
  nlohmann::ordered_json data;
  Result<Json> parsed = ParseBody(body);
  if (!t_ctx) {
    st = Status::Internal("request was not admitted");
  } else if (!parsed.ok()) {
    st = parsed.status();
  } else if (auto call = knowledge::Translate(route, *parsed); !call.ok()) {
    st = call.status();
  } else {
    const OperationContext& ctx = *t_ctx;
    auto r = pool_.With([&](Brain& brain) { return ops::Call(brain, ctx, call->op, call->args); });
    if (r.ok()) {
      data = knowledge::DataOf(route, *r);
      // What scored the hits: the original's data has no place for it, so it is a header.
      if (auto s = r->find("similarity"); s != r->end() && s->is_string()) {
        res.set_header("X-Engram-Similarity", s->get<std::string>());
      }
    } else {
      st = r.status();
    }
  }
  const double cost = std::chrono::duration<double>(Clock::now() - t_start).count();
  res.status = st.ok() ? 200 : HttpStatusFor(st);
  res.set_content(knowledge::Envelope(st, cost, data), "application/json");
}

Status Server::AddMcpSession(const std::string& id, const std::shared_ptr<McpEntry>& entry) {
  std::lock_guard<std::mutex> lock(sessions_mu_);
  // Sessions idle for an hour are gone; a client that comes back initializes again.
  const int64_t now = NowNs();
  constexpr int64_t kIdleNs = 3600LL * 1000000000LL;
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    it = now - it->second->used.load() > kIdleNs ? sessions_.erase(it) : std::next(it);
  }
  // A caller over its own cap loses its own least recently used session,
  // never anyone else's — and never one in use: callers without tokens share
  // one identity, so a flood of initialize calls from one of them must not
  // end another's live session. It is refused instead.
  constexpr int64_t kEvictableNs = 300LL * 1000000000LL;
  size_t own = 0;
  auto oldest_own = sessions_.end();
  for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
    if (it->second->owner != entry->owner) continue;
    ++own;
    if (oldest_own == sessions_.end() || it->second->used.load() < oldest_own->second->used.load()) oldest_own = it;
  }
  if (own >= options_.max_mcp_sessions_per_caller && oldest_own != sessions_.end()) {
    if (now - oldest_own->second->used.load() < kEvictableNs) {
      return Status::Unavailable("this caller has " + std::to_string(own) +
                                 " MCP sessions in use (server.max_mcp_sessions_per_caller); close one with DELETE "
                                 "/mcp or let one stay idle for 5 minutes");
    }
    sessions_.erase(oldest_own);
  }
  if (sessions_.size() >= options_.max_mcp_sessions) {
    return Status::Unavailable("too many open MCP sessions (" + std::to_string(sessions_.size()) +
                               "); close unused ones with DELETE /mcp");
  }
  sessions_[id] = entry;
  return Status::Ok();
}

// Streamable HTTP (MCP 2025-06-18): one JSON-RPC message per POST; the
// session id comes with the initialize response and goes with every later
// request; notifications get 202; GET (a server stream) is not offered.
void Server::Mcp(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
  std::string body;
  if (!ReadBody(res, reader, &body)) return;
  if (!t_ctx) return SendError(res, Status::Internal("request was not admitted"));
  const OperationContext& ctx = *t_ctx;
  const std::string version = req.get_header_value("MCP-Protocol-Version");
  if (!version.empty() && !McpVersionSupported(version)) {
    return SendError(res, Status::InvalidArgument("unsupported MCP-Protocol-Version " + version));
  }
  // HandleText answers parse errors, deep nesting and batches itself.
  Json message = common::CheckJsonLimits(body, "the message").ok() ? Json::parse(body, nullptr, false) : Json(Json::value_t::discarded);
  if (message.is_discarded() || message.is_array()) {
    std::optional<Json> error = McpSession([](const auto&) -> Result<Json> { return Json(); }, ctx).HandleText(body);
    return SendJson(res, 400, *error);
  }
  const bool initialize = message.is_object() && message.value("method", Json()) == "initialize";
  std::shared_ptr<McpEntry> entry;
  const std::string sid = req.get_header_value("Mcp-Session-Id");
  if (initialize) {
    entry = std::make_shared<McpEntry>();
    entry->session = std::make_unique<McpSession>(
        [this](const std::function<Result<Json>(Brain&)>& fn) { return pool_.With(fn); }, ctx);
    entry->owner = ctx.caller;
  } else {
    if (sid.empty()) return SendError(res, Status::InvalidArgument("missing Mcp-Session-Id header (initialize first)"));
    std::lock_guard<std::mutex> lock(sessions_mu_);
    auto it = sessions_.find(sid);
    if (it == sessions_.end() || it->second->owner != ctx.caller) {
      return SendError(res, Status::NotFound("no MCP session " + sid.substr(0, 100) +
                                             " (expired or never opened): initialize again"));
    }
    entry = it->second;
  }
  std::optional<Json> response;
  {
    std::lock_guard<std::mutex> lock(entry->mu);
    entry->used.store(NowNs());
    response = entry->session->Handle(message);
  }
  if (initialize && response && response->contains("result")) {
    auto id = common::RandomHex(16);
    if (!id.ok()) return SendError(res, id.status());
    if (Status st = AddMcpSession(*id, entry); !st.ok()) return SendError(res, st);
    res.set_header("Mcp-Session-Id", *id);
  }
  if (!response) {
    res.status = 202;
    return;
  }
  SendJson(res, 200, *response);
}

void Server::Routes() {
  auto slug_of = [](const httplib::Request& req) { return req.matches.size() > 1 ? std::string(req.matches[1]) : ""; };
  // A route whose body is the operation's arguments (an object, plus the
  // slug from the path when `with_slug`).
  auto body_route = [this, slug_of](std::string op, bool with_slug, std::string shape) {
    return [this, slug_of, op, with_slug, shape](const httplib::Request& req, httplib::Response& res,
                                                 const httplib::ContentReader& reader) {
      std::string body;
      if (!ReadBody(res, reader, &body)) return;
      Result<Json> args = ParseBody(body);
      const std::string name = op.empty() ? slug_of(req) : op;
      if (args.ok() && with_slug) {
        if (!args->is_object()) {
          args = Status::InvalidArgument("the body must be " + shape);
        } else {
          (*args)["slug"] = slug_of(req);
        }
      }
      Operation(req, res, name, args);
    };
  };
  auto no_body = [this](std::string op, auto make_args) {
    return [this, op, make_args](const httplib::Request& req, httplib::Response& res) {
      Operation(req, res, op, make_args(req));
    };
  };
  auto slug_args = [slug_of](const httplib::Request& r) -> Result<Json> { return Json{{"slug", slug_of(r)}}; };
  auto empty_args = [](const httplib::Request&) -> Result<Json> { return Json::object(); };

  http_.Get("/healthz", [](const httplib::Request&, httplib::Response& res) { SendJson(res, 200, {{"status", "ok"}}); });
  // The red-line knowledge service (JoySafety's routes and envelope).
  http_.Get("/healthcheck", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("Hello, world", "text/plain");
  });
  for (const char* route :
       {"knowledge/upsert", "knowledge/delete", "knowledge/search", "knowledge/answer", "knowledge/check", "dialog",
        "data/redline_knowledge/upsert", "data/redline_knowledge/update", "data/redline_knowledge/online",
        "data/redline_knowledge/offline", "data/redline_knowledge/getById", "data/redline_knowledge/getByWord"}) {
    http_.Post(std::string("/") + route,
               [this, r = std::string(route)](const httplib::Request&, httplib::Response& res,
                                              const httplib::ContentReader& reader) { Knowledge(res, reader, r); });
  }
  http_.Get("/v1/openapi.json", [](const httplib::Request&, httplib::Response& res) { SendJson(res, 200, OpenApi()); });
  http_.Post("/v1/search", body_route("search", false, ""));
  http_.Post("/v1/context", body_route("context", false, ""));
  http_.Get("/v1/status", no_body("status", empty_args));
  http_.Get("/v1/pages", no_body("list_pages", [](const httplib::Request& r) -> Result<Json> {
              Json a = Json::object();
              for (const char* key : {"type", "tag"}) {
                if (r.has_param(key)) a[key] = r.get_param_value(key);
              }
              if (r.has_param("limit")) {
                const std::string v = r.get_param_value("limit");
                char* end = nullptr;
                const long long n = std::strtoll(v.c_str(), &end, 10);
                if (v.empty() || *end != '\0') return Status::InvalidArgument("query parameter 'limit' must be an integer");
                a["limit"] = n;
              }
              return a;
            }));
  http_.Get(R"(/v1/pages/(.+))", no_body("get_page", slug_args));
  http_.Put(R"(/v1/pages/(.+))", body_route("put_page", true, "{\"content\": \"...\"}"));
  http_.Delete(R"(/v1/pages/(.+))", no_body("delete_page", slug_args));
  // GET reads, POST adds: /v1/backlinks|timeline|tags/{slug}.
  const std::vector<std::tuple<std::string, std::string, std::string>> page_parts = {
      {"backlinks", "get_backlinks", ""}, {"timeline", "get_timeline", "add_timeline_entry"}, {"tags", "get_tags", "add_tag"}};
  for (const auto& [part, get_op, post_op] : page_parts) {
    const std::string pattern = "/v1/" + part + "/(.+)";
    http_.Get(pattern, no_body(get_op, slug_args));
    if (!post_op.empty()) http_.Post(pattern, body_route(post_op, true, "a JSON object"));
  }
  http_.Post("/v1/links", body_route("add_link", false, ""));
  http_.Post(R"(/v1/call/([a-z_]+))", body_route("", false, ""));
  http_.Post("/mcp", [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
    Mcp(req, res, reader);
  });
  http_.Get("/mcp", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Allow", "POST, DELETE");
    SendJson(res, 405, ops::ErrorJson(Status::InvalidArgument("this server does not offer a server-to-client stream")));
  });
  http_.Delete("/mcp", [this](const httplib::Request& req, httplib::Response& res) {
    if (!t_ctx) return SendError(res, Status::Internal("request was not admitted"));
    std::lock_guard<std::mutex> lock(sessions_mu_);
    auto it = sessions_.find(req.get_header_value("Mcp-Session-Id"));
    if (it == sessions_.end() || it->second->owner != t_ctx->caller) return SendError(res, Status::NotFound("no such MCP session"));
    sessions_.erase(it);
    res.status = 204;
  });
}

Status Server::Run(std::atomic<bool>& stop, const std::function<void(int)>& on_listening) {
  if (!IsLoopback(options_.host) && !auth_.AnyTokens()) {
    return Status::FailedPrecondition("refusing to serve on " + options_.host +
                                      " without a token: create one with `engram token create --scope read`, "
                                      "or bind to 127.0.0.1");
  }
  (void)auth_.Check("");  // reads the token file now: a server started with tokens stays in token mode
  http_.set_payload_max_length(options_.max_body_bytes);
  const auto timeout = std::chrono::milliseconds(options_.timeout_ms);
  http_.set_read_timeout(timeout);
  http_.set_write_timeout(timeout);
  http_.set_tcp_nodelay(true);  // headers and body go out in two writes: without it, delayed ACKs add 40 ms
  http_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) { return Guard(req, res); });
  http_.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;  // a handler's own JSON error
    if (res.status == 413 || res.status == 400) CloseAfter(res);  // a body may be left unread
    Status st = res.status == 413   ? Status::ResourceExhausted("request body over the size limit")
                : res.status == 404 ? Status::NotFound("no route " + req.method + " " + req.path)
                : res.status == 405 ? Status::InvalidArgument("method not allowed")
                                    : Status::InvalidArgument("bad request (HTTP " + std::to_string(res.status) + ")");
    res.set_content(ops::Dump(ops::ErrorJson(st)), "application/json");
  });
  http_.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unexpected error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    SendJson(res, 500, ops::ErrorJson(Status::Internal(what)));
  });
  if (options_.access_log) {
    http_.set_logger([](const httplib::Request& req, const httplib::Response& res) {
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t_start).count();
      const Json line = {{"at", common::NowIso8601()}, {"method", req.method}, {"path", req.path},
                         {"status", res.status}, {"ms", static_cast<int64_t>(ms * 1000) / 1000.0},
                         {"bytes", res.body.size()}, {"caller", t_caller}, {"remote", req.remote_addr}};
      std::fprintf(stderr, "%s\n", ops::Dump(line).c_str());
    });
  }
  Routes();
  int port = options_.port;
  if (port == 0) {
    port = http_.bind_to_any_port(options_.host);
    if (port < 0) return Status::Unavailable("cannot bind to " + options_.host);
  } else if (!http_.bind_to_port(options_.host, port)) {
    return Status::Unavailable("cannot listen on " + options_.host + ":" + std::to_string(port) +
                               " (in use, or not an address of this machine)");
  }
  std::thread watcher([&] {
    while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    http_.stop();
  });
  if (on_listening) on_listening(port);
  const bool ok = http_.listen_after_bind();
  const bool stopped = stop.load();
  stop.store(true);  // listen returned on its own (an error): wake the watcher
  watcher.join();
  return ok || stopped ? Status::Ok() : Status::Unavailable("the server stopped unexpectedly");
}

}  // namespace

Status ServeHttp(const fs::path& brain_root, const HttpOptions& options, std::atomic<bool>& stop,
                 const std::function<void(int)>& on_listening) {
  Server server(brain_root, options);
  return server.Run(stop, on_listening);
}

}  // namespace engram::server
