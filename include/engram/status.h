// Status and Result<T>: errors as values, with transport-neutral codes.
//
// Every operation that can fail because of input, disk, network or another
// process returns one of these. One table (ExitCodeFor, HttpStatusFor and
// JsonRpcCodeFor) turns a code into what a transport shows.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace engram {

enum class StatusCode {
  kOk = 0,
  kNotFound,
  kInvalidArgument,
  kAlreadyExists,
  kFailedPrecondition,
  kCorruption,
  kIOError,
  kUnavailable,
  kCancelled,
  kInternal,
  kPermissionDenied,     // refused by the trust boundary or a token's scope
  kUnauthenticated,      // no valid credentials
  kResourceExhausted,    // a rate or size limit
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status FailedPrecondition(std::string m) {
    return {StatusCode::kFailedPrecondition, std::move(m)};
  }
  static Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status IOError(std::string m) { return {StatusCode::kIOError, std::move(m)}; }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
  static Status PermissionDenied(std::string m) { return {StatusCode::kPermissionDenied, std::move(m)}; }
  static Status Unauthenticated(std::string m) { return {StatusCode::kUnauthenticated, std::move(m)}; }
  static Status ResourceExhausted(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "NotFound: page people/zhang-san"
  std::string ToString() const;

  // Prefixes context as the error travels up: "syncing a.md: " + message.
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or a Status. Accessing value() of an error is a programmer error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

// Process exit code for a status: 0 ok, 2 usage (invalid argument), 1 otherwise.
int ExitCodeFor(const Status& status);
// 400 invalid argument, 401, 403, 404, 409 (exists, precondition), 429, 503, else 500.
int HttpStatusFor(const Status& status);
// JSON-RPC error code of a failed request: -32602 (invalid params) for an
// invalid argument or unknown name, else -32603 (internal error).
int JsonRpcCodeFor(const Status& status);

}  // namespace engram

#define ENGRAM_CONCAT_INNER(a, b) a##b
#define ENGRAM_CONCAT(a, b) ENGRAM_CONCAT_INNER(a, b)

#define ENGRAM_RETURN_IF_ERROR(expr)            \
  do {                                          \
    ::engram::Status _engram_st = (expr);       \
    if (!_engram_st.ok()) return _engram_st;    \
  } while (0)

#define ENGRAM_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()

#define ENGRAM_ASSIGN_OR_RETURN(lhs, expr) \
  ENGRAM_ASSIGN_OR_RETURN_IMPL(ENGRAM_CONCAT(_engram_r_, __LINE__), lhs, expr)
