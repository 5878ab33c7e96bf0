// Content rules for secrets named by a key rather than recognised by their
// shape: password/secret/token assignments (with URL query parameters and
// "Bearer" headers), and URLs with a user:password in them.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "common/utf8.h"
#include "sync/sensitive_scan.h"

namespace engram::sync::sensitive {

namespace {

// ---------------------------------------------------------------------------
// Assignments: "password = hunter2hunter", "PGPASSWORD=…", "'password' => '…'",
// "api_key: '…'", "密码：…", "密码是…", "密码为：…", "| 密码 | … |", "my password
// is …", with the value on the same or the next line. The key decides nothing
// alone: the value must look like a secret, not a type, a placeholder, an
// environment reference or code.
// ---------------------------------------------------------------------------

struct SecretKey {
  std::string_view word;
  bool suffix_ok;  // may end a longer identifier word ("pgpassword", "csrftoken")
};
constexpr std::array<SecretKey, 10> kAsciiKeys = {{{"password", true},
                                                   {"passwd", true},
                                                   {"passphrase", true},
                                                   {"pwd", false},
                                                   {"secret", true},
                                                   {"token", true},
                                                   {"apikey", true},
                                                   {"api_key", false},
                                                   {"api-key", false},
                                                   {"access_key", false}}};
// Folded (simplified) forms only: the text was folded Traditional → Simplified.
constexpr std::array<std::string_view, 4> kChineseKeys = {"密码", "口令", "密钥", "秘钥"};

// Identifier words that make a "password…" name something other than a secret
// (password_policy, token_url, max_tokens, pad_token).
constexpr std::array<std::string_view, 52> kNotSecretWords = {
    "url",     "uri",      "endpoint",  "file",    "path",    "dir",        "type",     "length", "len",
    "size",    "ttl",      "expiry",    "expires", "expire",  "expiration", "timeout",  "name",   "field",
    "header",  "prefix",   "format",    "min",     "max",     "count",      "limit",    "policy", "rule",
    "rules",   "strength", "hint",      "label",   "env",     "var",        "mode",     "kind",   "version",
    "manager", "encoding", "algorithm", "regex",   "pattern", "num",        "total",    "pad",    "eos",
    "bos",     "unk",      "cls",       "sep",     "mask",    "special",    "protected"};

// Pure-letter values that are types, states or placeholders.
constexpr std::array<std::string_view, 30> kNotSecretValues = {
    "string",   "boolean",   "integer",   "required",  "optional",  "redacted",  "undefined", "nullable",
    "disabled", "enabled",   "encrypted", "forgotten", "generated", "sensitive", "readonly",  "writeonly",
    "password", "passwords", "protected", "anything",  "whatever",  "something", "supported", "provided",
    "rotating", "expiring",  "required.", "mandatory", "username",  "hardcoded"};

enum class Sep { kNone, kWeak, kStrong };  // strong: the value must have a secret's shape on its own

// Does the value look like a secret? cased: the value with its case.
bool SecretValue(std::string_view cased, Sep sep, bool ends_line) {
  std::string v = common::AsciiLower(cased);
  if (v.size() < 6) return false;
  char c0 = v[0];
  if (c0 == '$' || c0 == '{' || c0 == '<' || c0 == '%' || c0 == '[' || c0 == '/' || c0 == '~' || c0 == '(') {
    return false;  // ${ENV}, {{template}}, <your-key>, %(password)s, [PAD], /run/secrets/x, ~/.pgpass
  }
  if (StartsWith(v, 0, "./") || StartsWith(v, 0, "http") || StartsWith(v, 0, "file:")) return false;
  if (std::all_of(v.begin(), v.end(), [&](char c) { return c == v[0]; })) return false;  // ******, xxxxxx
  for (std::string_view p : {"your", "xxxx", "example", "placeholder", "redacted", "dummy", "replace"}) {
    if (Contains(v, p)) return false;
  }
  // Code: os.environ[...], getenv(...), self.token, config.password.
  size_t ident = 0;
  while (ident < v.size() && (IsAlpha(v[ident]) || v[ident] == '_' || (ident > 0 && IsDigit(v[ident])))) ++ident;
  if (ident > 0 && ident < v.size() &&
      (v[ident] == '(' || v[ident] == '[' ||
       (v[ident] == '.' && ident + 1 < v.size() && (IsAlpha(v[ident + 1]) || v[ident + 1] == '_')))) {
    return false;
  }
  // A colour (#ff0000) or an algorithm name (AES-256, RSA-2048, SHA-1, GPT-4).
  if (c0 == '#' && v.size() <= 9 &&
      std::all_of(v.begin() + 1, v.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; })) {
    return false;
  }
  {
    size_t k = 0;
    while (k < v.size() && IsAlpha(v[k])) ++k;
    size_t letters = k;
    if (k < v.size() && v[k] == '-') ++k;
    size_t d = k;
    while (k < v.size() && IsDigit(v[k])) ++k;
    if (letters >= 2 && letters <= 4 && k - d >= 1 && k - d <= 4 && k == v.size()) return false;
  }
  bool digit = false, letter = false, symbol = false, inner_upper = false, lower = false;
  for (size_t k = 0; k < cased.size(); ++k) {
    char c = cased[k];
    if (IsDigit(c)) {
      digit = true;
    } else if (IsAlpha(c)) {
      letter = true;
      if (IsUpper(c) && k > 0) inner_upper = true;
      if (IsLower(c)) lower = true;
    } else if (c != '-' && c != '_' && c != '.') {
      symbol = true;
    }
  }
  bool all_digits = digit && !letter && std::all_of(v.begin(), v.end(), [](char c) { return IsDigit(c); });
  if ((digit && letter) || symbol || all_digits || (inner_upper && lower)) return true;
  if (sep != Sep::kWeak || !ends_line || digit) return false;
  // Letters only ("correcthorsebattery"): a secret when it ends the line and is long enough and not a word for a type
  // or state.
  bool letters_only = std::all_of(v.begin(), v.end(), [](char c) { return IsAlpha(c); });
  return letters_only && v.size() >= 8 &&
         std::find(kNotSecretValues.begin(), kNotSecretValues.end(), v) == kNotSecretValues.end();
}

// Reads the separator after a key at t[i]; advances i past it.
Sep ReadSeparator(std::string_view l, size_t* i, bool chinese) {
  size_t k = *i;
  while (k < l.size() &&
         (l[k] == ' ' || l[k] == '\t' || l[k] == '"' || l[k] == '\'' || l[k] == '`' || l[k] == ']' || l[k] == '*')) {
    ++k;
  }
  Sep sep = Sep::kNone;
  if (StartsWith(l, k, "=>") || StartsWith(l, k, ":=") || StartsWith(l, k, "==")) {
    k += 2;
    sep = Sep::kWeak;
  } else if (k < l.size() && (l[k] == '=' || l[k] == ':')) {
    k += 1;
    sep = Sep::kWeak;
  } else if (k < l.size() && l[k] == '|') {
    k += 1;
    sep = Sep::kStrong;  // a table cell: "| password | … |"
  } else if (chinese && (StartsWith(l, k, "是") || StartsWith(l, k, "为"))) {
    k += 3;
    if (k < l.size() && l[k] == ':') ++k;
    sep = Sep::kWeak;
  } else if (!chinese && StartsWith(l, k, "is") && k + 2 < l.size() && (l[k + 2] == ' ' || l[k + 2] == ':')) {
    k += 3;
    sep = Sep::kStrong;  // prose: "my password is …"
  }
  *i = k;
  return sep;
}

// The value after a separator: same line, or the next line when the separator ends its line.
bool AssignedValue(const Scan& s, size_t i, Sep sep) {
  const std::string& t = s.text;
  // "`token=` parameter": the backtick after the separator closes a code span
  // holding just the key, so nothing is assigned.
  size_t first = i;
  while (first < t.size() && (t[first] == ' ' || t[first] == '\t')) ++first;
  if (first < t.size() && t[first] == '`') {
    size_t line = i > kReach ? i - kReach : 0;
    size_t nl = std::string_view(t).substr(line, i - line).rfind('\n');
    if (nl != std::string_view::npos) line += nl + 1;
    if (std::count(t.begin() + static_cast<std::ptrdiff_t>(line), t.begin() + static_cast<std::ptrdiff_t>(first), '`') %
            2 ==
        1) {
      return false;
    }
  }
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '"' || t[i] == '\'' || t[i] == '`' || t[i] == '*'))
    ++i;
  if (i < t.size() && t[i] == '\n' && sep == Sep::kWeak) {
    ++i;
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '"' || t[i] == '\'' || t[i] == '`' || t[i] == '>'))
      ++i;
  }
  if (s.ZoneAt(i) != kText) return false;  // the value is a URL or a file name
  size_t e = i;
  while (e < t.size() && e - i < kReach && !IsSpace(t[e]) && t[e] != '"' && t[e] != '\'' && t[e] != '`' &&
         t[e] != '|' && static_cast<unsigned char>(t[e]) < 0x80) {
    ++e;
  }
  size_t after = e;
  while (e > i && (t[e - 1] == '.' || t[e - 1] == ',' || t[e - 1] == ';' || t[e - 1] == ':' || t[e - 1] == ')' ||
                   t[e - 1] == '*')) {
    --e;
  }
  while (after < t.size() && (t[after] == ' ' || t[after] == '\t' || t[after] == '"' || t[after] == '\'' ||
                              t[after] == '`' || t[after] == '*' || t[after] == ',' || t[after] == ';')) {
    ++after;
  }
  bool ends_line = after >= t.size() || t[after] == '\n';
  return SecretValue(std::string_view(t).substr(i, e - i), sep, ends_line);
}

// A credential carried as a URL query parameter ("?access_token=…"). Image and
// attachment URLs never get here (their zone is kFile): a CDN's "token=",
// "sig=" or "X-Amz-Signature=" on a picture authorises that picture for a
// while and is no account secret. In any other link a long random value of a
// credential parameter is treated as the secret it usually is (a reset link,
// an API call copied with its key); a short one ("token=1234567" on a WeChat
// article link) is a session marker.
bool UrlParamSecret(const Scan& s, size_t key_begin, size_t key_end) {
  const std::string& t = s.text;
  if (key_begin == 0 || (t[key_begin - 1] != '?' && t[key_begin - 1] != '&' && t[key_begin - 1] != ';')) return false;
  if (key_end >= t.size() || t[key_end] != '=') return false;
  size_t b = key_end + 1;
  size_t e = b;
  while (e < t.size() && s.ZoneAt(e) == kUrl && t[e] != '&' && t[e] != '#') ++e;
  std::string_view v = std::string_view(t).substr(b, e - b);
  bool digit = std::any_of(v.begin(), v.end(), IsDigit);
  bool letter = std::any_of(v.begin(), v.end(), IsAlpha);
  return v.size() >= 20 && digit && letter;
}

}  // namespace

bool SecretAssignment(const Scan& s) {
  const std::string& l = s.lower;
  auto is_ident = [](char c) { return IsAlnum(c) || c == '_' || c == '-' || c == '.'; };
  for (const SecretKey& key : kAsciiKeys) {
    for (size_t at = l.find(key.word); at != std::string::npos; at = l.find(key.word, at + 1)) {
      Zone zone = s.ZoneAt(at);
      if (zone == kFile) continue;
      // The whole identifier around the key, split into words at _ - .
      size_t b = at;
      while (b > 0 && at - b < 64 && is_ident(l[b - 1])) --b;
      size_t e = at + key.word.size();
      while (e < l.size() && e - at < 64 && is_ident(l[e])) ++e;
      while (e > at + key.word.size() && (l[e - 1] == '.' || l[e - 1] == '-')) --e;  // "password." ends a sentence
      bool keyed = false;
      bool excluded = false;
      size_t w = b;
      while (w < e) {
        size_t we = w;
        while (we < e && IsAlnum(l[we])) ++we;
        std::string_view word = std::string_view(l).substr(w, we - w);
        if (std::find(kNotSecretWords.begin(), kNotSecretWords.end(), word) != kNotSecretWords.end()) excluded = true;
        if (w <= at && at < std::max(we, w + 1)) {
          std::string_view kw = key.word;
          if (kw.find('_') != std::string_view::npos || kw.find('-') != std::string_view::npos) {
            keyed = true;  // api_key spans two words
          } else if (word == kw ||
                     (word.size() == kw.size() + 1 && word.substr(0, kw.size()) == kw && word.back() == 's')) {
            keyed = true;  // password, tokens
          } else if (key.suffix_ok && word.size() > kw.size() && word.substr(word.size() - kw.size()) == kw) {
            keyed = true;  // pgpassword, csrftoken
          }
        }
        w = we + 1;
      }
      if (!keyed || excluded) continue;
      if (zone == kUrl) {
        if (UrlParamSecret(s, b, e)) return true;
        continue;
      }
      size_t i = e;
      Sep sep = ReadSeparator(l, &i, /*chinese=*/false);
      if (sep != Sep::kNone && AssignedValue(s, i, sep)) return true;
    }
  }
  for (std::string_view key : kChineseKeys) {
    for (size_t at = l.find(key); at != std::string::npos; at = l.find(key, at + 1)) {
      if (s.ZoneAt(at) != kText) continue;
      size_t i = at + key.size();
      Sep sep = ReadSeparator(l, &i, /*chinese=*/true);
      if (sep != Sep::kNone && AssignedValue(s, i, sep)) return true;
    }
  }
  // "Authorization: Bearer <token>" (a JWT is caught by its own rule).
  for (size_t at = l.find("bearer "); at != std::string::npos; at = l.find("bearer ", at + 1)) {
    if (s.ZoneAt(at) != kText || (at > 0 && IsAlnum(l[at - 1]))) continue;
    size_t e = 0;
    size_t n = TokenRun(
        s.text, at + 7, [](char c) { return IsBase64Url(c) || c == '.' || c == '~' || c == '+' || c == '/'; }, &e);
    std::string_view v = std::string_view(s.text).substr(at + 7, e - at - 7);
    if (n >= 20 && std::any_of(v.begin(), v.end(), IsDigit) && std::any_of(v.begin(), v.end(), IsAlpha)) return true;
  }
  return false;
}

// scheme://user:password@host — except documentation placeholders
// (postgres://user:password@localhost, mongodb://<user>:<password>@…).
bool UrlCredentials(const Scan& s) {
  const std::string& t = s.text;
  for (size_t at = t.find("://"); at != std::string::npos; at = t.find("://", at + 1)) {
    size_t i = at + 3;
    size_t end = i;
    while (end < t.size() && !IsSpace(t[end]) && t[end] != '/' && t[end] != ')' && t[end] != ']' && t[end] != '>' &&
           t[end] != '"' && t[end] != '\'' && static_cast<unsigned char>(t[end]) < 0x80) {
      ++end;
    }
    std::string_view authority = std::string_view(t).substr(i, end - i);
    size_t atsign = authority.rfind('@');
    if (atsign == std::string_view::npos) continue;
    size_t colon = authority.find(':');
    // The user may be empty (redis://:password@host); the password may not.
    if (colon == std::string_view::npos || colon + 1 >= atsign) continue;
    std::string pass = common::AsciiLower(authority.substr(colon + 1, atsign - colon - 1));
    static constexpr std::array<std::string_view, 9> kPlaceholders = {
        "password", "pass", "passwd", "pwd", "secret", "pw", "changeme", "mypassword", "yourpassword"};
    if (std::find(kPlaceholders.begin(), kPlaceholders.end(), pass) != kPlaceholders.end()) continue;
    char c0 = pass[0];
    if (c0 == '<' || c0 == '$' || c0 == '{' || c0 == '[' || c0 == '*' || Contains(pass, "xxx") ||
        Contains(pass, "your"))
      continue;
    // Reference documentation writes "https://user:pass@sub.example.com" and
    // "https://a:b@host": a password of one to three characters is an
    // illustration. (The example.com domains themselves are not a sign: a
    // note may well anonymise a real host and keep the real password.)
    if (pass.size() < 4) continue;
    return true;
  }
  return false;
}

}  // namespace engram::sync::sensitive
