#include "net/openai_client.h"

#include <httplib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <thread>

#include "net/http_errors.h"

namespace engram::net {

namespace {

using Json = nlohmann::json;
using Ms = std::chrono::milliseconds;

// Retry-After beyond this is treated as this: a server asking for an hour
// is better answered by the caller's own retry than by a silent hang.
constexpr double kMaxRetryAfterSeconds = 300;

// Appends every part in turn. (GCC 12 warns, falsely, on "literal" + a
// temporary std::string: PR 105651.)
template <typename... Parts>
std::string Cat(const Parts&... parts) {
  std::string out;
  (out.append(std::string_view(parts)), ...);
  return out;
}

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string Plural(int n, const char* word) {
  std::string s = std::to_string(n);
  s += ' ';
  s += word;
  if (n != 1) s += 's';
  return s;
}

// Transport failures that another attempt may cure. A certificate the
// client cannot verify, or an answer it cannot decompress, will not change.
bool IsRetryableTransport(httplib::Error e) {
  switch (e) {
    case httplib::Error::Unknown:
    case httplib::Error::Connection:
    case httplib::Error::Read:
    case httplib::Error::Write:
    case httplib::Error::SSLConnection:
    case httplib::Error::ConnectionTimeout:
      return true;
    default:
      return false;
  }
}

}  // namespace

struct OpenAiClient::Attempt {
  enum class Kind { kAnswer, kTransport, kTooLarge, kLate };
  Kind kind = Kind::kTransport;
  int status = 0;             // kAnswer: the HTTP status
  std::string body;           // kAnswer: the body (at most max_response_bytes)
  double retry_after = -1;    // kAnswer: seconds from Retry-After, or -1
  std::string what;           // kTransport: what went wrong, for the message
  bool retryable = false;     // kTransport
};

OpenAiClient::OpenAiClient(ClientOptions options, BaseUrl base, std::string key)
    : options_(std::move(options)), base_(std::move(base)), key_(std::move(key)), rng_(std::random_device{}()) {}

OpenAiClient::~OpenAiClient() = default;

Result<std::unique_ptr<OpenAiClient>> OpenAiClient::Open(ClientOptions o) {
  const std::string& s = o.section;
  auto setting = [&](const char* name) {
    std::string out = s;
    if (!out.empty()) out += ' ';
    out += name;
    return out;
  };
  ENGRAM_ASSIGN_OR_RETURN(BaseUrl base, ParseBaseUrl(o.base_url, setting("base_url")));
  if (o.timeout_ms < 1) return Status::InvalidArgument(Cat(setting("timeout_ms"), " must be at least 1"));
  if (o.budget_ms < 0) return Status::InvalidArgument("the time budget must not be negative");
  if (o.max_retries < 0) return Status::InvalidArgument(Cat(setting("max_retries"), " must not be negative"));
  if (o.backoff_ms < 0 || o.max_backoff_ms < 0) return Status::InvalidArgument("backoff delays must not be negative");
  if (!(o.requests_per_minute >= 0) || !std::isfinite(o.requests_per_minute)) {
    return Status::InvalidArgument(Cat(setting("requests_per_minute"), " must be a number, 0 or more"));
  }
  if (o.max_response_bytes < 1 || o.max_json_depth < 1) {
    return Status::InvalidArgument("the answer limits must be at least 1");
  }
  std::string key;
  if (!o.api_key_env.empty()) {
    const char* v = std::getenv(o.api_key_env.c_str());
    if ((v == nullptr || *v == '\0') && o.api_key_required) {
      return Status::FailedPrecondition(
          Cat("environment variable ", o.api_key_env, " (named by ", setting("api_key_env"), ") is not set"));
    }
    if (v != nullptr) key = v;
    for (char c : key) {
      // A line break would end the Authorization header and start another.
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        return Status::InvalidArgument(
            Cat("environment variable ", o.api_key_env, " (the API key) holds control characters"));
      }
    }
  }
  return std::unique_ptr<OpenAiClient>(new OpenAiClient(std::move(o), std::move(base), std::move(key)));
}

std::string OpenAiClient::Describe(std::string_view endpoint) const {
  std::string out = options_.service;
  out += ' ';
  out += base_.Url(endpoint);
  return out;
}

Status OpenAiClient::BadAnswer(std::string_view endpoint, std::string_view what) const {
  std::string m = Describe(endpoint);
  m += " answered badly: ";
  m += what;
  return Status::Unavailable(std::move(m));
}

std::string OpenAiClient::Hint(int http_status) const {
  const std::string section = options_.section.empty() ? std::string() : Cat(options_.section, " ");
  if (http_status == 404) return Cat(" (check ", section, "base_url and the model's name)");
  if (http_status != 401 && http_status != 403) return "";
  if (options_.api_key_env.empty()) {
    return Cat(" (no API key was sent: name its environment variable in ", section, "api_key_env)");
  }
  return Cat(" (the API key comes from environment variable ", options_.api_key_env,
             key_.empty() ? ", which is not set)" : ")");
}

double OpenAiClient::Jitter() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::uniform_real_distribution<double>(0.5, 1.0)(rng_);
}

void OpenAiClient::Sleep(Clock::duration d) const {
  if (d <= Clock::duration::zero()) return;
  if (options_.sleep) {
    options_.sleep(std::chrono::ceil<Ms>(d));
  } else {
    std::this_thread::sleep_for(d);
  }
}

bool OpenAiClient::ReserveSlot(Clock::time_point deadline, Clock::duration* wait) {
  *wait = Clock::duration::zero();
  if (options_.requests_per_minute <= 0) return true;
  const auto gap = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(60.0 / options_.requests_per_minute));
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = Clock::now();
  const auto start = std::max(now, next_slot_);
  if (start >= deadline) return false;
  *wait = start - now;
  next_slot_ = start + gap;
  return true;
}

OpenAiClient::Attempt OpenAiClient::Send(const std::string& path, const std::string& payload, Ms timeout,
                                         Clock::time_point deadline) const {
  Attempt a;
  httplib::Client client(base_.origin);
  client.set_connection_timeout(timeout);
  client.set_read_timeout(timeout);
  client.set_write_timeout(timeout);

  httplib::Request req;
  req.method = "POST";
  req.path = path;
  req.headers.emplace("Content-Type", "application/json");
  req.headers.emplace("Accept", "application/json");
  if (!key_.empty()) req.headers.emplace("Authorization", "Bearer " + key_);
  req.body = payload;

  // The answer is read through these so that an oversize or late one is
  // dropped while it arrives, not after it has filled memory.
  const size_t cap = options_.max_response_bytes;
  bool too_large = false, late = false;
  req.response_handler = [&](const httplib::Response& r) {
    if (r.has_header("Content-Length")) {
      const std::string n = r.get_header_value("Content-Length");
      if (std::strtoull(n.c_str(), nullptr, 10) > cap) {
        too_large = true;
        return false;
      }
    }
    return true;
  };
  req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
    if (a.body.size() + n > cap) {
      too_large = true;
      return false;
    }
    a.body.append(data, n);
    if (Clock::now() > deadline) {
      late = true;
      return false;
    }
    return true;
  };

  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  const auto started = Clock::now();
  const bool sent = client.send(req, res, error);
  if (too_large) {
    a.kind = Attempt::Kind::kTooLarge;
  } else if (late) {
    a.kind = Attempt::Kind::kLate;
  } else if (!sent) {
    a.kind = Attempt::Kind::kTransport;
    a.retryable = IsRetryableTransport(error);
    // httplib reports a read time-out as a failed read; the time spent tells them apart.
    const bool timed_out = error == httplib::Error::ConnectionTimeout ||
                           ((error == httplib::Error::Read || error == httplib::Error::Write) &&
                            (Clock::now() - started) * 10 >= timeout * 9);
    if (error == httplib::Error::ConnectionTimeout) {
      a.what = Cat("could not connect within ", std::to_string(timeout.count()), " ms (time-out)");
    } else if (timed_out) {
      a.what = Cat("no answer within ", std::to_string(timeout.count()), " ms (time-out)");
    } else {
      a.what = Cat("request failed: ", httplib::to_string(error));
    }
  } else {
    a.kind = Attempt::Kind::kAnswer;
    a.status = res.status;
    if (res.has_header("Retry-After")) {
      a.retry_after = ParseRetryAfter(res.get_header_value("Retry-After"), std::time(nullptr));
    }
  }
  return a;
}

Result<nlohmann::json> OpenAiClient::Decode(std::string_view endpoint, const std::string& body) const {
  // A hostile server's answer is outside input: bounded before it is parsed.
  if (Status limits = common::CheckJsonLimits(body, "the answer", options_.max_json_depth, options_.max_response_bytes);
      !limits.ok()) {
    return BadAnswer(endpoint, limits.message());
  }
  Json j = Json::parse(body, nullptr, false);
  if (j.is_discarded()) return BadAnswer(endpoint, "the answer is not JSON");
  return j;
}

Result<nlohmann::json> OpenAiClient::PostJson(std::string_view endpoint, const nlohmann::json& body) {
  const std::string where = Describe(endpoint);
  const std::string path = base_.Path(endpoint);
  const bool bounded = options_.budget_ms > 0;
  const auto deadline = bounded ? Clock::now() + Ms(options_.budget_ms) : Clock::time_point::max();
  const std::string budget = bounded ? Cat("the ", std::to_string(options_.budget_ms), " ms budget") : std::string();

  std::string payload;
  try {
    payload = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  } catch (const Json::exception& e) {
    return Status::InvalidArgument(Cat(where, ": the request could not be encoded: ", e.what()));
  }

  std::string last;  // the last retryable failure, for the final message
  // "<where>: <last failure> (gave up after N attempts[: why])", or "<where>: why" before any attempt.
  auto give_up = [&](int attempts, const std::string& why) {
    std::string m = where;
    m += ": ";
    if (attempts == 0) {
      m += why;
    } else {
      m += last;
      m += " (gave up after ";
      m += Plural(attempts, "attempt");
      if (!why.empty()) m += ": ";
      m += why;
      m += ')';
    }
    return Status::Unavailable(std::move(m));
  };

  for (int attempt = 0;; ++attempt) {
    Clock::duration wait{};
    if (!ReserveSlot(deadline, &wait)) {
      return give_up(attempt, Cat("the client-side limit of ", Number(options_.requests_per_minute),
                                  " requests per minute leaves no room in ", budget));
    }
    Sleep(wait);
    Ms timeout(options_.timeout_ms);
    if (bounded) {
      const auto left = std::chrono::duration_cast<Ms>(deadline - Clock::now());
      if (left <= Ms(0)) return give_up(attempt, Cat(budget, " ran out"));
      timeout = std::min(timeout, left);
    }

    Attempt a = Send(path, payload, timeout, deadline);
    switch (a.kind) {
      case Attempt::Kind::kTooLarge:
        return BadAnswer(endpoint, Cat("the answer is larger than ", std::to_string(options_.max_response_bytes), " bytes"));
      case Attempt::Kind::kLate:
        return Status::Unavailable(Cat(where, ": the answer was still arriving when ", budget, " ran out"));
      case Attempt::Kind::kTransport:
        if (!a.retryable) return Status::Unavailable(Cat(where, ": ", a.what));
        last = a.what;
        break;
      case Attempt::Kind::kAnswer: {
        if (a.status >= 200 && a.status <= 299) return Decode(endpoint, a.body);
        std::string m = Cat("HTTP ", std::to_string(a.status));
        if (std::string said = ServerMessage(a.body, key_); !said.empty()) {
          m += ": ";
          m += said;
        }
        if (!IsRetryableHttpStatus(a.status)) {
          return Status(CodeForHttpStatus(a.status), Cat(where, ": ", m, Hint(a.status)));
        }
        last = std::move(m);
        break;
      }
    }

    if (attempt >= options_.max_retries) return give_up(attempt + 1, "");
    double delay_s = std::min<double>(options_.max_backoff_ms, options_.backoff_ms * std::pow(2.0, attempt)) / 1000.0;
    delay_s *= Jitter();
    const double retry_after = std::min(a.retry_after, kMaxRetryAfterSeconds);
    if (retry_after > delay_s) delay_s = retry_after;
    const auto delay = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(delay_s));
    if (bounded && Clock::now() + delay >= deadline) {
      const std::string why =
          retry_after >= 0 && retry_after >= delay_s
              ? Cat("the server asked to wait ", std::to_string(static_cast<long long>(std::ceil(retry_after))),
                    " s (Retry-After), past ", budget)
              : Cat("no time for another attempt within ", budget);
      return give_up(attempt + 1, why);
    }
    Sleep(delay);
  }
}

}  // namespace engram::net
