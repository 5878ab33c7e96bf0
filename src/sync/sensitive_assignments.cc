// Content rules for secrets named by a key rather than recognised by their
// shape: password/secret/token assignments (with URL query parameters and
// "Bearer" headers), and URLs with a user:password in them.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
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
  bool suffix_ok;            // may end a longer identifier word ("pgpassword", "csrftoken")
  bool strong_only = false;  // names a secret only when the value has a secret's shape on its own
  bool random_only = false;  // … and a random one: "key", "APP_KEY", "apiV3Key" name ids and file names too
};
constexpr std::array<SecretKey, 38> kAsciiKeys = {{{"password", true},
                                                   {"passwd", true},
                                                   {"passphrase", true},
                                                   {"pwd", false},
                                                   {"pass", false},
                                                   {"pw", false},
                                                   {"secret", true},
                                                   {"token", true},
                                                   {"apikey", true},
                                                   {"api_key", false},
                                                   {"api-key", false},
                                                   {"access_key", false},
                                                   {"accountkey", true},
                                                   {"secretkey", true},
                                                   {"sharedaccesskey", true},
                                                   {"privatekey", true},
                                                   {"private_key", false},
                                                   {"signingkey", true},
                                                   {"signing_key", false},
                                                   {"encryptionkey", true},
                                                   {"encryption_key", false},
                                                   {"masterkey", true},
                                                   {"master_key", false},
                                                   {"authkey", true},
                                                   {"psk", false},
                                                   {"wpa_passphrase", false},
                                                   {"admin", false, true},
                                                   {"requirepass", false},
                                                   {"masterauth", false},
                                                   {"sshpass", false},
                                                   {"storepass", false},
                                                   {"keypass", false},
                                                   {"aeskey", true},
                                                   {"securityjscode", true},
                                                   {"hashkey", true},
                                                   {"hashiv", true},
                                                   {"key", true, true, true},
                                                   {"ssws", false}}};
// Folded (simplified) forms only: the text was folded Traditional → Simplified.
constexpr std::array<std::string_view, 9> kChineseKeys = {"密码", "口令", "密钥", "秘钥", "密碼",
                                                          "金钥", "令牌", "授权码", "私钥"};

// Identifier words that make a "password…" name something other than a secret
// (password_policy, token_url, max_tokens, pad_token).
constexpr std::array<std::string_view, 57> kNotSecretWords = {
    "url",     "uri",      "endpoint",  "file",    "path",    "dir",        "type",     "length", "len",
    "size",    "ttl",      "expiry",    "expires", "expire",  "expiration", "timeout",  "name",   "field",
    "header",  "prefix",   "format",    "min",     "max",     "count",      "limit",    "policy", "rule",
    "rules",   "strength", "hint",      "label",   "env",     "var",        "mode",     "kind",   "version",
    "manager", "encoding", "algorithm", "regex",   "pattern", "num",        "total",    "pad",    "eos",
    "bos",     "unk",      "cls",       "sep",     "mask",    "special",    "protected", "id",    "reset",
    "through", "word",     "port"};

// Pure-letter values that are types, states or placeholders.
constexpr std::array<std::string_view, 30> kNotSecretValues = {
    "string",   "boolean",   "integer",   "required",  "optional",  "redacted",  "undefined", "nullable",
    "disabled", "enabled",   "encrypted", "forgotten", "generated", "sensitive", "readonly",  "writeonly",
    "password", "passwords", "protected", "anything",  "whatever",  "something", "supported", "provided",
    "rotating", "expiring",  "required.", "mandatory", "username",  "hardcoded"};

// strong: the value must have a secret's shape on its own; bare (no
// separator, or prose such as "changed it to"): that, and more than digits.
enum class Sep { kNone, kWeak, kStrong, kBare };

// Does the value look like a secret? cased: the value with its case.
bool SecretValue(std::string_view cased, Sep sep, bool ends_line) {
  std::string v = common::AsciiLower(cased);
  if (v.size() < 6) return false;
  if (IsPlaceholder(v)) return false;
  char c0 = v[0];
  if (c0 == '$' || c0 == '{' || c0 == '<' || c0 == '%' || c0 == '[' || c0 == '/' || c0 == '~' || c0 == '(' ||
      c0 == '!') {  // … and a YAML tag (!vault, !Ref)
    return false;  // ${ENV}, {{template}}, <your-key>, %(password)s, [PAD], /run/secrets/x, ~/.pgpass
  }
  if (StartsWith(v, 0, "./") || StartsWith(v, 0, "http") || StartsWith(v, 0, "file:")) return false;
  if (std::all_of(v.begin(), v.end(), [&](char c) { return c == v[0]; })) return false;  // ******, xxxxxx
  for (std::string_view p : {"your", "xxxx", "example", "placeholder", "redacted", "dummy", "replace"}) {
    if (Contains(v, p)) return false;
  }
  // An instruction in place of the value: "generate-with-openssl-rand-base64-32", "put-the-key-here".
  for (std::string_view p : {"generate", "insert", "-here", "_here", "fill-in", "fill_in", "paste-", "enter-", "changeit"}) {
    if (Contains(v, p)) return false;
  }
  // Code: os.environ[...], getenv(...), self.token, config.password — not
  // a dotted key ("SG.weFe_TFEu…"): code's parts are words without digits.
  {
    size_t k = 0;  // a chain of identifiers: a.b.c
    bool digits = false, dotted = false;
    while (k < v.size() && (IsAlpha(v[k]) || v[k] == '_')) {
      for (; k < v.size() && (IsAlnum(v[k]) || v[k] == '_'); ++k) {
        if (IsDigit(v[k])) digits = true;
      }
      if (k + 1 < v.size() && v[k] == '.' && (IsAlpha(v[k + 1]) || v[k + 1] == '_')) {
        dotted = true;
        ++k;
        continue;
      }
      break;
    }
    const bool call = k > 0 && k < v.size() && (v[k] == '(' || v[k] == '[');
    if (call || (dotted && !digits && k == v.size())) return false;
  }
  // A heading anchor ("#cryptocreateprivatekeykey", a Markdown reference's target).
  if (c0 == '#' && std::all_of(v.begin() + 1, v.end(), [](char c) { return IsLower(c) || c == '-' || c == '_'; })) {
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
    // Only a known family's name: "yfwx2019" (initials and a year) is a password.
    static constexpr std::array<std::string_view, 36> kFamilies = {
        "aes", "rsa", "sha", "md", "gpt", "hs", "rs", "es", "ps", "ed", "utf", "iso", "crc", "des", "rc", "ec", "dsa",
        "int", "uint", "fp", "bit", "tls", "ssl", "ipv", "win", "cp", "gb", "ucs", "x", "p", "bf", "hmac", "blake",
        "xxh", "base", "http"};
    if (letters >= 1 && letters <= 4 && k - d >= 1 && k - d <= 4 && k == v.size() &&
        std::find(kFamilies.begin(), kFamilies.end(), std::string_view(v).substr(0, letters)) != kFamilies.end()) {
      return false;
    }
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
  if (sep == Sep::kBare) {
    // Without a separator only a random-looking value is one: not a path, not digits alone, not a word with a
    // number after it ("admin123", which lists of weak passwords are made of), not a name in code ("v8::Object").
    if (all_digits || !digit || Contains(v, "/") || Contains(v, "::") || v[0] == '-') return false;
    size_t k = 0;
    while (k < v.size() && IsAlpha(v[k])) ++k;
    if (v.size() <= 12 && k > 0 && k < v.size() &&
        std::all_of(v.begin() + static_cast<std::ptrdiff_t>(k), v.end(), IsDigit)) {
      return false;
    }
  }
  if ((digit && letter) || symbol || all_digits || (inner_upper && lower)) return true;
  if (sep != Sep::kWeak || !ends_line || digit) return false;
  // Letters only ("correcthorsebattery"): a secret when it ends the line and is long enough and not a word for a type
  // or state.
  bool letters_only = std::all_of(v.begin(), v.end(), [](char c) { return IsAlpha(c); });
  return letters_only && v.size() >= 8 &&
         std::find(kNotSecretValues.begin(), kNotSecretValues.end(), v) == kNotSecretValues.end();
}

// "改成了", "设为", … within a few characters of l[*k] on its line: *k moves past it.
bool SettingVerb(std::string_view l, size_t* k) {
  const std::string_view ahead = l.substr(*k, 24);
  for (std::string_view verb : {"改成了", "改为", "改成", "设成", "设为", "设置为", "换成了", "换成", "变成了"}) {
    const size_t at = ahead.find(verb);
    if (at == std::string_view::npos || ahead.substr(0, at).find('\n') != std::string_view::npos) continue;
    *k += at + verb.size();
    // "设成你生日加我名字缩写了：lx19920817": the value after a colon a few words on.
    const std::string_view rest = l.substr(*k, 60);
    const size_t colon = rest.find(':');
    if (colon != std::string_view::npos && rest.substr(0, colon).find('\n') == std::string_view::npos &&
        (rest.empty() || static_cast<unsigned char>(rest[0]) >= 0x80)) {
      *k += colon + 1;
    }
    return true;
  }
  return false;
}

// Reads the separator after a key at t[i]; advances i past it. line_start:
// the key begins its line (past indentation, quote and list markers).
Sep ReadSeparator(std::string_view l, size_t* i, bool chinese, bool line_start) {
  size_t k = *i;
  // "ClientSecret(AppSecret)：", "口令(password)："： an alias in brackets before the separator.
  // "token码：…", "secret key 是 …": the key's noun after it.
  if (StartsWith(l, k, "码") || StartsWith(l, k, "号")) k += 3;
  if (!chinese && (StartsWith(l, k, " key ") || StartsWith(l, k, " key:") || StartsWith(l, k, " key=") ||
                   StartsWith(l, k, " key\t"))) {
    k += 4;
  }
  // "开机密码（全角状态下设置的，登录要切全角）：…": a remark in brackets, up to about 25 Chinese characters.
  if (k < l.size() && l[k] == '(') {
    const size_t close = l.substr(k, 80).find(')');
    const std::string_view inside = close == std::string_view::npos ? std::string_view() : l.substr(k + 1, close - 1);
    // Words, not code: no quotes, no nested call, and a comma only in a Chinese remark.
    const bool remark = std::any_of(inside.begin(), inside.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
    if (close != std::string_view::npos && inside.find_first_of("\n'\"(`") == std::string_view::npos &&
        (remark || inside.find(',') == std::string_view::npos)) {
      k += close + 1;
    }
  }
  // A key alone at the start of its line, its value after a wide gap: "密码　　hx_5G…", "Password\tTw8#…".
  if (line_start && k + 1 < l.size() && ((l[k] == ' ' && l[k + 1] == ' ') || l[k] == '\t')) {
    size_t v = k;
    while (v < l.size() && (l[v] == ' ' || l[v] == '\t')) ++v;
    if (v < l.size() && l[v] != '\n' && l[v] != ':' && l[v] != '=' && l[v] != '|') {
      *i = v;
      return Sep::kStrong;
    }
  }
  const size_t gap = k;
  while (k < l.size() &&
         (l[k] == ' ' || l[k] == '\t' || l[k] == '"' || l[k] == '\'' || l[k] == '`' || l[k] == ']' || l[k] == '*')) {
    ++k;
  }
  Sep sep = Sep::kNone;
  if (StartsWith(l, k, "=>") || StartsWith(l, k, ":=") || StartsWith(l, k, "==")) {
    k += 2;
    sep = Sep::kWeak;
  } else if (k < l.size() && (l[k] == '=' || l[k] == ':')) {
    const bool colon = l[k] == ':';
    k += StartsWith(l, k, "::") ? 2 : 1;  // a Dataview field: "密码:: …"
    sep = Sep::kWeak;
    // A declared type between the name and the value: "BOT_TOKEN: &str = …", "apiKey: string = …".
    if (colon && !chinese) {
      size_t j = k;
      while (j < l.size() && l[j] == ' ') ++j;
      const size_t type = j;
      while (j < l.size() && j - type < 32 &&
             (IsAlnum(l[j]) || l[j] == '_' || l[j] == '&' || l[j] == '\'' || l[j] == '<' || l[j] == '>' ||
              l[j] == '[' || l[j] == ']' || l[j] == '.' || l[j] == '?')) {
        ++j;
      }
      const size_t type_end = j;
      while (j < l.size() && l[j] == ' ') ++j;
      // (A space before the '=': "U2Z0cCFV…=" is base64's padding, not an assignment.)
      if (type_end > type && j > type_end && j < l.size() && l[j] == '=' && (j + 1 >= l.size() || l[j + 1] != '=')) {
        k = j + 1;
      }
    }
  } else if (k < l.size() && l[k] == '|') {
    k += 1;
    sep = Sep::kStrong;  // a table cell: "| password | … |" — with a cell after it on the line
    const size_t eol = std::min(l.size(), l.find('\n', k));
    const std::string_view rest = l.substr(k, eol - k);
    if (rest.find_first_not_of(" \t|\r") == std::string_view::npos) sep = Sep::kNone;
    // A header row (the next line is |---|) names columns; a cell of letters alone is a name ("KeePassXC").
    const std::string_view next = eol < l.size() ? l.substr(eol + 1, 8) : std::string_view();
    if (StartsWith(next, 0, "|--") || StartsWith(next, 0, "| --") || StartsWith(next, 0, "|:-")) sep = Sep::kNone;
    {
      std::string_view cell = rest.substr(0, rest.find('|'));
      while (!cell.empty() && cell.front() == ' ') cell.remove_prefix(1);
      while (!cell.empty() && cell.back() == ' ') cell.remove_suffix(1);
      if (!cell.empty() && std::all_of(cell.begin(), cell.end(), IsAlpha)) sep = Sep::kNone;
    }
  } else if (StartsWith(l, k, "都是") || StartsWith(l, k, "就是") || StartsWith(l, k, "也是") ||
             StartsWith(l, k, "均为") || StartsWith(l, k, "统一为")) {
    k += StartsWith(l, k, "统一为") ? 9 : 6;
    if (k < l.size() && l[k] == ':') ++k;
    sep = Sep::kStrong;  // "密码都是…"
  } else if (!chinese && k < l.size() && l[k] == '(' && k + 1 < l.size() && (l[k + 1] == '"' || l[k + 1] == '\'') &&
             !(*i >= 13 && l.substr(0, *i).ends_with("new password"))) {
    k += 1;
    sep = Sep::kStrong;  // a setter: setPassword("…"), .password('…') — not a class built from it (new Password('…'))
  } else if (StartsWith(l, k, "->") || StartsWith(l, k, "→")) {
    k += l[k] == '-' ? 2 : 3;
    sep = Sep::kWeak;
  } else if (StartsWith(l, k, "是") || StartsWith(l, k, "为")) {
    k += 3;
    if (k < l.size() && l[k] == ':') ++k;
    sep = chinese ? Sep::kWeak : Sep::kStrong;  // "密码是…", "数据库pwd是…"
  } else if (!chinese && (StartsWith(l, k, "is ") || StartsWith(l, k, "is:"))) {
    k += 3;
    sep = Sep::kStrong;  // prose: "my password is …"
  } else if (!chinese && (StartsWith(l, k, "for ") || StartsWith(l, k, "of ")) &&
             l.substr(k, 40).find(" is ") != std::string_view::npos &&
             l.substr(k, l.substr(k, 40).find(" is ")).find('\n') == std::string_view::npos) {
    k += l.substr(k, 40).find(" is ") + 4;
    sep = Sep::kStrong;  // "the password for admin@ is …"
  } else if (!chinese && (StartsWith(l, k, "was ") || StartsWith(l, k, "to "))) {
    k += l[k] == 'w' ? 4 : 3;
    sep = Sep::kBare;  // "changed the Netflix password to …"
  } else if (chinese && SettingVerb(l, &k)) {
    sep = Sep::kStrong;  // "密码他改成了 …", "管理员密码我改成了 …"
  } else if (l[gap] == ' ' && (k == gap + 1 || (k == gap + 2 && (l[gap + 1] == '\'' || l[gap + 1] == '"')))) {
    // "pw Jr4!bot_svc2", "password 7d3c2b91-…" (.netrc): no separator at all, so only a value with a secret's shape.
    sep = Sep::kBare;
  }
  *i = k;
  return sep;
}

// Standard base64 decoded; "" when the text is not base64 or not printable ASCII.
std::string DecodeBase64Text(std::string_view b) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : b) {
    int v = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52
            : c == '+' ? 62 : c == '/' ? 63 : c == '=' ? -2 : -1;
    if (v == -2) break;
    if (v < 0) return "";
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      const char ch = static_cast<char>((acc >> bits) & 0xFF);
      if (ch < 0x20 || ch > 0x7E) return "";
      out.push_back(ch);
    }
  }
  return out;
}

// Whether t[at] begins its line, past indentation, quote markers and a list bullet.
bool StartsLine(std::string_view t, size_t at) {
  size_t k = at;
  while (k > 0 && (t[k - 1] == ' ' || t[k - 1] == '\t' || t[k - 1] == '>' || t[k - 1] == '-' || t[k - 1] == '*')) --k;
  return k == 0 || t[k - 1] == '\n';
}

// The value after a separator: same line, or the next line when the separator ends its line.
// A random value: 12 or more characters with upper and lower case and digits,
// or 32 or more hex digits — what a key is, and what an id, a name or a file
// name almost never is.
bool RandomValue(std::string_view v) {
  if (v.size() < 12 || IsPlaceholder(common::AsciiLower(v))) return false;
  bool digit = false, lower = false, upper = false, hex = true;
  for (char c : v) {
    if (IsSpace(c) || static_cast<unsigned char>(c) >= 0x80) return false;
    digit = digit || IsDigit(c);
    lower = lower || IsLower(c);
    upper = upper || IsUpper(c);
    hex = hex && std::isxdigit(static_cast<unsigned char>(c)) != 0;
  }
  const size_t dot = v.rfind('.');
  if (dot != std::string_view::npos && v.size() - dot <= 5 &&
      std::all_of(v.begin() + static_cast<std::ptrdiff_t>(dot) + 1, v.end(), IsLower)) {
    return false;  // a file name: "logo-2x3A9bQ.png"
  }
  // (Not an OpenPGP fingerprint: 40 hex digits in capitals, "--recv-keys 5BE8A3F6…".)
  if (hex && !lower && v.size() == 40) return false;
  return (upper && lower && digit) || (hex && digit && (lower || upper) && v.size() >= 32);
}

bool AssignedValue(const Scan& s, size_t i, Sep sep, bool random_only = false) {
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
  // A YAML block scalar ("KEY: >-" or "|") holds its value on the next line.
  if (sep == Sep::kWeak && i < t.size() && (t[i] == '>' || t[i] == '|')) {
    size_t k = i + 1;
    while (k < t.size() && (t[k] == '-' || t[k] == '+' || t[k] == ' ')) ++k;
    if (k < t.size() && t[k] == '\n') i = k;
  }
  // ODBC writes a value with special characters in braces: Pwd={Wms#2025!rw} (after '=': "`key`: {string|Buffer}"
  // is a type).
  size_t before = i;
  while (before > 0 && (t[before - 1] == ' ' || t[before - 1] == '\t')) --before;
  if (i + 1 < t.size() && t[i] == '{' && t[i + 1] != '{' && before > 0 && t[before - 1] == '=') {
    const size_t close = t.find('}', i);
    // (Not a type list: "{string | Buffer}" has spaces; an ODBC value has none.)
    if (close != std::string::npos && close - i < 128 && t.substr(i, close - i).find_first_of("\n ") == std::string::npos) {
      const std::string_view braced = std::string_view(t).substr(i + 1, close - i - 1);
      // A type ("{KeyObject}") is letters alone.
      return std::any_of(braced.begin(), braced.end(), [](char c) { return !IsAlpha(c); }) &&
             SecretValue(braced, Sep::kStrong, false);
    }
  }
  if (i < t.size() && t[i] == '\n' && sep == Sep::kWeak) {
    ++i;
    if (i < t.size() && t[i] == '\n') ++i;  // "开机密码：" then a blank line, then the value
    if (StartsWith(t, i, "```") || StartsWith(t, i, "~~~")) return false;  // a code block follows the colon
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '"' || t[i] == '\'' || t[i] == '`' || t[i] == '>'))
      ++i;
  }
  if (s.ZoneAt(i) != kText) return false;  // the value is a URL or a file name
  if (IsAppPassword(std::string_view(t).substr(i, 19)) && (i + 19 >= t.size() || !IsAlnum(t[i + 19]))) return true;
  size_t e = i;
  while (e < t.size() && e - i < kReach && !IsSpace(t[e]) && t[e] != '"' && t[e] != '\'' && t[e] != '`' &&
         t[e] != '|' && static_cast<unsigned char>(t[e]) < 0x80) {
    ++e;
  }
  // An HTML tag that closes the value's element ("…db!x</p>") is no part of it, nor is the end of a link's
  // text ("![管理密码 Tpl1nk#Home66](router.png)").
  const size_t tag = std::string_view(t).substr(i, e - i).find("</");
  if (tag != std::string_view::npos && tag > 0) e = i + tag;
  const size_t link = std::string_view(t).substr(i, e - i).find("](");
  if (link != std::string_view::npos && link > 0) e = i + link;
  size_t after = e;
  while (e > i && (t[e - 1] == '.' || t[e - 1] == ',' || t[e - 1] == ';' || t[e - 1] == ':' || t[e - 1] == ')' ||
                   t[e - 1] == '*')) {
    --e;
  }
  while (after < t.size() && (t[after] == ' ' || t[after] == '\t' || t[after] == '"' || t[after] == '\'' ||
                              t[after] == '`' || t[after] == '*' || t[after] == ',' || t[after] == ';')) {
    ++after;
  }
  // A comment after the value still leaves it the last thing on its line ("'…';   // QQ 邮箱授权码").
  bool ends_line = after >= t.size() || t[after] == '\n' || StartsWith(t, after, "//") || StartsWith(t, after, "# ") ||
                   StartsWith(t, after, "--");
  const std::string_view value = std::string_view(t).substr(i, e - i);
  if (random_only) return RandomValue(value) && SecretValue(value, Sep::kStrong, ends_line);
  return SecretValue(value, sep, ends_line);
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
  // A password in a connection URL ("jdbc:…?user=erp&password=Erp#2024db") is one whatever its length
  // (and its '#' no fragment).
  const std::string_view key = std::string_view(s.lower).substr(key_begin, key_end - key_begin);
  auto ends = [&](std::string_view e) { return key.size() >= e.size() && key.substr(key.size() - e.size()) == e; };
  const bool password = ends("password") || ends("passwd") || ends("pwd") || ends("pass");
  size_t b = key_end + 1;
  size_t e = b;
  while (e < t.size() && s.ZoneAt(e) == kUrl && t[e] != '&' && t[e] != ';' && (password || t[e] != '#')) ++e;
  std::string_view v = std::string_view(t).substr(b, e - b);
  bool digit = std::any_of(v.begin(), v.end(), IsDigit);
  bool letter = std::any_of(v.begin(), v.end(), IsAlpha);
  if (password && SecretValue(v, Sep::kStrong, false)) return true;
  return v.size() >= 20 && digit && letter;
}

}  // namespace

bool IsPlaceholder(std::string_view v) {
  static constexpr std::array<std::string_view, 40> kPlaceholders = {
      "123456",    "1234567",  "12345678",  "123456789", "1234567890", "111111",   "000000",  "666666",
      "888888",    "654321",   "112233",    "changeme",  "changeit",   "secret",   "admin",   "root",
      "test",      "example",  "qwerty",    "abc123",    "letmein",    "passw0rd", "p@ssw0rd", "p@ssword",
      "password1", "tiger",    "mysecret",  "mypassword", "yourpassword", "foobar", "dummy",  "sample",
      "新密码",    "你的密码", "你自己的密码", "密码",   "xxx",        "***",      "none",    "null"};
  if (std::find(kPlaceholders.begin(), kPlaceholders.end(), v) != kPlaceholders.end()) return true;
  for (std::string_view p : {"your", "xxxx", "example", "placeholder", "redacted", "dummy", "replace", "changeme"}) {
    if (Contains(v, p)) return true;
  }
  return !v.empty() && std::all_of(v.begin(), v.end(), [&](char c) { return c == v[0]; });
}

bool LooksLikeSecret(std::string_view cased) { return SecretValue(cased, Sep::kStrong, false); }

bool IsAppPassword(std::string_view v) {
  if (v.size() != 19) return false;
  for (size_t k = 0; k < 19; ++k) {
    if (k % 5 == 4 ? (v[k] != ' ' && v[k] != '-') || v[k] != v[4] : !IsLower(v[k])) return false;
  }
  return true;
}

bool IsPublicExample(std::string_view value) {
  // The otpauth format's seed, the Taiwan ID in every form's instructions, Azurite's development account key.
  static constexpr std::array<std::string_view, 19> kExamples = {
      "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
      "11010519491231002X",   "4111111111111111",  "4242424242424242", "5555555555554444", "378282246310005",
      "371449635398431",      "6011111111111117",  "3530111333300000", "5105105105105100", "4012888888881881",
      "4000056655665556",     "5200828282828210", "6200000000000005",
      "JBSWY3DPEHPK3PXP", "A123456789",
      "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="};
  // AWS's documentation marks its sample keys: AKIAI44QH8DHBEXAMPLE, …bEXAMPLEKEY.
  if (Contains(value, "EXAMPLE")) return true;
  std::string plain;
  for (char c : value) {
    if (c != ' ' && c != '-') plain.push_back(c);
  }
  for (std::string_view e : kExamples) {
    if (Contains(plain, e)) return true;
  }
  return false;
}

bool SecretAssignment(const Scan& s) {
  const std::string& l = s.lower;
  auto is_ident = [](char c) { return IsAlnum(c) || c == '_' || c == '-' || c == '.'; };
  for (const SecretKey& key : kAsciiKeys) {
    for (size_t at = l.find(key.word); at != std::string::npos; at = l.find(key.word, at + 1)) {
      Zone zone = s.ZoneAt(at);
      if (zone == kFile) continue;
      // Values under a SealedSecret's encryptedData are ciphertext only its controller can read.
      if (Contains(std::string_view(l).substr(at >= 400 ? at - 400 : 0, std::min<size_t>(at, 400)), "encrypteddata:")) {
        continue;
      }
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
        if (UrlParamSecret(s, b, e) && !DocumentedAt(s, at)) return true;
        continue;
      }
      size_t i = e;
      Sep sep = ReadSeparator(l, &i, /*chinese=*/false, StartsLine(l, b));
      if (key.strong_only && sep == Sep::kWeak) sep = Sep::kStrong;
      // A key named public is meant to be seen: publicKey, publishable_key, pub_key.
      // (Or named so by the word before it: "public key 188C…", "公钥".)
      if (key.random_only &&
          (Contains(std::string_view(l).substr(b, e - b), "pub") ||
           Contains(std::string_view(l).substr(b >= 12 ? b - 12 : 0, b >= 12 ? 12 : b), "public") ||
           Contains(std::string_view(l).substr(b >= 12 ? b - 12 : 0, b >= 12 ? 12 : b), "公钥"))) {
        continue;
      }
      if (sep != Sep::kNone && AssignedValue(s, i, sep, key.random_only) && !DocumentedAt(s, at)) return true;
    }
  }
  for (std::string_view key : kChineseKeys) {
    for (size_t at = l.find(key); at != std::string::npos; at = l.find(key, at + 1)) {
      if (s.ZoneAt(at) != kText) continue;
      size_t i = at + key.size();
      Sep sep = ReadSeparator(l, &i, /*chinese=*/true, StartsLine(l, at));
      if (sep != Sep::kNone && AssignedValue(s, i, sep)) return true;
    }
  }
  // Docker's config.json: "auth": "<base64 of user:password>".
  for (size_t at = l.find("\"auth\""); at != std::string::npos; at = l.find("\"auth\"", at + 1)) {
    size_t k = at + 6;
    while (k < l.size() && (l[k] == ' ' || l[k] == ':')) ++k;
    if (k >= l.size() || l[k] != '"') continue;
    const size_t close = l.find('"', k + 1);
    if (close == std::string::npos) continue;
    const std::string decoded = DecodeBase64Text(std::string_view(s.text).substr(k + 1, close - k - 1));
    const size_t colon = decoded.find(':');
    if (colon != std::string::npos && colon > 0 && SecretValue(decoded.substr(colon + 1), Sep::kStrong, false)) {
      return true;
    }
  }
  // "Authorization: Basic <base64 of user:password>".
  for (size_t at = l.find("basic "); at != std::string::npos; at = l.find("basic ", at + 1)) {
    if (s.ZoneAt(at) != kText || (at > 0 && IsAlnum(l[at - 1]))) continue;
    size_t e = at + 6;
    while (e < s.text.size() && (IsAlnum(s.text[e]) || s.text[e] == '+' || s.text[e] == '/' || s.text[e] == '=')) ++e;
    const std::string decoded = DecodeBase64Text(std::string_view(s.text).substr(at + 6, e - at - 6));
    const size_t colon = decoded.find(':');
    if (colon != std::string::npos && colon > 0 && SecretValue(decoded.substr(colon + 1), Sep::kStrong, false)) {
      return true;
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
    // postgres://postgres:postgres@…, guest:guest: an image's default, the same word twice.
    if (pass == common::AsciiLower(authority.substr(0, colon))) continue;
    static constexpr std::array<std::string_view, 9> kPlaceholders = {
        "password", "pass", "passwd", "pwd", "secret", "pw", "changeme", "mypassword", "yourpassword"};
    if (std::find(kPlaceholders.begin(), kPlaceholders.end(), pass) != kPlaceholders.end()) continue;
    if (IsPlaceholder(pass)) continue;
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
