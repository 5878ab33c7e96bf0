// Sensitive-content quarantine: files that must never reach an index, a log
// or a response. One hit keeps the whole file out; the caller records an
// audit row (path, rule, line, time), never the content.
//
// Rules: path components (a folder named "secrets" anywhere in the path),
// file-name keywords (English and Chinese, case-insensitive; a name about the
// topic — "密码学", "password-policy" — is not a hit), and content signatures:
// PEM/PuTTY private keys, sk-… / sk-or-… / sk_live_… / AIza… API keys, AWS
// AKIA/ASIA key ids, GitHub and Slack tokens, JWTs, password/secret/token
// assignments (=, :, =>, 是, 为, table cells, "is"; the value must look like a
// secret), URLs with embedded credentials, Chinese resident ID numbers
// (province, birth date and check digit verified), Chinese mobile numbers,
// card numbers (issuer prefix and Luhn, plus a printed grouping or a card word
// nearby).
//
// The rules see what the index sees: NFKC, full-width → ASCII, Traditional →
// Simplified, zero-width characters and soft hyphens removed. They also read
// context: digits inside URLs, link targets, embeds and file names are ids
// and timestamps, and "token=" on an image URL is a CDN signature. The content
// signatures run on the file's path too (a phone number in a file name is the
// page's title). A canvas (.canvas) is read twice: as its JSON, and as the
// text and file paths of its cards (text/canvas.h), which the JSON escapes.
// Measured on tests/fixtures/sensitive: see docs/PERFORMANCE.md.
//
// Thread safety: FindSensitive may be called from any number of threads.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engram::sync {

struct SensitiveRules {
  std::vector<std::string> path_components;  // whole folder names
  std::vector<std::string> name_keywords;    // substrings of the file name
  std::vector<std::string> disabled;         // rule ids switched off
  std::vector<std::string> allow;            // source-relative paths never quarantined

  static SensitiveRules Defaults();
};

// The rule ids of the content signatures, for docs and config validation.
const std::vector<std::string>& ContentRuleIds();

// Why a file is kept out: the rule and where — never the content.
struct SensitiveHit {
  std::string rule;  // "path:secrets", "name:password", "pem_private_key", …
  int line = 0;      // 1-based line of the content where the hit begins; 0 when the path or name hit
};

// The first rule the file hits, or nothing. Never throws: a scan that fails
// (a bug) keeps the file out under the rule "scan_failed".
std::optional<SensitiveHit> FindSensitive(std::string_view path, std::string_view content, const SensitiveRules& rules);

}  // namespace engram::sync
