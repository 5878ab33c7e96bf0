// Sensitive-content quarantine: files that must never reach an index, a log
// or a response. One hit keeps the whole file out; the caller records an
// audit row (path, rule, time), never the content.
//
// Rules: path components (a folder named "secrets" anywhere in the path),
// file-name keywords (English and Chinese, case-insensitive), and content
// signatures: PEM private keys, sk-… / sk-or-… API keys, AWS AKIA keys,
// GitHub and Slack tokens, JWTs, password/secret/token assignments, URLs
// with embedded credentials, Chinese resident ID numbers (check digit
// verified), Chinese mobile numbers, card numbers (Luhn-checked).
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

// The id of the first rule the file hits ("path:secrets", "name:password",
// "pem_private_key", …), or nothing.
std::optional<std::string> FindSensitive(std::string_view path, std::string_view content, const SensitiveRules& rules);

}  // namespace engram::sync
