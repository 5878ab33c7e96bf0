// The one mapping from what an HTTP server answered to engram's Status
// codes, and the pieces of an answer that reach a message or a wait: the
// server's own explanation and Retry-After. Everything here reads outside
// input (a server's bytes) and never throws.
#pragma once

#include <ctime>
#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram::net {

// True for the statuses worth another attempt: 408, 429 and every 5xx.
bool IsRetryableHttpStatus(int status);

// The code of a final non-2xx answer (one not retried, or retried until
// the client gave up):
//   401, 403, 404 → FailedPrecondition: engram's configuration is wrong
//                   (the key, base_url or the model's name);
//   other 4xx     → InvalidArgument: the server refused this request;
//   408, 429, 5xx and anything else → Unavailable.
// Never Unauthenticated, PermissionDenied or ResourceExhausted: those
// describe engram's own caller, and the HTTP server would pass them on as
// 401/403/429 to a caller who did nothing wrong.
StatusCode CodeForHttpStatus(int status);

// The server's explanation in an error body, fit for a message: in a JSON
// object, error.message, error (a string), message, detail (a string) or
// detail[0].msg; otherwise the body itself. Every occurrence of `secret`
// (the API key; ignored when empty) is replaced by "[redacted]" before
// anything is cut; control characters become spaces, invalid UTF-8 becomes
// U+FFFD, and the result is trimmed and cut at a character boundary to at
// most max_bytes (+ "…"). Bodies over 64 KiB or nesting too deeply are not
// parsed as JSON.
std::string ServerMessage(std::string_view body, std::string_view secret, size_t max_bytes = 300);

// The seconds a Retry-After header value asks for: delta-seconds, or an
// HTTP date (IMF-fixdate) measured from `now` (a past date gives 0).
// -1 when the value is neither.
double ParseRetryAfter(std::string_view value, std::time_t now);

}  // namespace engram::net
