#include "server/http_server.h"

#include <httplib.h>
#include <sys/stat.h>

#include <chrono>
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
#include "engram/brain.h"
#include "ops/operations.h"
#include "ops/render.h"
#include "ops/tokens.h"
#include "server/mcp.h"
#include "server/openapi.h"

namespace engram::server {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

bool IsLoopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

namespace {

// One Brain per concurrent request: opened on demand, reused afterwards.
class BrainPool {
 public:
  explicit BrainPool(fs::path root) : root_(std::move(root)) {}
  Result<Json> With(const std::function<Result<Json>(Brain&)>& fn) {
    std::unique_ptr<Brain> brain;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        brain = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (!brain) {
      auto opened = Brain::Open(root_);
      if (!opened.ok()) return opened.status();
      brain = std::move(*opened);
    }
    brain->engine().FinishReads();  // each request reads the latest commit
    Result<Json> r = fn(*brain);
    brain->engine().FinishReads();
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(brain));
    return r;
  }

 private:
  fs::path root_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Brain>> free_;
};

// The token file, re-read when it changes (a revoked token stops working
// while the server runs).
class Auth {
 public:
  explicit Auth(fs::path file) : store_(file), file_(std::move(file)) {}
  // Whether any token exists now.
  bool AnyTokens() {
    std::lock_guard<std::mutex> lock(mu_);
    Refresh();
    return any_;
  }
  // One look at the token file per request: nothing when no token exists
  // (open, loopback only), the entry of the bearer token in `authorization`,
  // else Unauthenticated.
  Result<std::optional<ops::TokenInfo>> Check(const std::string& authorization) {
    std::lock_guard<std::mutex> lock(mu_);
    Refresh();
    if (!any_) return std::optional<ops::TokenInfo>();
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
  }
  ops::TokenStore store_;
  fs::path file_;
  std::mutex mu_;
  bool loaded_ = false, any_ = false;
  std::pair<int64_t, int64_t> stamp_{-2, -2};
  std::unordered_map<std::string, std::optional<ops::TokenInfo>> cache_;
};

// A token bucket per caller: `rate` requests per second, bursts of 2 × rate.
class RateLimiter {
 public:
  explicit RateLimiter(double rate) : rate_(rate) {}
  bool Allow(const std::string& key) {
    if (rate_ <= 0) return true;
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = Clock::now();
    auto [it, fresh] = buckets_.try_emplace(key, Bucket{2 * rate_, now});
    Bucket& b = it->second;
    if (!fresh) {
      b.tokens = std::min(2 * rate_, b.tokens + rate_ * std::chrono::duration<double>(now - b.at).count());
      b.at = now;
    }
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

 private:
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
  std::mutex mu;
  Clock::time_point used;
};

// Per request, for the access log (the logger runs on the handling thread).
thread_local Clock::time_point t_start;
thread_local std::string t_caller;

void SendJson(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_content(ops::Dump(body), "application/json");
}

void SendError(httplib::Response& res, const Status& st) { SendJson(res, HttpStatusFor(st), ops::ErrorJson(st)); }

class Server {
 public:
  Server(const fs::path& root, const HttpOptions& options)
      : options_(options), pool_(root), auth_(ops::TokenStore::FileOf(root)), limiter_(options.rate_limit) {}

  Status Run(std::atomic<bool>& stop, const std::function<void(int)>& on_listening);

 private:
  // The caller's context once authenticated and within its rate; otherwise
  // the error response is sent and nothing is returned.
  std::optional<OperationContext> Admit(const httplib::Request& req, httplib::Response& res,
                                        const std::string& transport);
  // Admits, then runs fn with the caller's context.
  void Handle(const httplib::Request& req, httplib::Response& res, const std::string& transport,
              const std::function<Result<Json>(const OperationContext&)>& fn);
  Result<OperationContext> Authenticate(const httplib::Request& req, const std::string& transport);
  void Operation(const httplib::Request& req, httplib::Response& res, const std::string& op,
                 const std::function<Result<Json>(const httplib::Request&)>& args);
  void Mcp(const httplib::Request& req, httplib::Response& res);
  void Routes();

  HttpOptions options_;
  BrainPool pool_;
  Auth auth_;
  RateLimiter limiter_;
  httplib::Server http_;
  std::mutex sessions_mu_;
  std::map<std::string, std::shared_ptr<McpEntry>> sessions_;
};

Result<OperationContext> Server::Authenticate(const httplib::Request& req, const std::string& transport) {
  OperationContext ctx;
  ctx.remote = true;
  ctx.transport = transport;
  ENGRAM_ASSIGN_OR_RETURN(std::optional<ops::TokenInfo> info, auth_.Check(req.get_header_value("Authorization")));
  if (!info) {  // no token exists: loopback only (checked at start), the local user's agents
    ctx.caller = "local:" + req.remote_addr;
    ctx.scope = Scope::kWrite;
    return ctx;
  }
  ctx.caller = info->id + (info->name.empty() ? "" : ":" + info->name);
  ctx.scope = info->scope;
  return ctx;
}

std::optional<OperationContext> Server::Admit(const httplib::Request& req, httplib::Response& res,
                                              const std::string& transport) {
  auto ctx = Authenticate(req, transport);
  if (!ctx.ok()) {
    res.set_header("WWW-Authenticate", "Bearer");
    SendError(res, ctx.status());
    return std::nullopt;
  }
  t_caller = ctx->caller;
  if (!limiter_.Allow(ctx->caller)) {
    res.set_header("Retry-After", "1");
    SendError(res, Status::ResourceExhausted("rate limit: over " + std::to_string(options_.rate_limit) +
                                             " requests per second for this caller"));
    return std::nullopt;
  }
  return std::move(*ctx);
}

void Server::Handle(const httplib::Request& req, httplib::Response& res, const std::string& transport,
                    const std::function<Result<Json>(const OperationContext&)>& fn) {
  std::optional<OperationContext> ctx = Admit(req, res, transport);
  if (!ctx) return;
  auto r = fn(*ctx);
  if (!r.ok()) return SendError(res, r.status());
  SendJson(res, 200, *r);
}

Result<Json> BodyJson(const httplib::Request& req) {
  if (req.body.empty()) return Json::object();
  Json j = Json::parse(req.body, nullptr, false);
  if (j.is_discarded()) return Status::InvalidArgument("the request body is not valid JSON");
  return j;
}

void Server::Operation(const httplib::Request& req, httplib::Response& res, const std::string& op,
                       const std::function<Result<Json>(const httplib::Request&)>& args) {
  Handle(req, res, "http", [&](const OperationContext& ctx) -> Result<Json> {
    ENGRAM_ASSIGN_OR_RETURN(Json a, args(req));
    return pool_.With([&](Brain& brain) { return ops::Call(brain, ctx, op, a); });
  });
}

// Streamable HTTP (MCP 2025-06-18): one JSON-RPC message per POST; the
// session id comes with the initialize response and goes with every later
// request; notifications get 202; GET (a server stream) is not offered.
void Server::Mcp(const httplib::Request& req, httplib::Response& res) {
  const std::string origin = req.get_header_value("Origin");
  if (!origin.empty() && origin.rfind("http://localhost", 0) != 0 && origin.rfind("http://127.0.0.1", 0) != 0 &&
      origin.rfind("http://[::1]", 0) != 0) {
    return SendError(res, Status::PermissionDenied("origin " + origin + " is not allowed"));
  }
  const std::string version = req.get_header_value("MCP-Protocol-Version");
  if (!version.empty() && !McpVersionSupported(version)) {
    return SendError(res, Status::InvalidArgument("unsupported MCP-Protocol-Version " + version));
  }
  std::optional<OperationContext> ctx = Admit(req, res, "mcp-http");
  if (!ctx) return;
  Json message = Json::parse(req.body, nullptr, false);
  if (message.is_discarded() || message.is_array()) {
    std::optional<Json> error = McpSession([](const auto&) -> Result<Json> { return Json(); }, *ctx).HandleText(req.body);
    return SendJson(res, 400, *error);
  }
  const bool initialize = message.is_object() && message.value("method", Json()) == "initialize";
  std::shared_ptr<McpEntry> entry;
  const std::string sid = req.get_header_value("Mcp-Session-Id");
  if (initialize) {
    entry = std::make_shared<McpEntry>();
    entry->session = std::make_unique<McpSession>(
        [this](const std::function<Result<Json>(Brain&)>& fn) { return pool_.With(fn); }, *ctx);
    entry->owner = ctx->caller;
  } else {
    if (sid.empty()) return SendError(res, Status::InvalidArgument("missing Mcp-Session-Id header (initialize first)"));
    std::lock_guard<std::mutex> lock(sessions_mu_);
    auto it = sessions_.find(sid);
    if (it == sessions_.end() || it->second->owner != ctx->caller) {
      return SendError(res, Status::NotFound("no MCP session " + sid + " (expired or never opened): initialize again"));
    }
    entry = it->second;
  }
  std::optional<Json> response;
  {
    std::lock_guard<std::mutex> lock(entry->mu);
    entry->used = Clock::now();
    response = entry->session->Handle(message);
  }
  if (initialize && response && response->contains("result")) {
    auto id = common::RandomHex(16);
    if (!id.ok()) return SendError(res, id.status());
    std::lock_guard<std::mutex> lock(sessions_mu_);
    if (sessions_.size() >= 1000) {  // drop the longest idle
      auto oldest = sessions_.begin();
      for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
        if (it->second->used < oldest->second->used) oldest = it;
      }
      sessions_.erase(oldest);
    }
    sessions_[*id] = entry;
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
  http_.Get("/healthz", [](const httplib::Request&, httplib::Response& res) { SendJson(res, 200, {{"status", "ok"}}); });
  http_.Get("/v1/openapi.json", [](const httplib::Request&, httplib::Response& res) { SendJson(res, 200, OpenApi()); });
  http_.Post("/v1/search", [this](const httplib::Request& req, httplib::Response& res) { Operation(req, res, "search", BodyJson); });
  http_.Post("/v1/context", [this](const httplib::Request& req, httplib::Response& res) { Operation(req, res, "context", BodyJson); });
  http_.Get("/v1/status", [this](const httplib::Request& req, httplib::Response& res) { Operation(req, res, "status", BodyJson); });
  http_.Get("/v1/pages", [this](const httplib::Request& req, httplib::Response& res) {
    Operation(req, res, "list_pages", [](const httplib::Request& r) -> Result<Json> {
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
    });
  });
  http_.Get(R"(/v1/pages/(.+))", [this, slug_of](const httplib::Request& req, httplib::Response& res) {
    Operation(req, res, "get_page", [&](const httplib::Request& r) -> Result<Json> { return Json{{"slug", slug_of(r)}}; });
  });
  http_.Put(R"(/v1/pages/(.+))", [this, slug_of](const httplib::Request& req, httplib::Response& res) {
    Operation(req, res, "put_page", [&](const httplib::Request& r) -> Result<Json> {
      ENGRAM_ASSIGN_OR_RETURN(Json body, BodyJson(r));
      if (!body.is_object()) return Status::InvalidArgument("the body must be {\"content\": \"...\"}");
      body["slug"] = slug_of(r);
      return body;
    });
  });
  http_.Delete(R"(/v1/pages/(.+))", [this, slug_of](const httplib::Request& req, httplib::Response& res) {
    Operation(req, res, "delete_page", [&](const httplib::Request& r) -> Result<Json> { return Json{{"slug", slug_of(r)}}; });
  });
  // GET reads, POST adds: /v1/backlinks|timeline|tags/{slug}.
  const std::vector<std::tuple<std::string, std::string, std::string>> page_parts = {
      {"backlinks", "get_backlinks", ""}, {"timeline", "get_timeline", "add_timeline_entry"}, {"tags", "get_tags", "add_tag"}};
  for (const auto& [part, get_op, post_op] : page_parts) {
    const std::string pattern = "/v1/" + part + "/(.+)";
    http_.Get(pattern, [this, slug_of, op = get_op](const httplib::Request& req, httplib::Response& res) {
      Operation(req, res, op, [&](const httplib::Request& r) -> Result<Json> { return Json{{"slug", slug_of(r)}}; });
    });
    if (post_op.empty()) continue;
    http_.Post(pattern, [this, slug_of, op = post_op](const httplib::Request& req, httplib::Response& res) {
      Operation(req, res, op, [&](const httplib::Request& r) -> Result<Json> {
        ENGRAM_ASSIGN_OR_RETURN(Json body, BodyJson(r));
        if (!body.is_object()) return Status::InvalidArgument("the body must be a JSON object");
        body["slug"] = slug_of(r);
        return body;
      });
    });
  }
  http_.Post("/v1/links", [this](const httplib::Request& req, httplib::Response& res) { Operation(req, res, "add_link", BodyJson); });
  http_.Post(R"(/v1/call/([a-z_]+))", [this, slug_of](const httplib::Request& req, httplib::Response& res) {
    Operation(req, res, slug_of(req), BodyJson);
  });
  http_.Post("/mcp", [this](const httplib::Request& req, httplib::Response& res) { Mcp(req, res); });
  http_.Get("/mcp", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Allow", "POST, DELETE");
    SendJson(res, 405, ops::ErrorJson(Status::InvalidArgument("this server does not offer a server-to-client stream")));
  });
  http_.Delete("/mcp", [this](const httplib::Request& req, httplib::Response& res) {
    std::optional<OperationContext> ctx = Admit(req, res, "mcp-http");
    if (!ctx) return;
    std::lock_guard<std::mutex> lock(sessions_mu_);
    auto it = sessions_.find(req.get_header_value("Mcp-Session-Id"));
    if (it == sessions_.end() || it->second->owner != ctx->caller) return SendError(res, Status::NotFound("no such MCP session"));
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
  const size_t threads = static_cast<size_t>(std::max(1, options_.threads));
  http_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http_.set_payload_max_length(options_.max_body_bytes);
  const auto timeout = std::chrono::milliseconds(options_.timeout_ms);
  http_.set_read_timeout(timeout);
  http_.set_write_timeout(timeout);
  http_.set_keep_alive_timeout(5);
  http_.set_keep_alive_max_count(1000);  // requests per connection before it is closed
  http_.set_tcp_nodelay(true);  // headers and body go out in two writes: without it, delayed ACKs add 40 ms
  http_.set_pre_routing_handler([](const httplib::Request&, httplib::Response&) {
    t_start = Clock::now();
    t_caller.clear();
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http_.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;  // a handler's own JSON error
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
