// Content rules for secrets written the way people jot them down rather than
// configure them: a user and a password as a pair ("login/pass — ops-ro /
// Qx!Ops_R0", "u:" and "p:" lines, "hr_app/Pw@db-host:1521"), delimited
// exports (CSV, psql output, tables without outer bars), name/value pairs of
// deployment files, codes named by a label a few lines up (recovery codes,
// 2FA seeds, BitLocker keys, passports and their machine-readable zone), seed
// phrases as numbered lists or Chinese characters, base64 someone decodes on
// the next command, and prose ("reset it to …", "code is 7316").
#include <algorithm>
#include <cctype>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "common/utf8.h"
#include "sync/sensitive_scan.h"

namespace engram::sync::sensitive {

// Named, not anonymous: the module builds as one unity translation unit, and
// these helpers' names are the ones the other rule files use for theirs.
namespace labels {

// A secret here is typed on a keyboard: printable ASCII without spaces.
bool Secret(std::string_view v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return c > ' ' && c < 0x7F; }) &&
         LooksLikeSecret(v) && !IsPublicExample(v);
}

// A secret that needs no label to be one: letters, digits and a symbol, or
// upper and lower case with digits.
bool StrongSecret(std::string_view v) {
  if (v.size() < 6 || !Secret(v)) return false;
  bool digit = false, lower = false, upper = false, symbol = false;
  for (char c : v) {
    digit = digit || IsDigit(c);
    lower = lower || IsLower(c);
    upper = upper || IsUpper(c);
    symbol = symbol || (!IsAlnum(c) && c != '-' && c != '_' && c != '.');
  }
  return (digit && (lower || upper) && symbol) || (digit && lower && upper);
}

// The line holding t[at]: [*b, *e).
void LineAround(std::string_view t, size_t at, size_t* b, size_t* e) {
  const size_t nl = at == 0 ? std::string_view::npos : t.rfind('\n', at - 1);
  *b = nl == std::string_view::npos ? 0 : nl + 1;
  const size_t end = t.find('\n', at);
  *e = end == std::string_view::npos ? t.size() : end;
}

// Whether word occurs in s as a whole ASCII word (or anywhere, for Chinese).
bool HasWord(std::string_view s, std::string_view word) {
  if (static_cast<unsigned char>(word[0]) >= 0x80) return Contains(s, word);
  for (size_t at = s.find(word); at != std::string_view::npos; at = s.find(word, at + 1)) {
    const bool left = at == 0 || !IsAlnum(s[at - 1]);
    const size_t end = at + word.size();
    const bool right = end >= s.size() || !IsAlnum(s[end]);
    if (left && right) return true;
  }
  return false;
}

template <typename Words>
bool HasAnyWord(std::string_view s, const Words& words) {
  return std::any_of(std::begin(words), std::end(words), [&](std::string_view w) { return HasWord(s, w); });
}

// A token at t[i]: the run of characters that are not white space, quotes or delimiters.
std::string_view TokenAt(std::string_view t, size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\'' || t[i] == '"' || t[i] == '`')) ++i;
  size_t e = i;
  while (e < t.size() && !IsSpace(t[e]) && t[e] != '\'' && t[e] != '"' && t[e] != '`' && t[e] != '|' &&
         t[e] != ',' && t[e] != ';' && t[e] != '<' && static_cast<unsigned char>(t[e]) < 0x80) {
    ++e;
  }
  while (e > i && (t[e - 1] == '.' || t[e - 1] == ')' || t[e - 1] == ']')) --e;
  return t.substr(i, e - i);
}

// ---------------------------------------------------------------------------
// Pairs.
// ---------------------------------------------------------------------------

constexpr std::array<std::string_view, 13> kUserWords = {"user", "username", "uname", "login", "account", "acct",
                                                         "u",    "id",       "账号",  "帐号",  "用户名",  "用户",
                                                         "用户账号"};
constexpr std::array<std::string_view, 9> kPassWords = {"pass", "password", "passwd", "pwd", "pw", "p",
                                                        "密码", "口令",     "passcode"};

bool IsOneOf(std::string_view w, const auto& list) { return std::find(list.begin(), list.end(), w) != list.end(); }

// "uname/pwd = kiosk / Ki0sk_Lobby#2", "login/pass — ops-ro / Qx!Ops_R0", "账号/密码：a / b".
bool LabelledPair(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  for (size_t slash = l.find('/'); slash != std::string::npos; slash = l.find('/', slash + 1)) {
    size_t a = slash;
    while (a > 0 && l[a - 1] == ' ') --a;
    size_t ab = a;
    while (ab > 0 && (IsAlpha(l[ab - 1]) || static_cast<unsigned char>(l[ab - 1]) >= 0x80)) --ab;
    // Chinese has no word breaks: the user word is the longest listed one ending here.
    std::string_view first = std::string_view(l).substr(ab, a - ab);
    if (!first.empty() && static_cast<unsigned char>(first[0]) >= 0x80) {
      for (std::string_view w : kUserWords) {
        if (first.size() >= w.size() && first.substr(first.size() - w.size()) == w) first = w;
      }
    }
    if (!IsOneOf(first, kUserWords)) continue;
    size_t b = slash + 1;
    while (b < l.size() && l[b] == ' ') ++b;
    size_t be = b;
    while (be < l.size() && (IsAlpha(l[be]) || static_cast<unsigned char>(l[be]) >= 0x80)) ++be;
    std::string_view second = std::string_view(l).substr(b, be - b);
    for (std::string_view w : kPassWords) {
      if (static_cast<unsigned char>(w[0]) >= 0x80 && StartsWith(second, 0, w)) {
        second = w;
        be = b + w.size();
      }
    }
    if (!IsOneOf(second, kPassWords)) continue;
    // The separator, then "user / password" on the same line.
    size_t k = be;
    while (k < l.size() && (l[k] == ' ' || l[k] == ':' || l[k] == '=' || l[k] == '-' || l[k] == '\t')) ++k;
    const size_t eol = l.find('\n', k);
    const std::string_view rest = std::string_view(t).substr(k, (eol == std::string::npos ? l.size() : eol) - k);
    const size_t sep = rest.find('/');
    if (sep == std::string_view::npos || sep == 0 || sep > 64) continue;
    if (Secret(TokenAt(rest, sep + 1)) && !DocumentedAt(s, slash)) return true;
  }
  return false;
}

// "mailer@yunji-tech.cn / Smtp#Tpl2025": an address, a slash, and a password that looks like one.
bool AddressPair(const Scan& s) {
  const std::string& t = s.text;
  for (size_t slash = t.find('/'); slash != std::string::npos; slash = t.find('/', slash + 1)) {
    if (s.ZoneAt(slash) != kText) continue;
    size_t a = slash;
    while (a > 0 && t[a - 1] == ' ') --a;
    size_t b = a;
    while (b > 0 && (IsAlnum(t[b - 1]) || t[b - 1] == '@' || t[b - 1] == '.' || t[b - 1] == '_' || t[b - 1] == '-' ||
                     t[b - 1] == '+')) {
      --b;
    }
    const std::string_view account = std::string_view(t).substr(b, a - b);
    const size_t at = account.find('@');
    if (at == std::string_view::npos || at == 0 || account.find('.', at) == std::string_view::npos) continue;
    if (StrongSecret(TokenAt(t, slash + 1)) && !DocumentedAt(s, slash)) return true;
  }
  return false;
}

// "cht / D#h7IE6P1wwF", "login bw_test / wLMzCXBzM?g5J1", "BW-Offsite / Cx5GSsT7Bjdl&QDJ": a name, a slash
// with a space each side, and a password that looks like one (letters, digits and a symbol, or both cases and
// digits; not a version, a path or a file).
bool SlashPair(const Scan& s) {
  const std::string& t = s.text;
  for (size_t at = t.find(" / "); at != std::string::npos; at = t.find(" / ", at + 1)) {
    if (s.ZoneAt(at) != kText || at == 0 || !(IsAlnum(t[at - 1]) || t[at - 1] == '_' || t[at - 1] == '-')) continue;
    size_t b = at;
    while (b > 0 && (IsAlnum(t[b - 1]) || t[b - 1] == '_' || t[b - 1] == '-' || t[b - 1] == '.' || t[b - 1] == '@')) --b;
    if (at - b < 2) continue;
    const std::string_view v = TokenAt(t, at + 3);
    if (v.size() < 8 || Contains(v, "/") || (v[0] == 'v' && v.size() > 1 && IsDigit(v[1]))) continue;
    const size_t dot = v.rfind('.');
    if (dot != std::string_view::npos && v.size() - dot <= 5 &&
        std::all_of(v.begin() + static_cast<std::ptrdiff_t>(dot) + 1, v.end(), IsAlpha)) {
      continue;
    }
    // A symbol too: "Llama Guard / Qwen3Guard" compares names, "buf.length / Uint16Array.BYTES" divides.
    const bool symbol = std::any_of(v.begin(), v.end(), [](char c) { return !IsAlnum(c) && c != '-' && c != '_' && c != '.'; });
    if (symbol && StrongSecret(v) && !DocumentedAt(s, at)) return true;
  }
  return false;
}

// SQL: CREATE USER … IDENTIFIED BY '…', ALTER USER … WITH PASSWORD '…'.
bool SqlPassword(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  for (std::string_view phrase : {"identified by ", "with password ", "with encrypted password "}) {
    for (size_t at = l.find(phrase); at != std::string::npos; at = l.find(phrase, at + 1)) {
      const size_t v = at + phrase.size();
      if (v < t.size() && (t[v] == '\'' || t[v] == '"') && Secret(TokenAt(t, v)) && !DocumentedAt(s, at)) return true;
    }
  }
  return false;
}

// "u: jhartley77" then "p: Ruby-Tide-931": a password line right after a user line.
bool PairedLines(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  std::string_view previous;
  for (size_t start = 0; start < l.size();) {
    size_t end = l.find('\n', start);
    if (end == std::string::npos) end = l.size();
    std::string_view line = std::string_view(l).substr(start, end - start);
    size_t lead = 0;
    while (lead < line.size() && (line[lead] == ' ' || line[lead] == '-' || line[lead] == '*' || line[lead] == '>')) {
      ++lead;
    }
    line.remove_prefix(lead);
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos && colon <= 9 && IsOneOf(line.substr(0, colon), kPassWords)) {
      const size_t pc = previous.find(':');
      if (pc != std::string_view::npos && IsOneOf(previous.substr(0, pc), kUserWords) &&
          Secret(TokenAt(t, start + lead + colon + 1)) && !DocumentedAt(s, start)) {
        return true;
      }
    }
    previous = line;
    start = end + 1;
  }
  return false;
}

// A user and a password glued to a host without a scheme: "shop_rw:Sh0p#Rw2025@tcp(10.0.2.15:3306)/shop" (Go's
// MySQL DSN), "clusteradmin:Sh3ll!Adm@db-a.internal:3306" (mysqlsh --uri), "hr_app/Ora#Hr2025@10.3.4.5:1521/ORCL"
// (Oracle's easy connect and JDBC thin).
bool HostCredentials(const Scan& s) {
  const std::string& t = s.text;
  for (size_t at = t.find('@'); at != std::string::npos; at = t.find('@', at + 1)) {
    if (s.ZoneAt(at) == kFile) continue;
    // The host: "tcp(", an address, or a dotted name, then a port or a path.
    const std::string_view after = std::string_view(t).substr(at + 1, 80);
    size_t h = 0;
    bool host = StartsWith(after, 0, "tcp(") || StartsWith(after, 0, "unix(");
    if (!host) {
      bool dot = false;
      while (h < after.size() && (IsAlnum(after[h]) || after[h] == '.' || after[h] == '-' || after[h] == '_')) {
        dot = dot || after[h] == '.';
        ++h;
      }
      // A database host: a port or a path after it ("db-a.internal:3306", "10.3.4.5:1521/ORCL"), never an
      // address's domain alone ("libgit2@gmail.com").
      host = h > 0 && h + 1 < after.size() && ((after[h] == ':' && IsDigit(after[h + 1])) ||
                                               (after[h] == '/' && dot && IsAlnum(after[h + 1])));
    }
    if (!host) continue;
    // The credentials: back to white space, a quote or '=' — and not a URL (scheme://user:pass@ is another rule).
    size_t b = at;
    while (b > 0 && !IsSpace(t[b - 1]) && t[b - 1] != '"' && t[b - 1] != '\'' && t[b - 1] != '`' && t[b - 1] != '=' &&
           t[b - 1] != '(' && at - b < 128) {
      --b;
    }
    const std::string_view cred = std::string_view(t).substr(b, at - b);
    if (Contains(cred, "://") || Contains(cred, "@")) continue;
    size_t split = cred.find(':');
    bool strong_needed = false;
    if (split == std::string_view::npos) {
      split = cred.find('/');
      strong_needed = true;  // "org/image-v2@…" is a name; a password glued by '/' must look like one
      if (split == std::string_view::npos) continue;
      const std::string_view rest = cred.substr(split + 1);
      if (Contains(rest, "/")) continue;
    }
    const std::string_view user = cred.substr(0, split), pass = cred.substr(split + 1);
    for (std::string_view scheme : {"mailto", "xmpp", "sip", "sips", "tel", "im", "imap", "smtp", "git"}) {
      if (common::AsciiLower(user) == scheme) split = std::string_view::npos;
    }
    if (split == std::string_view::npos) continue;
    if (user.empty() || !std::all_of(user.begin(), user.end(), [](char c) {
          return IsAlnum(c) || c == '_' || c == '-' || c == '.';
        })) {
      continue;
    }
    if (common::AsciiLower(user) == common::AsciiLower(pass)) continue;  // postgres:postgres, a default
    if ((strong_needed ? StrongSecret(pass) : Secret(pass)) && !DocumentedAt(s, at)) return true;
  }
  return false;
}

// ~/.pgpass: host:port:database:user:password.
bool PgpassLine(const Scan& s) {
  const std::string& t = s.text;
  for (size_t start = 0; start < t.size();) {
    size_t end = t.find('\n', start);
    if (end == std::string::npos) end = t.size();
    std::string_view line = std::string_view(t).substr(start, end - start);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    std::vector<std::string_view> fields;
    for (size_t k = 0; fields.size() < 6;) {
      const size_t c = line.find(':', k);
      fields.push_back(line.substr(k, c == std::string_view::npos ? std::string_view::npos : c - k));
      if (c == std::string_view::npos) break;
      k = c + 1;
    }
    // (An IPv6 address "2001:4860:4860::8888" has an empty field; a host name is letters, digits, dots, '*'.)
    const bool host = !fields.empty() && !fields[0].empty() && std::all_of(fields[0].begin(), fields[0].end(), [](char c) {
      return IsAlnum(c) || c == '.' || c == '-' || c == '*' || c == '_';
    });
    if (fields.size() == 5 && host && !fields[2].empty() && !fields[3].empty() &&
        (fields[1] == "*" || (!fields[1].empty() && std::all_of(fields[1].begin(), fields[1].end(), IsDigit))) &&
        fields[4].find(' ') == std::string_view::npos && Secret(fields[4]) && !DocumentedAt(s, start)) {
      return true;
    }
    start = end + 1;
  }
  return false;
}

// ---------------------------------------------------------------------------
// Delimited exports: a header row naming a password column, then rows, split
// at ',' (CSV), '|' (psql, tables without outer bars) or tabs.
// ---------------------------------------------------------------------------

std::vector<std::string_view> Split(std::string_view line, char d) {
  std::vector<std::string_view> cells;
  while (true) {
    const size_t at = line.find(d);
    std::string_view c = line.substr(0, at);
    while (!c.empty() && (c.front() == ' ' || c.front() == '"' || c.front() == '\t')) c.remove_prefix(1);
    while (!c.empty() && (c.back() == ' ' || c.back() == '"' || c.back() == '\r' || c.back() == '\t')) c.remove_suffix(1);
    cells.push_back(c);
    if (at == std::string_view::npos) break;
    line.remove_prefix(at + 1);
  }
  return cells;
}

bool SecretColumnName(std::string_view c) {
  static constexpr std::array<std::string_view, 12> kNames = {
      "password", "passwd", "pwd", "pass", "secret", "secret access key", "secret key", "api_key",
      "apikey",   "token",  "api key", "access token"};
  for (std::string_view n : kNames) {
    if (c == n) return true;
    if (c.size() > n.size() && c.substr(c.size() - n.size()) == n && !IsAlnum(c[c.size() - n.size() - 1])) return true;
  }
  for (std::string_view zh : {"密码", "口令", "密钥", "秘钥"}) {
    if (Contains(c, zh)) return true;
  }
  return false;
}

bool DelimitedSecret(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  std::vector<std::string_view> lines, lowers;
  for (size_t start = 0; start <= t.size();) {
    size_t end = t.find('\n', start);
    if (end == std::string::npos) end = t.size();
    lines.push_back(std::string_view(t).substr(start, end - start));
    lowers.push_back(std::string_view(l).substr(start, end - start));
    start = end + 1;
  }
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    for (char d : {',', '|', '\t'}) {
      std::string_view header = lowers[i];
      while (!header.empty() && header.front() == ' ') header.remove_prefix(1);
      if (header.empty() || header.front() == '|' || header.find(d) == std::string_view::npos) continue;
      const std::vector<std::string_view> names = Split(header, d);
      if (names.size() < 2 || names.size() > 16) continue;
      // A header is short labels, not prose.
      if (!std::all_of(names.begin(), names.end(), [](std::string_view c) { return !c.empty() && c.size() <= 32; })) {
        continue;
      }
      std::vector<size_t> columns;
      for (size_t c = 0; c < names.size(); ++c) {
        if (SecretColumnName(names[c])) columns.push_back(c);
      }
      if (columns.empty()) continue;
      for (size_t r = i + 1; r < lines.size() && r < i + 64; ++r) {
        const std::string_view row = lines[r];
        if (row.find_first_not_of(" -+|=:\t") == std::string_view::npos) {
          if (row.empty()) break;
          continue;  // psql's "----+----"
        }
        const std::vector<std::string_view> cells = Split(row, d);
        // CSV rows have the header's cells; psql's and bar tables' may trail an empty one.
        if (d == ',' ? cells.size() != names.size() : (cells.size() + 1 < names.size() || cells.size() > names.size() + 1)) {
          break;
        }
        for (size_t c : columns) {
          if (c < cells.size() && cells[c].find(' ') == std::string_view::npos && Secret(cells[c]) &&
              !DocumentedAt(s, static_cast<size_t>(row.data() - t.data()))) {
            return true;
          }
        }
      }
    }
  }
  return false;
}

// ---------------------------------------------------------------------------
// Name/value pairs: Kubernetes "- name: DB_PASSWORD / value: …", ECS
// {"name": "JWT_SECRET", "value": "…"}, Terraform's tags.
// ---------------------------------------------------------------------------

bool SecretVariableName(std::string_view lower) {
  // Words split at '_' and '-': a password word among them, none that says the value is about one.
  bool keyed = false;
  for (size_t i = 0; i < lower.size();) {
    size_t e = i;
    while (e < lower.size() && IsAlnum(lower[e])) ++e;
    const std::string_view w = lower.substr(i, e - i);
    if (w == "password" || w == "passwd" || w == "pwd" || w == "pass" || w == "secret" || w == "token" ||
        w == "apikey" || w == "passphrase" || (w.size() > 8 && w.substr(w.size() - 8) == "password")) {
      keyed = true;
    }
    if (w == "file" || w == "path" || w == "url" || w == "id" || w == "name" || w == "ref" || w == "arn") return false;
    i = e + 1;
  }
  return keyed;
}

// A builder or setter named for a key: .apiV3Key("d1DOe…"), setClientSecret("…"), withToken('…') — the
// value random (letters of both cases and digits, 16 or more).
bool KeySetter(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  for (size_t at = t.find('('); at != std::string::npos; at = t.find('(', at + 1)) {
    if (at + 1 >= t.size() || (t[at + 1] != '"' && t[at + 1] != '\'')) continue;
    size_t b = at;
    while (b > 0 && (IsAlnum(t[b - 1]) || t[b - 1] == '_')) --b;
    const std::string_view name = std::string_view(l).substr(b, at - b);
    bool keyed = false;
    for (std::string_view end : {"key", "secret", "token", "password", "passwd"}) {
      keyed = keyed || (name.size() > end.size() && name.substr(name.size() - end.size()) == end);
    }
    if (!keyed || Contains(name, "path") || Contains(name, "file") || Contains(name, "name") || Contains(name, "id")) {
      continue;
    }
    const size_t close = t.find(t[at + 1], at + 2);
    if (close == std::string::npos || close - at > 200) continue;
    const std::string_view v = std::string_view(t).substr(at + 2, close - at - 2);
    if (v.size() >= 16 && StrongSecret(v) && !DocumentedAt(s, at)) return true;
  }
  return false;
}

bool NameValuePair(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  for (size_t at = l.find("name"); at != std::string::npos; at = l.find("name", at + 1)) {
    if ((at > 0 && IsAlnum(l[at - 1])) || (at + 4 < l.size() && IsAlnum(l[at + 4]))) continue;
    size_t k = at + 4;
    while (k < l.size() && (l[k] == '"' || l[k] == '\'' || l[k] == ' ')) ++k;
    if (k >= l.size() || (l[k] != ':' && l[k] != '=')) continue;
    ++k;
    while (k < l.size() && (l[k] == ' ' || l[k] == '"' || l[k] == '\'')) ++k;
    size_t e = k;
    while (e < l.size() && (IsAlnum(l[e]) || l[e] == '_' || l[e] == '-' || l[e] == '.')) ++e;
    if (!SecretVariableName(std::string_view(l).substr(k, e - k))) continue;
    const size_t v = l.find("value", e);
    if (v == std::string::npos || v - e > 160) continue;
    size_t i = v + 5;
    while (i < l.size() && (l[i] == '"' || l[i] == '\'' || l[i] == ' ')) ++i;
    if (i >= l.size() || (l[i] != ':' && l[i] != '=')) continue;
    ++i;
    if (Secret(TokenAt(t, i)) && !DocumentedAt(s, at)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------
// Codes named by a label up to a few lines above them.
// ---------------------------------------------------------------------------

// A code at t[b, e) in groups ("4OOZA-06QW7-S5IM4-2W02X-68A6A",
// "329505-294877-…", "F536-XQI3-B3TE-…") or one random run
// ("V26PPPYDHX63T3VHNGWDAV6UQX7XVBUM", "43jymarue0iapz2o4wh213gdtz9u9bzx").
bool CodeShape(std::string_view v) {
  size_t alnum = 0, groups = 0, digits = 0, letters = 0, hex = 0;
  bool upper = false, lower = false;
  size_t run = 0;
  for (size_t k = 0; k <= v.size(); ++k) {
    if (k < v.size() && IsAlnum(v[k])) {
      ++alnum;
      ++run;
      digits += IsDigit(v[k]);
      letters += IsAlpha(v[k]);
      hex += std::isxdigit(static_cast<unsigned char>(v[k])) != 0;
      upper = upper || IsUpper(v[k]);
      lower = lower || IsLower(v[k]);
      continue;
    }
    if (k < v.size() && v[k] != '-' && v[k] != ' ') return false;
    if (run > 0) ++groups;
    run = 0;
  }
  if (alnum < 16) return false;
  // A UUID, a hash or a hex id is not a code anyone types in.
  if (hex == alnum && letters > 0) return false;  // a fingerprint, a hash, a hex id
  if (hex == alnum && groups == 5 && v.size() == 36) return false;
  if (groups >= 4) return digits > 0 || (upper && lower);
  return digits >= 2 && letters >= 4 && (upper != lower || (upper && lower));
}

// Every candidate code in a window: runs of letters and digits joined by single '-' or ' '.
bool AnyCode(const Scan& s, size_t b, size_t e) {
  const std::string_view t = s.text;
  for (size_t k = b; k < e; ++k) {
    if (!IsAlnum(t[k]) || (k > 0 && (IsAlnum(t[k - 1]) || t[k - 1] == '_' || t[k - 1] == '/'))) continue;
    if (s.ZoneAt(k) != kText) continue;
    size_t j = k;
    while (j < e && (IsAlnum(t[j]) || ((t[j] == '-' || t[j] == ' ') && j + 1 < e && IsAlnum(t[j + 1])))) ++j;
    // Trim a trailing word joined by a space ("… PIN is separate"): a code's groups are alike.
    std::string_view v = t.substr(k, j - k);
    if (j < t.size() && (t[j] == '_' || t[j] == '.' || t[j] == '@') && j + 1 < t.size() && IsAlnum(t[j + 1])) {
      k = j;
      continue;  // part of an identifier, an address or a file name
    }
    if (Contains(v, " ")) {
      // Spaced groups must be the same length (recovery codes printed in blocks).
      std::vector<size_t> lens;
      size_t run = 0;
      for (char c : v) {
        if (c == ' ' || c == '-') {
          lens.push_back(run);
          run = 0;
        } else {
          ++run;
        }
      }
      lens.push_back(run);
      if (!std::all_of(lens.begin(), lens.end(), [&](size_t n) { return n == lens[0]; }) || lens[0] < 4) {
        k = j;
        continue;
      }
    }
    if (CodeShape(v) && !IsPublicExample(v)) return true;
    k = j;
  }
  return false;
}

bool LabelledCode(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  static constexpr std::array<std::string_view, 32> kLabels = {
      "recovery code", "recovery key",  "backup code",  "backup verification", "verification codes", "secret key",
      "emergency kit", "mfa",           "2fa",          "two-factor",          "totp",               "authenticator",
      "bitlocker",     "show secret",   "恢复代码",     "恢复码",              "恢复密钥",           "备用码",
      "备份码",        "两步验证",      "二次验证",     "两步登录",            "验证器",             "身份宝",
      "secret code",   "setup key",     "otp",          "两步骤验证",          "2-step",             "two-step",
      "二步验证",      "令牌恢复码"};
  for (std::string_view label : kLabels) {
    for (size_t at = l.find(label); at != std::string::npos; at = l.find(label, at + 1)) {
      if (s.ZoneAt(at) != kText) continue;
      if (IsAlpha(label[0]) && ((at > 0 && IsAlnum(l[at - 1])) ||
                                (at + label.size() < l.size() && IsAlpha(l[at + label.size()]) &&
                                 l[at + label.size()] != 's'))) {
        continue;
      }
      // The label's line and the four after it, up to a blank line past the first.
      size_t e = at + label.size();
      for (int lines = 0; lines < 5 && e < t.size(); ++lines) {
        const size_t nl = t.find('\n', e + 1);
        e = nl == std::string::npos ? t.size() : nl;
      }
      if (AnyCode(s, at + label.size(), std::min(e, at + 600)) && !DocumentedAt(s, at)) return true;
      // A short one-time code right after the label and a colon: Steam's "R64237".
      {
        size_t k = at + label.size();
        while (k < l.size() && k < at + label.size() + 40 && l[k] != ':' && l[k] != '\n') ++k;
        if (k < l.size() && l[k] == ':') {
          const std::string_view v = TokenAt(t, k + 1);
          const auto digits = std::count_if(v.begin(), v.end(), IsDigit);
          if (v.size() >= 6 && v.size() <= 12 && digits >= 4 &&
              std::all_of(v.begin(), v.end(), [](char c) { return IsUpper(c) || IsDigit(c); }) &&
              !(digits == static_cast<std::ptrdiff_t>(v.size()) && v.size() == 8 && (v[0] == '1' || v[0] == '2')) &&
              !DocumentedAt(s, at)) {
            return true;
          }
        }
      }
      // Google's printed backup codes: numbered pairs of four digits, several to a page.
      size_t pairs = 0;
      for (size_t k = at; k + 9 <= std::min(l.size(), at + 800); ++k) {
        if (IsDigit(t[k]) && (k == 0 || !IsAlnum(t[k - 1])) && k + 9 <= t.size() &&
            std::all_of(t.begin() + static_cast<std::ptrdiff_t>(k), t.begin() + static_cast<std::ptrdiff_t>(k + 4),
                        IsDigit) &&
            t[k + 4] == ' ' &&
            std::all_of(t.begin() + static_cast<std::ptrdiff_t>(k + 5), t.begin() + static_cast<std::ptrdiff_t>(k + 9),
                        IsDigit) &&
            (k + 9 == t.size() || !IsAlnum(t[k + 9]))) {
          if (++pairs >= 5) return true;
          k += 8;
        }
      }
    }
  }
  return false;
}

// Passports and travel permits named by a label in any of the languages a
// traveller's notes hold, the number anywhere in the next few words; and the
// machine-readable zone of a passport's photo page.
bool PassportNumber(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  static constexpr std::array<std::string_view, 13> kLabels = {
      "passport", "护照", "reisepass", "pasaporte", "passeport", "passaporto", "paspoort", "通行证", "台胞证",
      "旅行证", "证件号", "document number", "document no"};
  for (std::string_view label : kLabels) {
    for (size_t at = l.find(label); at != std::string::npos; at = l.find(label, at + 1)) {
      if (s.ZoneAt(at) != kText || (IsAlpha(label[0]) && at > 0 && IsAlpha(l[at - 1]))) continue;
      const bool permit = label == "通行证" || label == "台胞证" || label == "旅行证";
      const size_t stop = std::min(t.size(), at + label.size() + 90);
      for (size_t k = at + label.size(); k < stop; ++k) {
        if (!IsAlnum(t[k]) || IsAlnum(t[k - 1])) continue;
        size_t e = k;
        while (e < t.size() && IsAlnum(t[e])) ++e;
        if (e < t.size() && (t[e] == '-' || t[e] == '.' || t[e] == '/' || t[e] == ':') && e + 1 < t.size() &&
            IsDigit(t[e + 1])) {
          k = e;
          continue;  // a date, a time or a version
        }
        const std::string_view v = std::string_view(t).substr(k, e - k);
        size_t letters = 0;
        while (letters < v.size() && IsUpper(v[letters])) ++letters;
        const size_t digits = static_cast<size_t>(std::count_if(v.begin(), v.end(), IsDigit));
        const bool lettered = letters >= 1 && letters <= 2 && digits == v.size() - letters && digits >= 7 && digits <= 9;
        const bool numeric = digits == v.size() && (v.size() == 9 || (permit && v.size() == 8));
        // Germany, the Netherlands: nine capitals and digits mixed.
        const bool mixed = v.size() == 9 && digits >= 3 && digits <= 7 &&
                           std::all_of(v.begin(), v.end(), [](char c) { return IsUpper(c) || IsDigit(c); });
        if ((lettered || numeric || mixed) && !IsPlaceholder(common::AsciiLower(v)) && !DocumentedAt(s, at)) return true;
        k = e;
      }
    }
  }
  // MRZ: "P<" and 42 more of [A-Z<], then a line of 44 holding the number, birth date and expiry.
  for (size_t at = t.find("P<"); at != std::string::npos; at = t.find("P<", at + 1)) {
    if (at > 0 && t[at - 1] != '\n' && t[at - 1] != ' ' && t[at - 1] != '`') continue;
    size_t e = at;
    while (e < t.size() && (IsUpper(t[e]) || t[e] == '<')) ++e;
    if (e - at != 44 || e >= t.size() || t[e] != '\n') continue;
    const size_t b = e + 1;
    size_t f = b;
    size_t digits = 0;
    while (f < t.size() && (IsUpper(t[f]) || IsDigit(t[f]) || t[f] == '<')) digits += IsDigit(t[f++]);
    if (f - b == 44 && digits >= 12 && !DocumentedAt(s, at)) return true;
  }
  return false;
}

// Seed phrases written as a numbered list or grid ("1. stay", "| 1. manage |"),
// and Chinese ones: twelve or more single characters after the label.
bool SeedList(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  static constexpr std::array<std::string_view, 13> kWallet = {"seed", "mnemonic", "recovery phrase", "wallet",
                                                               "ledger", "trezor", "bip39", "助记词", "钱包",
                                                               "recovery sheet", "metamask", "coldcard", "keystone"};
  // Numbered words in order: 1 … 12 at least, in a note that names a wallet (looked for only then).
  size_t expect = 1;
  for (size_t k = 0; k < t.size(); ++k) {
    if (!IsDigit(t[k]) || (k > 0 && IsAlnum(t[k - 1]))) continue;
    size_t e = k;
    while (e < t.size() && IsDigit(t[e])) ++e;
    if (e - k > 2 || e >= t.size() || (t[e] != '.' && t[e] != ')')) {
      k = e;
      continue;
    }
    const size_t n = e - k == 1 ? static_cast<size_t>(t[k] - '0') : static_cast<size_t>((t[k] - '0') * 10 + (t[k + 1] - '0'));
    size_t w = e + 1;
    while (w < t.size() && t[w] == ' ') ++w;
    size_t we = w;
    while (we < t.size() && IsLower(t[we])) ++we;
    const bool word = we - w >= 3 && we - w <= 8 && (we >= t.size() || !IsAlnum(t[we]));
    if (word && n == expect) {
      ++expect;
      if (expect > 12 && HasAnyWord(l, kWallet)) return true;
    } else {
      // The list ended: 12, 15, 18, 21 or 24 words, numbered from one, are a seed's lengths.
      const size_t count = expect - 1;
      if ((count == 12 || count == 15 || count == 18 || count == 21 || count == 24)) return true;
      expect = word && n == 1 ? 2 : 1;
    }
    k = we;
  }
  {
    const size_t count = expect - 1;
    if (count == 12 || count == 15 || count == 18 || count == 21 || count == 24) return true;
  }
  // Chinese written together after a label: a line of exactly 12, 15, 18, 21 or 24 characters.
  for (size_t at = l.find("助记词"); at != std::string::npos; at = l.find("助记词", at + 1)) {
    size_t line = l.find('\n', at);
    for (int n = 0; n < 4 && line != std::string::npos; ++n) {
      const size_t b = line + 1;
      size_t e = l.find('\n', b);
      if (e == std::string::npos) e = l.size();
      const std::string_view row = std::string_view(t).substr(b, e - b);
      size_t chars = 0;
      bool cjk = !row.empty();
      for (size_t k = 0; k < row.size() && cjk; k += 3) {
        const unsigned char c = static_cast<unsigned char>(row[k]);
        cjk = c >= 0xE4 && c <= 0xE9 && k + 3 <= row.size();
        ++chars;
      }
      if (cjk && (chars == 12 || chars == 15 || chars == 18 || chars == 21 || chars == 24)) return true;
      line = e < l.size() ? e : std::string::npos;
    }
  }
  // Chinese: single characters separated by spaces or 、 after a label.
  for (std::string_view label : {"助记词", "mnemonic", "seed"}) {
    for (size_t at = l.find(label); at != std::string::npos; at = l.find(label, at + 1)) {
      size_t k = at + label.size();
      size_t chars = 0;
      const size_t stop = std::min(t.size(), k + 400);
      size_t line_start_chars = 0;
      while (k < stop) {
        const unsigned char c = static_cast<unsigned char>(t[k]);
        if (c >= 0xE0 && c < 0xF0 && k + 3 <= t.size()) {
          // One CJK character standing alone between separators.
          const size_t next = k + 3;
          const bool alone_after = next >= t.size() || t[next] == ' ' || t[next] == '\n' || StartsWith(t, next, "、") ||
                                   t[next] == ',';
          if (alone_after) {
            ++chars;
            if (chars - line_start_chars >= 12) return true;
          } else {
            chars = line_start_chars = 0;
          }
          k = next;
        } else if (t[k] == ' ' || t[k] == ',' || t[k] == '\n') {
          ++k;
        } else if (StartsWith(t, k, "、")) {
          k += 3;
        } else {
          chars = line_start_chars = 0;
          ++k;
        }
      }
    }
  }
  return false;
}

// ---------------------------------------------------------------------------
// Identity numbers of other places, each checked: Taiwan's national ID and
// resident certificate (ARC), Hong Kong's identity card, Singapore's NRIC/FIN,
// Japan's My Number, the US social security number.
// ---------------------------------------------------------------------------

bool TaiwanId(std::string_view v) {  // A123456789; the ARC of 2021 on has 8 or 9 as its second character
  if (v.size() != 10 || !IsUpper(v[0]) || (v[1] != '1' && v[1] != '2' && v[1] != '8' && v[1] != '9')) return false;
  static constexpr std::array<int, 26> kLetters = {10, 11, 12, 13, 14, 15, 16, 17, 34, 18, 19, 20, 21,
                                                   22, 35, 23, 24, 25, 26, 27, 28, 29, 32, 30, 31, 33};
  const int code = kLetters[static_cast<size_t>(v[0] - 'A')];
  int sum = code / 10 + (code % 10) * 9;
  for (size_t k = 1; k < 10; ++k) {
    if (!IsDigit(v[k])) return false;
    sum += (v[k] - '0') * (k == 9 ? 1 : static_cast<int>(9 - k));
  }
  return sum % 10 == 0 && !IsPublicExample(v);
}

bool HongKongId(std::string_view v) {  // A123456(7), the check digit in brackets, a space before them or not
  size_t letters = 0;
  while (letters < v.size() && letters < 2 && IsUpper(v[letters])) ++letters;
  if (letters < 1 || v.size() < letters + 7) return false;
  int sum = letters == 1 ? 36 * 9 : 0;
  for (size_t k = 0; k < letters; ++k) sum += (v[k] - 'A' + 10) * (letters == 1 ? 8 : 9 - static_cast<int>(k));
  for (size_t k = 0; k < 6; ++k) {
    if (!IsDigit(v[letters + k])) return false;
    sum += (v[letters + k] - '0') * (7 - static_cast<int>(k));
  }
  size_t c = letters + 6;
  if (c < v.size() && v[c] == ' ') ++c;
  if (c < v.size() && v[c] == '(') ++c;
  if (c >= v.size()) return false;
  const int check = v[c] == 'A' ? 10 : IsDigit(v[c]) ? v[c] - '0' : -1;
  return check >= 0 && (sum + check) % 11 == 0 && c > letters + 6;  // the check digit set apart
}

bool SingaporeId(std::string_view v) {  // S1234567D: weights 2 7 6 5 4 3 2, a letter table per prefix
  if (v.size() != 9 || (v[0] != 'S' && v[0] != 'T' && v[0] != 'F' && v[0] != 'G') || !IsUpper(v[8])) return false;
  static constexpr std::array<int, 7> kWeights = {2, 7, 6, 5, 4, 3, 2};
  int sum = (v[0] == 'T' || v[0] == 'G') ? 4 : 0;
  for (size_t k = 0; k < 7; ++k) {
    if (!IsDigit(v[k + 1])) return false;
    sum += (v[k + 1] - '0') * kWeights[k];
  }
  const std::string_view citizen = "JZIHGFEDCBA", foreigner = "XWUTRQPNMLK";
  const char want = (v[0] == 'S' || v[0] == 'T' ? citizen : foreigner)[static_cast<size_t>(sum % 11)];
  return v[8] == want;
}

bool MyNumber(std::string_view digits) {  // 12 digits, the last a check digit over the eleven before
  if (digits.size() != 12) return false;
  int sum = 0;
  for (size_t n = 1; n <= 11; ++n) {
    const int p = digits[11 - n] - '0';
    const int q = n <= 6 ? static_cast<int>(n) + 1 : static_cast<int>(n) - 5;
    sum += p * q;
  }
  const int r = sum % 11;
  const int check = r <= 1 ? 0 : 11 - r;
  return digits[11] - '0' == check;
}

bool IdentityNumber(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  // Any token, bounded by anything but a letter or digit, passing its check — Taiwan's and Singapore's carry a
  // letter and a check that few other codes pass; file names ("爸爸_H183659589_健保") hold them too.
  for (size_t k = 0; k + 9 <= t.size(); ++k) {
    if (!IsUpper(t[k]) || (k > 0 && IsAlnum(t[k - 1]))) continue;
    size_t e = k + 1;
    while (e < t.size() && IsAlnum(t[e])) ++e;
    const std::string_view v = std::string_view(t).substr(k, e - k);
    if ((TaiwanId(v) || SingaporeId(v)) && s.ZoneAt(k) != kUrl && !DocumentedAt(s, k)) {
      // A word of identity papers near it: an order number may pass the check by chance (one in ten).
      static constexpr std::array<std::string_view, 16> kContext = {
          "身分证", "身份证", "统一编号", "统一证号", "居留证", "健保", "户籍", "户口", "nric", "fin", "arc", "ui no",
          "national id", "id no", "id card", "identity"};
      const size_t from = k >= 90 ? k - 90 : 0;
      const std::string_view near = std::string_view(l).substr(from, std::min(l.size(), e + 60) - from);
      if (HasAnyWord(near, kContext)) return true;
    }
    k = e - 1;
  }
  // Labelled: Hong Kong's (a bracketed check digit), the US SSN, Japan's My Number.
  struct Label {
    std::string_view label;
    int kind;  // 0 Hong Kong, 1 SSN, 2 My Number
  };
  static constexpr std::array<Label, 12> kLabels = {{{"身份证", 0}, {"身分证", 0}, {"hkid", 0}, {"identity card", 0},
                                                     {"ssn", 1}, {"social security", 1}, {"マイナンバー", 2},
                                                     {"my number", 2}, {"個人番号", 2}, {"个人番号", 2},
                                                     {"mynumber", 2}, {"hong kong id", 0}}};
  for (const Label& lb : kLabels) {
    for (size_t at = l.find(lb.label); at != std::string::npos; at = l.find(lb.label, at + 1)) {
      if (IsAlpha(lb.label[0]) && at > 0 && IsAlpha(l[at - 1])) continue;
      const size_t stop = std::min(t.size(), at + lb.label.size() + 60);
      for (size_t k = at + lb.label.size(); k < stop; ++k) {
        if (!IsAlnum(t[k]) || IsAlnum(t[k - 1])) continue;
        if (lb.kind == 0 && HongKongId(std::string_view(t).substr(k, 12)) && !DocumentedAt(s, k)) return true;
        if (lb.kind == 1 && k + 11 <= t.size() && t[k + 3] == '-' && t[k + 6] == '-') {
          const std::string_view v = std::string_view(t).substr(k, 11);
          const bool digits = std::all_of(v.begin(), v.end(), [](char c) { return IsDigit(c) || c == '-'; });
          const bool bounded = k + 11 >= t.size() || !IsAlnum(t[k + 11]);
          const int area = (v[0] - '0') * 100 + (v[1] - '0') * 10 + (v[2] - '0');
          if (digits && bounded && area != 0 && area != 666 && area < 900 && v.substr(4, 2) != "00" &&
              v.substr(7) != "0000") {
            return true;
          }
        }
        if (lb.kind == 2) {
          std::string d;
          size_t e = k;
          while (e < t.size() && d.size() < 13 && (IsDigit(t[e]) || (t[e] == ' ' && e + 1 < t.size() && IsDigit(t[e + 1])) ||
                                                  (t[e] == '-' && e + 1 < t.size() && IsDigit(t[e + 1])))) {
            if (IsDigit(t[e])) d.push_back(t[e]);
            ++e;
          }
          if (MyNumber(d) && (e >= t.size() || !IsAlnum(t[e]))) return true;
        }
      }
    }
  }
  return false;
}

// ---------------------------------------------------------------------------
// Prose: "reset it to Harbor-Lights-19", "the lockbox … code is 7316".
// ---------------------------------------------------------------------------

bool ProseSecret(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  static constexpr std::array<std::string_view, 12> kAccountWords = {
      "password", "passcode", "login", "log in", "sign in", "account", "locked out", "pin", "密码", "账号", "登录",
      "口令"};
  for (std::string_view verb : {"reset it to ", "changed it to ", "set it to ", "reset to ", "changed to ",
                                "set to ", "updated it to "}) {
    for (size_t at = l.find(verb); at != std::string::npos; at = l.find(verb, at + 1)) {
      size_t b = 0, e = 0;
      LineAround(l, at, &b, &e);
      const std::string_view before = std::string_view(l).substr(b, at - b);
      if (!HasAnyWord(before, kAccountWords)) continue;
      if (StrongSecret(TokenAt(t, at + verb.size()))) return true;
    }
  }
  // Chinese: "新密码是她名字拼音缩写加生日 zm19910523", "最后用了 Bv6G14+fWI" — a verb of setting after the
  // label, then the first keyboard token of the sentence.
  for (size_t at = l.find("密码"); at != std::string::npos; at = l.find("密码", at + 1)) {
    size_t end = at;
    while (end < l.size() && end < at + 150 && l[end] != '\n' && !StartsWith(l, end, "。")) ++end;
    const std::string_view sentence = std::string_view(l).substr(at, end - at);
    if (Contains(sentence, "?")) continue;  // a question about it
    size_t verb = std::string_view::npos;
    for (std::string_view v : {"是", "为", "用了", "换成", "改成", "设成", "设为", "改为", "设置为", "换了", "换掉"}) {
      verb = std::min(verb, sentence.find(v));
    }
    // The verb right after the label (a word or two between at most), and not "是否" (whether).
    if (verb == std::string_view::npos || verb > 6 + 12 || StartsWith(sentence, verb, "是否")) continue;
    for (size_t k = at + verb; k < end; ++k) {
      if (static_cast<unsigned char>(t[k]) >= 0x80 || !(IsAlnum(t[k]) || std::ispunct(static_cast<unsigned char>(t[k])))) {
        continue;
      }
      const std::string_view v = TokenAt(t, k);
      if (v.size() >= 6 && Secret(v) && std::any_of(v.begin(), v.end(), IsDigit) &&
          std::any_of(v.begin(), v.end(), IsAlpha)) {
        return true;
      }
      k += std::max<size_t>(v.size(), 1) - 1;
    }
  }
  // A chat asking for a password, answered on the next line: "…密码多少" / "我：107046 啦".
  for (std::string_view ask : {"密码多少", "密码是多少", "密码是什么", "what's the password", "what is the password",
                               "password?"}) {
    for (size_t at = l.find(ask); at != std::string::npos; at = l.find(ask, at + 1)) {
      const size_t nl = l.find('\n', at);
      if (nl == std::string::npos) continue;
      size_t e = l.find('\n', nl + 1);
      if (e == std::string::npos) e = l.size();
      for (size_t k = nl + 1; k < e; ++k) {
        if (!IsDigit(t[k]) || IsAlnum(t[k - 1])) continue;
        size_t d = k;
        while (d < e && IsDigit(t[d])) ++d;
        if (d - k >= 4 && d - k <= 8 && (d >= t.size() || !IsAlnum(t[d]))) return true;
        k = d;
      }
      if (Secret(TokenAt(t, nl + 1))) return true;
    }
  }
  // A door, gate or lockbox code: "code is 7316", "code: 5829#", in a sentence about one.
  static constexpr std::array<std::string_view, 13> kDoorWords = {
      "lockbox", "lock box", "key box", "keybox", "door", "gate", "garage", "alarm", "keypad", "safe", "padlock",
      "entry", "building"};
  for (std::string_view code : {"code is ", "code: ", "code "}) {
    for (size_t at = l.find(code); at != std::string::npos; at = l.find(code, at + 1)) {
      if (at > 0 && IsAlpha(l[at - 1])) continue;
      size_t b = 0, e = 0;
      LineAround(l, at, &b, &e);
      if (!HasAnyWord(std::string_view(l).substr(b, e - b), kDoorWords)) continue;
      size_t k = at + code.size();
      size_t d = k;
      while (d < t.size() && (IsDigit(t[d]) || t[d] == '#' || t[d] == '*')) ++d;
      const auto digits = std::count_if(t.begin() + static_cast<std::ptrdiff_t>(k),
                                        t.begin() + static_cast<std::ptrdiff_t>(d), IsDigit);
      if (digits >= 4 && digits <= 8 && (d >= t.size() || !IsAlpha(t[d]))) {
        const std::string v(std::string_view(t).substr(k, d - k));
        if (!IsPlaceholder(v) && !(digits == 4 && (v.rfind("19", 0) == 0 || v.rfind("20", 0) == 0))) return true;
      }
    }
  }
  return false;
}

// ---------------------------------------------------------------------------
// Base64 decoded on the spot: "echo '…' | base64 -d", b64decode("…"), and the
// value printed under "kubectl get secret … {.data.password}".
// ---------------------------------------------------------------------------

std::string FromBase64(std::string_view b) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : b) {
    const int v = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52
                  : c == '+' || c == '-' ? 62 : c == '/' || c == '_' ? 63 : c == '=' ? -2 : -1;
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

bool DecodedBase64(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  auto any_token = [&](size_t b, size_t e) {
    for (size_t k = b; k < e; ++k) {
      const bool b64 = IsAlnum(t[k]) || t[k] == '+' || t[k] == '/';
      if (!b64 || (k > 0 && (IsAlnum(t[k - 1]) || t[k - 1] == '+' || t[k - 1] == '/' || t[k - 1] == '-'))) continue;
      size_t j = k;
      while (j < e && (IsAlnum(t[j]) || t[j] == '+' || t[j] == '/' || t[j] == '=')) ++j;
      const std::string_view v = std::string_view(t).substr(k, j - k);
      if (v.size() >= 12 && v.size() % 4 == 0 && std::any_of(v.begin(), v.end(), IsDigit)) {
        const std::string decoded = FromBase64(v);
        if (decoded.size() >= 6 && decoded.find(' ') == std::string::npos && Secret(decoded)) return true;
        // A mail client's authorisation code is letters alone ("qwhsxkzmlpdftrbn"): one when the line says so.
        const std::string_view line_lower = std::string_view(l).substr(b, e - b);
        if (decoded.size() >= 12 && std::all_of(decoded.begin(), decoded.end(), IsAlpha) &&
            (Contains(line_lower, "pass") || Contains(line_lower, "pwd") || Contains(line_lower, "secret") ||
             Contains(line_lower, "token") || Contains(line_lower, "密码") || Contains(line_lower, "授权码"))) {
          return true;
        }
      }
      k = j;
    }
    return false;
  };
  for (std::string_view marker : {"base64 -d", "base64 --decode", "base64 -D", "b64decode", "atob(",
                                  "frombase64string", "base64.getdecoder", "base64_decode"}) {
    for (size_t at = l.find(marker); at != std::string::npos; at = l.find(marker, at + 1)) {
      size_t b = 0, e = 0;
      LineAround(l, at, &b, &e);
      if (any_token(b, e)) return true;
    }
  }
  for (size_t at = l.find("get secret"); at != std::string::npos; at = l.find("get secret", at + 1)) {
    size_t b = 0, e = 0;
    LineAround(l, at, &b, &e);
    if (!Contains(std::string_view(l).substr(b, e - b), "password") && !Contains(std::string_view(l).substr(b, e - b), "token")) {
      continue;
    }
    size_t nb = e + 1, ne = e + 1;
    if (nb < t.size()) LineAround(l, nb, &nb, &ne);
    if (nb < t.size() && any_token(nb, ne)) return true;
  }
  return false;
}

}  // namespace labels

bool CredentialPair(const Scan& s) {
  using namespace labels;
  return LabelledPair(s) || AddressPair(s) || SlashPair(s) || SqlPassword(s) || PairedLines(s) || HostCredentials(s) ||
         PgpassLine(s) ||
         DelimitedSecret(s) || NameValuePair(s) || KeySetter(s);
}

bool LabelledSecret(const Scan& s) {
  using namespace labels;
  return LabelledCode(s) || PassportNumber(s) || SeedList(s) || ProseSecret(s) || DecodedBase64(s) ||
         IdentityNumber(s);
}

}  // namespace engram::sync::sensitive
