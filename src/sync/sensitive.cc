#include "sync/sensitive.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "common/utf8.h"

namespace engram::sync {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool IsTokenChar(char c) { return IsAlnum(c) || c == '_' || c == '-'; }
bool IsBase64Url(char c) { return IsAlnum(c) || c == '_' || c == '-'; }

size_t RunLength(std::string_view s, size_t from, bool (*pred)(char)) {
  size_t n = 0;
  while (from + n < s.size() && pred(s[from + n])) ++n;
  return n;
}

// Each scanner looks at the whole text and says whether its signature occurs.
bool PemPrivateKey(std::string_view t) {
  for (size_t at = t.find("-----BEGIN "); at != std::string_view::npos; at = t.find("-----BEGIN ", at + 1)) {
    size_t end = t.find("-----", at + 11);
    if (end != std::string_view::npos && end - at < 80 &&
        t.substr(at, end - at).find("PRIVATE KEY") != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

// A prefix followed by at least min token characters, not inside a longer word.
bool PrefixedToken(std::string_view t, std::string_view prefix, size_t min, bool (*pred)(char)) {
  for (size_t at = t.find(prefix); at != std::string_view::npos; at = t.find(prefix, at + 1)) {
    if (at > 0 && IsTokenChar(t[at - 1])) continue;
    if (RunLength(t, at + prefix.size(), pred) >= min) return true;
  }
  return false;
}

bool ApiKey(std::string_view t) { return PrefixedToken(t, "sk-", 20, IsTokenChar); }

bool AwsKey(std::string_view t) {
  for (size_t at = t.find("AKIA"); at != std::string_view::npos; at = t.find("AKIA", at + 1)) {
    if (at > 0 && IsAlnum(t[at - 1])) continue;
    size_t n = 0;
    while (at + 4 + n < t.size() && (std::isupper(static_cast<unsigned char>(t[at + 4 + n])) || IsDigit(t[at + 4 + n]))) ++n;
    if (n == 16 && (at + 20 >= t.size() || !IsAlnum(t[at + 20]))) return true;
  }
  return false;
}

bool GithubToken(std::string_view t) {
  for (std::string_view p : {"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}) {
    if (PrefixedToken(t, p, 36, IsAlnum)) return true;
  }
  return PrefixedToken(t, "github_pat_", 22, IsTokenChar);
}

bool SlackToken(std::string_view t) {
  for (std::string_view p : {"xoxb-", "xoxa-", "xoxp-", "xoxr-", "xoxs-"}) {
    if (PrefixedToken(t, p, 10, IsTokenChar)) return true;
  }
  return false;
}

bool Jwt(std::string_view t) {
  for (size_t at = t.find("eyJ"); at != std::string_view::npos; at = t.find("eyJ", at + 1)) {
    if (at > 0 && IsBase64Url(t[at - 1])) continue;
    size_t a = RunLength(t, at, IsBase64Url);
    if (a < 10 || at + a >= t.size() || t[at + a] != '.') continue;
    size_t b_at = at + a + 1;
    if (t.substr(b_at, 3) != "eyJ") continue;
    size_t b = RunLength(t, b_at, IsBase64Url);
    if (b < 10 || b_at + b >= t.size() || t[b_at + b] != '.') continue;
    if (RunLength(t, b_at + b + 1, IsBase64Url) >= 10) return true;
  }
  return false;
}

// "password = hunter22", "api_key: 'abc…'", "密码：abc123…" (a value of six or more characters).
bool SecretAssignment(std::string_view text) {
  static constexpr std::array<std::string_view, 10> kKeys = {"password", "passwd", "pwd",     "secret", "token",
                                                             "api_key",  "apikey", "密码", "口令",   "密钥"};
  std::string t = common::AsciiLower(text);
  for (std::string_view key : kKeys) {
    for (size_t at = t.find(key); at != std::string::npos; at = t.find(key, at + 1)) {
      bool ascii_key = static_cast<unsigned char>(key[0]) < 0x80;
      if (ascii_key && at > 0 && IsAlnum(t[at - 1])) continue;
      size_t i = at + key.size();
      if (ascii_key) {
        while (i < t.size() && (IsAlnum(t[i]) || t[i] == '_')) ++i;  // password_hash, tokens
      }
      while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '"' || t[i] == '\'')) ++i;
      if (i < t.size() && (t[i] == '=' || t[i] == ':')) {
        ++i;
      } else if (t.compare(i, 3, "：") == 0) {
        i += 3;
      } else {
        continue;
      }
      while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '"' || t[i] == '\'' || t[i] == '`')) ++i;
      size_t n = 0;
      while (i + n < t.size() && !std::isspace(static_cast<unsigned char>(t[i + n])) && t[i + n] != '"' &&
             t[i + n] != '\'' && t[i + n] != '`') {
        ++n;
      }
      if (n >= 6) return true;
    }
  }
  return false;
}

bool UrlCredentials(std::string_view t) {
  for (size_t at = t.find("://"); at != std::string_view::npos; at = t.find("://", at + 1)) {
    size_t i = at + 3;
    size_t end = i;
    while (end < t.size() && !std::isspace(static_cast<unsigned char>(t[end])) && t[end] != '/' && t[end] != ')' &&
           t[end] != ']' && t[end] != '>') {
      ++end;
    }
    std::string_view authority = t.substr(i, end - i);
    size_t atsign = authority.rfind('@');
    if (atsign == std::string_view::npos) continue;
    size_t colon = authority.find(':');
    if (colon != std::string_view::npos && colon > 0 && colon + 1 < atsign) return true;
  }
  return false;
}

// Digit runs with their boundaries: [start, end) of maximal digit sequences.
template <typename Fn>
bool AnyDigitRun(std::string_view t, Fn&& fn) {
  size_t i = 0;
  while (i < t.size()) {
    if (!IsDigit(t[i])) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < t.size() && IsDigit(t[i])) ++i;
    if (fn(start, i)) return true;
  }
  return false;
}

bool ChineseResidentId(std::string_view t) {
  static constexpr std::array<int, 17> kWeights = {7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2};
  static constexpr std::string_view kCheck = "10X98765432";
  return AnyDigitRun(t, [&](size_t start, size_t end) {
    size_t len = end - start;
    bool x_suffix = len == 17 && end < t.size() && (t[end] == 'X' || t[end] == 'x') &&
                    (end + 1 >= t.size() || !IsAlnum(t[end + 1]));
    if (len != 18 && !x_suffix) return false;
    if (start > 0 && IsAlnum(t[start - 1])) return false;
    if (len == 18 && end < t.size() && IsAlnum(t[end])) return false;
    int sum = 0;
    for (size_t k = 0; k < 17; ++k) sum += (t[start + k] - '0') * kWeights[k];
    char want = kCheck[static_cast<size_t>(sum % 11)];
    char got = x_suffix ? 'X' : t[start + 17];
    if (got != want) return false;
    int year = std::stoi(std::string(t.substr(start + 6, 4)));
    int month = std::stoi(std::string(t.substr(start + 10, 2)));
    int day = std::stoi(std::string(t.substr(start + 12, 2)));
    return year >= 1900 && year <= 2100 && month >= 1 && month <= 12 && day >= 1 && day <= 31;
  });
}

bool ChineseMobile(std::string_view t) {
  return AnyDigitRun(t, [&](size_t start, size_t end) {
    if (end - start != 11 || t[start] != '1' || t[start + 1] < '3') return false;
    // Not part of a longer token or a decimal number ("v1.13812345678", "13812345678.5");
    // a sentence-ending period is fine.
    if (start > 0 && (IsAlnum(t[start - 1]) || t[start - 1] == '-')) return false;
    if (start > 1 && t[start - 1] == '.' && IsDigit(t[start - 2])) return false;
    if (end < t.size() && IsAlnum(t[end])) return false;
    if (end + 1 < t.size() && t[end] == '.' && IsDigit(t[end + 1])) return false;
    return true;
  });
}

// 13 to 19 digits, possibly in groups separated by single spaces or dashes, Luhn-valid.
bool CardNumber(std::string_view t) {
  size_t i = 0;
  while (i < t.size()) {
    if (!IsDigit(t[i]) || (i > 0 && (IsAlnum(t[i - 1]) || t[i - 1] == '.'))) {
      ++i;
      continue;
    }
    std::string digits;
    size_t j = i;
    while (j < t.size()) {
      if (IsDigit(t[j])) {
        digits.push_back(t[j]);
        ++j;
      } else if ((t[j] == ' ' || t[j] == '-') && j + 1 < t.size() && IsDigit(t[j + 1]) && !digits.empty()) {
        ++j;
      } else {
        break;
      }
      if (digits.size() > 19) break;
    }
    bool bounded = j >= t.size() || !IsAlnum(t[j]);
    if (bounded && digits.size() >= 13 && digits.size() <= 19 && digits[0] >= '2' && digits[0] <= '6') {
      int sum = 0;
      bool dbl = false;
      for (size_t k = digits.size(); k-- > 0;) {
        int d = digits[k] - '0';
        if (dbl) {
          d *= 2;
          if (d > 9) d -= 9;
        }
        sum += d;
        dbl = !dbl;
      }
      if (sum % 10 == 0) return true;
    }
    i = j + 1;
  }
  return false;
}

struct ContentRule {
  const char* id;
  bool (*found)(std::string_view);
};

constexpr std::array<ContentRule, 11> kContentRules = {{
    {"pem_private_key", PemPrivateKey},
    {"api_key_sk", ApiKey},
    {"aws_access_key", AwsKey},
    {"github_token", GithubToken},
    {"slack_token", SlackToken},
    {"jwt", Jwt},
    {"secret_assignment", SecretAssignment},
    {"url_credentials", UrlCredentials},
    {"cn_resident_id", ChineseResidentId},
    {"cn_mobile", ChineseMobile},
    {"card_number", CardNumber},
}};

}  // namespace

SensitiveRules SensitiveRules::Defaults() {
  SensitiveRules r;
  r.path_components = {"secrets", "secret", "credentials", "passwords", "private-keys", "密码", "机密"};
  r.name_keywords = {"password", "passwd", "secret", "credential", "apikey", "api-key", "api_key", "private-key",
                     "id_rsa", "密码", "口令", "密钥", "身份证", "银行卡"};
  return r;
}

const std::vector<std::string>& ContentRuleIds() {
  static const std::vector<std::string> kIds = [] {
    std::vector<std::string> ids;
    for (const auto& r : kContentRules) ids.emplace_back(r.id);
    return ids;
  }();
  return kIds;
}

std::optional<std::string> FindSensitive(std::string_view path, std::string_view content, const SensitiveRules& rules) {
  if (std::find(rules.allow.begin(), rules.allow.end(), path) != rules.allow.end()) return std::nullopt;
  auto disabled = [&](const std::string& id) {
    return std::find(rules.disabled.begin(), rules.disabled.end(), id) != rules.disabled.end();
  };
  // Folders: whole components, case-insensitive.
  std::string lower = common::AsciiLower(path);
  size_t start = 0;
  while (true) {
    size_t slash = lower.find('/', start);
    if (slash == std::string::npos) break;
    std::string dir = lower.substr(start, slash - start);
    for (const std::string& c : rules.path_components) {
      std::string id = "path:" + c;
      if (dir == common::AsciiLower(c) && !disabled(id)) return id;
    }
    start = slash + 1;
  }
  std::string name = lower.substr(start);
  for (const std::string& k : rules.name_keywords) {
    std::string id = "name:" + k;
    if (name.find(common::AsciiLower(k)) != std::string::npos && !disabled(id)) return id;
  }
  for (const ContentRule& r : kContentRules) {
    if (!disabled(r.id) && r.found(content)) return std::string(r.id);
  }
  return std::nullopt;
}

}  // namespace engram::sync
