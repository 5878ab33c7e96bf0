#include "net/http_errors.h"

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/json_limits.h"
#include "common/utf8.h"

namespace engram::net {

namespace {

using Json = nlohmann::json;

// Error bodies are short; a large one is shown as text, never parsed.
constexpr size_t kMaxErrorJsonBytes = 64 * 1024;

std::string ExplanationIn(std::string_view body) {
  if (!common::CheckJsonLimits(body, "", common::kMaxJsonDepth, kMaxErrorJsonBytes).ok()) return std::string(body);
  const Json j = Json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::string(body);
  auto string_at = [](const Json& o, const char* key) -> const std::string* {
    auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
  };
  if (auto e = j.find("error"); e != j.end()) {
    if (e->is_object()) {
      if (const std::string* m = string_at(*e, "message")) return *m;
    } else if (e->is_string()) {
      return e->get<std::string>();
    }
  }
  if (const std::string* m = string_at(j, "message")) return *m;
  if (const std::string* m = string_at(j, "detail")) return *m;
  if (auto d = j.find("detail"); d != j.end() && d->is_array() && !d->empty() && (*d)[0].is_object()) {
    if (const std::string* m = string_at((*d)[0], "msg")) return *m;
  }
  return std::string(body);
}

void Redact(std::string* text, std::string_view secret) {
  if (secret.empty()) return;
  constexpr std::string_view kMark = "[redacted]";
  for (size_t at = text->find(secret); at != std::string::npos; at = text->find(secret, at + kMark.size())) {
    text->replace(at, secret.size(), kMark);
  }
}

}  // namespace

bool IsRetryableHttpStatus(int status) { return status == 408 || status == 429 || (status >= 500 && status <= 599); }

StatusCode CodeForHttpStatus(int status) {
  if (status == 401 || status == 403 || status == 404) return StatusCode::kFailedPrecondition;
  if (status >= 400 && status <= 499 && status != 408 && status != 429) return StatusCode::kInvalidArgument;
  return StatusCode::kUnavailable;
}

std::string ServerMessage(std::string_view body, std::string_view secret, size_t max_bytes) {
  std::string raw = ExplanationIn(body);
  if (raw.size() > kMaxErrorJsonBytes) raw.resize(kMaxErrorJsonBytes);
  Redact(&raw, secret);
  std::string clean;
  for (size_t i = 0; i < raw.size();) {
    char32_t c = common::DecodeUtf8(raw, &i);
    if (c < 0x20 || c == 0x7f) c = ' ';
    if (c == ' ' && (clean.empty() || clean.back() == ' ')) continue;  // trims and collapses runs
    common::AppendUtf8(c, &clean);
  }
  while (!clean.empty() && clean.back() == ' ') clean.pop_back();
  // Cleaning turns control characters into spaces; a key written across one must still go.
  Redact(&clean, secret);
  if (clean.size() > max_bytes) {
    size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(clean[cut]) & 0xC0) == 0x80) --cut;
    clean.resize(cut);
    clean += "…";
  }
  return clean;
}

double ParseRetryAfter(std::string_view value, std::time_t now) {
  const std::string v(value);
  const size_t first = v.find_first_not_of(" \t");
  if (first == std::string::npos) return -1;
  if (v[first] >= '0' && v[first] <= '9') {
    char* end = nullptr;
    const double seconds = std::strtod(v.c_str() + first, &end);
    while (*end == ' ' || *end == '\t') ++end;
    if (*end != '\0' || !std::isfinite(seconds) || seconds < 0) return -1;
    return seconds;
  }
  std::tm tm{};
  const char* end = strptime(v.c_str() + first, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr) return -1;
  while (*end == ' ' || *end == '\t') ++end;
  if (*end != '\0') return -1;
  const std::time_t at = timegm(&tm);
  if (at == static_cast<std::time_t>(-1)) return -1;
  return at > now ? static_cast<double>(at - now) : 0.0;
}

}  // namespace engram::net
