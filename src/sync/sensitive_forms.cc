// Content rules for secrets in the forms people paste them in beyond a
// "key = value" line: command lines (mysql -p…, sshpass -p, curl -u), markup
// (XML elements, <add key=… value=…>, define('DB_PASSWORD', …)), tables
// whose column is a password, private-key bodies without their header line
// (and base64 of a whole PEM block), vendor tokens and webhook URLs by their
// shape, and personal secrets named by a label (a card PIN, a door code, a
// passport or Hong Kong ID number, a Wi-Fi QR string, a seed phrase, 2FA
// seeds and recovery codes).
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/utf8.h"
#include "sync/sensitive_scan.h"

namespace engram::sync::sensitive {

namespace {

bool IsWordByte(char c) { return IsAlnum(c) || c == '_'; }

// A name that says its value is a secret: its words (split at anything but a
// letter or digit) hold a password word, or end in one ("SmtpPassword",
// "client_secret", "AppSecret"), and none that says it is about one (an id,
// a URL, a type, a hint).
bool SecretName(std::string_view lower) {
  static constexpr std::array<std::string_view, 9> kWords = {"password", "passwd", "pwd",    "pass",      "secret",
                                                             "token",    "apikey", "passphrase", "pw"};
  static constexpr std::array<std::string_view, 6> kEnds = {"password", "passwd", "secret", "token", "secretkey",
                                                            "accountkey"};
  static constexpr std::array<std::string_view, 16> kNot = {"id",   "url",   "uri",  "type",   "name",  "hint",
                                                            "user", "reset", "file", "path",   "length", "policy",
                                                            "expires", "ttl", "header", "username"};
  bool keyed = false;
  for (size_t i = 0; i < lower.size();) {
    while (i < lower.size() && !IsAlnum(lower[i])) ++i;
    size_t e = i;
    while (e < lower.size() && IsAlnum(lower[e])) ++e;
    const std::string_view w = lower.substr(i, e - i);
    if (w.empty()) break;
    if (std::find(kNot.begin(), kNot.end(), w) != kNot.end()) return false;
    if (std::find(kWords.begin(), kWords.end(), w) != kWords.end()) keyed = true;
    for (std::string_view end : kEnds) {
      if (w.size() > end.size() && w.substr(w.size() - end.size()) == end) keyed = true;
    }
    i = e;
  }
  return keyed;
}

// The value that starts at t[i] (past spaces and one opening quote): up to a
// closing quote when it opened with one, else up to white space or a
// delimiter.
std::string_view ValueAt(std::string_view t, size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i;
  if (i < t.size() && (t[i] == '\'' || t[i] == '"' || t[i] == '`')) {
    const char q = t[i];
    const size_t close = t.substr(i + 1, kReach).find(q);
    if (close == std::string_view::npos) return {};
    const std::string_view v = t.substr(i + 1, close);
    return v.find('\n') == std::string_view::npos ? v : std::string_view();
  }
  size_t e = i;
  while (e < t.size() && e - i < kReach && !IsSpace(t[e]) && t[e] != '|' && t[e] != '<' && t[e] != ',' &&
         t[e] != ';' && t[e] != '"' && t[e] != '\'' && t[e] != '`' && t[e] != ')' &&
         static_cast<unsigned char>(t[e]) < 0x80) {
    ++e;
  }
  return t.substr(i, e - i);
}

bool Secret(std::string_view v) { return !v.empty() && LooksLikeSecret(v) && !IsPublicExample(v); }

// At least min characters mixing digits with letters, or both cases.
bool RandomRun(std::string_view v, size_t min) {
  if (v.size() < min) return false;
  bool digit = false, lower = false, upper = false;
  for (char c : v) {
    digit = digit || IsDigit(c);
    lower = lower || IsLower(c);
    upper = upper || IsUpper(c);
  }
  return (digit && (lower || upper)) || (lower && upper);
}

// Each line of t, with its start offset.
template <typename Fn>
bool AnyLine(std::string_view t, Fn&& fn) {
  for (size_t start = 0; start < t.size();) {
    size_t end = t.find('\n', start);
    if (end == std::string_view::npos) end = t.size();
    if (fn(t.substr(start, end - start), start)) return true;
    start = end + 1;
  }
  return false;
}

// The whitespace-separated words of a command line. Quotes do not join
// words: a command quoted inside another ("-e \"sshpass -p 'x' ssh\"") is
// read as its own words, and passwords seldom hold spaces.
std::vector<std::string_view> Words(std::string_view line) {
  std::vector<std::string_view> out;
  for (size_t i = 0; i < line.size();) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size()) break;
    size_t e = i;
    while (e < line.size() && line[e] != ' ' && line[e] != '\t') ++e;
    out.push_back(line.substr(i, e - i));
    i = e;
  }
  return out;
}

// A word without the quotes around it (either side alone too: "sshpass … 'x'\"").
// Also the punctuation of a JSON array around it: ["CMD", "mariadb-admin", "-p…"].
std::string_view Unquoted(std::string_view w) {
  while (!w.empty() && (w.front() == '\'' || w.front() == '"' || w.front() == '[')) w.remove_prefix(1);
  while (!w.empty() && (w.back() == ']' || w.back() == ',')) w.remove_suffix(1);
  while (!w.empty() && (w.back() == '\'' || w.back() == '"')) w.remove_suffix(1);
  return w;
}

// Programs that take a password on their command line.
bool IsPasswordProgram(std::string_view p) {
  static constexpr std::array<std::string_view, 39> kPrograms = {
      "mariadb-admin", "mariadb-dump", "ipmitool", "mydumper", "myloader", "gpg",
      "mysql",  "mysqldump", "mysqladmin", "mariadb", "mysqlimport", "mysqlsh",  "mysqlcheck", "sshpass", "mongo",
      "mongosh", "mongodump", "mongorestore", "sqlcmd", "ldapsearch", "ldapmodify", "ldapadd",  "redis-cli",
      "zip",    "unzip",     "smbpasswd",  "7z",      "7za",         "curl",     "wget",       "smbclient",
      "htpasswd", "docker",  "podman",     "az",      "keytool",     "openssl",  "rabbitmqctl", "psql"};
  return std::find(kPrograms.begin(), kPrograms.end(), p) != kPrograms.end();
}

}  // namespace

// ---------------------------------------------------------------------------
// Command lines: the options that carry a password.
// ---------------------------------------------------------------------------

bool CommandLinePassword(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  // Programs whose -p glues the password to it (mysql -pSECRET), and what each
  // takes after a separate flag.
  static constexpr std::array<std::string_view, 9> kGluedP = {"mysql",  "mysqldump", "mysqladmin", "mariadb",
                                                              "mysqlimport", "mysqlsh", "mysqlcheck",
                                                              "mariadb-admin", "mariadb-dump"};
  struct Flag {
    std::string_view program, flag;
    std::string_view subcommand = {};  // the flag means a password only after it ("docker login -p", not "docker run -p")
  };
  static constexpr std::array<Flag, 22> kFlags = {{{"sshpass", "-p"},
                                                   {"ipmitool", "-P"},
                                                   {"mydumper", "-p"},
                                                   {"myloader", "-p"},
                                                   {"mongo", "-p"},
                                                   {"mongosh", "-p"},
                                                   {"mongodump", "-p"},
                                                   {"sqlcmd", "-P"},
                                                   {"ldapsearch", "-w"},
                                                   {"ldapmodify", "-w"},
                                                   {"ldapadd", "-w"},
                                                   {"redis-cli", "-a"},
                                                   {"zip", "-P"},
                                                   {"unzip", "-P"},
                                                   {"smbpasswd", "-w"},
                                                   {"docker", "-p", "login"},
                                                   {"podman", "-p", "login"},
                                                   {"az", "-p", "login"},
                                                   {"keytool", "-storepass"},
                                                   {"keytool", "-keypass"},
                                                   {"keytool", "-srcstorepass"},
                                                   {"psql", "-W"}}};
  bool expecting = false;  // an expect script waits for a password prompt
  std::string continued;   // the program of a line that ended in a shell continuation ('\\')
  return AnyLine(t, [&](std::string_view line, size_t start) {
    std::string carried = std::move(continued);
    continued.clear();
    std::string_view trimmed = line;
    while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\r')) trimmed.remove_suffix(1);
    const bool continues = !trimmed.empty() && trimmed.back() == '\\';
    const std::string_view lower = std::string_view(l).substr(start, line.size());
    if (lower.find("assword") != std::string_view::npos && lower.find("expect") != std::string_view::npos) {
      expecting = true;
      return false;
    }
    const std::vector<std::string_view> words = Words(line);
    std::string program = carried;  // the last program named on the line that takes a password
    size_t program_at = 0;
    // Whatever the line finds, the program it leaves runs on into the next line when this one continues.
    struct Carry {
      const bool& continues;
      const std::string& program;
      std::string& out;
      ~Carry() {
        if (continues) out = program;
      }
    } carry{continues, program, continued};
    for (size_t k = 0; k < words.size(); ++k) {
      const std::string_view w = Unquoted(words[k]);
      std::string lw = std::string(Unquoted(lower.substr(static_cast<size_t>(words[k].data() - line.data()),
                                                          words[k].size())));
      // A program name, possibly with a path: /usr/bin/mysql, "sshpass".
      const std::string base = lw.substr(lw.rfind('/') == std::string::npos ? 0 : lw.rfind('/') + 1);
      if (IsPasswordProgram(base)) {
        program = base;
        program_at = k;
        continue;
      }
      auto next = [&]() -> std::string_view { return k + 1 < words.size() ? Unquoted(words[k + 1]) : ""; };
      // curl -u user:V, --user user:V; smbclient -U user%V
      if ((program == "curl" || program == "wget") && (w == "-u" || lw == "--user")) {
        const std::string_view cred = next();
        const size_t colon = cred.find(':');
        if (colon != std::string_view::npos && Secret(cred.substr(colon + 1))) return true;
      }
      // --password=V, --password V, --passwd, --pass, --http-password=, --requirepass V
      if (lw.rfind("--", 0) == 0) {
        const size_t eq = lw.find('=');
        const std::string name = lw.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
        if (name == "password" || name == "passwd" || name == "pass" || name == "http-password" || name == "passphrase" ||
            name == "ftp-password" || name == "requirepass" || name == "auth-password" || name == "db-password") {
          const std::string_view v = eq == std::string::npos ? next() : Unquoted(w.substr(eq + 1));
          if (Secret(v)) return true;
        }
        continue;
      }
      // PowerShell and Windows tools: -Password 'V', -Pass V, -pw V (any program: the parameter says it).
      if (lw == "-password" || lw == "-passwd" || lw == "-pass" || lw == "-pw" || lw == "-passphrase") {
        if (Secret(next())) return true;
      }
      // mysql -pSECRET (glued: -p alone asks for it), 7z -pSECRET
      if ((std::find(kGluedP.begin(), kGluedP.end(), program) != kGluedP.end() || program == "7z" || program == "7za") &&
          w.size() > 2 && w[0] == '-' && w[1] == 'p') {
        if (Secret(Unquoted(w.substr(2)))) return true;
      }
      for (const Flag& f : kFlags) {
        if (program != f.program || w != f.flag) continue;
        if (!f.subcommand.empty() && (program_at + 1 >= words.size() || Unquoted(words[program_at + 1]) != f.subcommand)) {
          continue;
        }
        if (Secret(next())) return true;
      }
      if (program == "smbclient" && w == "-U") {
        const std::string_view cred = next();
        const size_t pct = cred.find('%');
        if (pct != std::string_view::npos && Secret(cred.substr(pct + 1))) return true;
      }
      // openssl … -passout pass:SECRET, -passin pass:SECRET, -k SECRET
      if (program == "openssl" && (lw == "-passout" || lw == "-passin" || lw == "-pass")) {
        const std::string_view v = next();
        if (v.substr(0, 5) == "pass:" && Secret(v.substr(5))) return true;
      }
      // rclone obscure 'PASSWORD' (what "rclone config create … pass $(rclone obscure …)" stores)
      if (lw == "obscure" && k > 0 && Unquoted(lower.substr(static_cast<size_t>(words[k - 1].data() - line.data()),
                                                             words[k - 1].size())).ends_with("rclone") &&
          Secret(Unquoted(next()))) {
        return true;
      }
      // rabbitmqctl add_user USER PASSWORD
      if (program == "rabbitmqctl" && (lw == "add_user" || lw == "change_password") && k + 2 < words.size() &&
          Secret(Unquoted(words[k + 2]))) {
        return true;
      }
      // net use \\host\share PASSWORD /user:NAME — and "/user:NAME PASSWORD"
      if (lw.rfind("/user:", 0) == 0 && lower.find("net use") != std::string_view::npos) {
        if (Secret(next()) || (k > 0 && Secret(Unquoted(words[k - 1])) && words[k - 1].find('\\') == std::string::npos)) {
          return true;
        }
      }
      // echo 'SECRET' | sudo -S …
      if (lw == "echo" && k + 2 < words.size() && words[k + 2] == "|" && k + 3 < words.size() &&
          Unquoted(words[k + 3]) == "sudo" && Secret(Unquoted(words[k + 1]))) {
        return true;
      }
      // htpasswd -b[c] FILE USER PASSWORD: the third word that is no option
      if (program == "htpasswd" && k == program_at + 1) {
        std::vector<std::string_view> positional;
        bool batch = false;
        for (size_t j = k; j < words.size(); ++j) {
          const std::string_view a = Unquoted(words[j]);
          if (!a.empty() && a[0] == '-') {
            batch = batch || a.find('b') != std::string_view::npos;
          } else {
            positional.push_back(a);
          }
        }
        if (batch && positional.size() >= 3 && Secret(positional[2])) return true;
      }
      // expect: send "SECRET\r" after a password prompt
      if (expecting && lw == "send" && k + 1 < words.size()) {
        std::string_view v = Unquoted(words[k + 1]);
        for (std::string_view end : {"\\r", "\\n"}) {
          if (v.size() > end.size() && v.substr(v.size() - end.size()) == end) v.remove_suffix(end.size());
        }
        if (Secret(v)) return true;
      }
    }
    return false;
  });
}

// ---------------------------------------------------------------------------
// Markup: <password>V</password>, <add key="SmtpPassword" value="V" />,
// define('DB_PASSWORD', 'V'), Pass="V" attributes.
// ---------------------------------------------------------------------------

bool MarkupPassword(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  // Database connections in code, the password the last string argument:
  // new PDO($dsn, 'user', 'pass'), mysqli_connect('h', 'u', 'p'), DriverManager.getConnection(url, "u", "p").
  for (std::string_view call : {"new pdo(", "mysqli(", "mysqli_connect(", "mysql_connect(", "getconnection(",
                                "pg_connect(", "sqlsrv_connect(", "oci_connect(", "credentials(", "newmac(",
                                "basicawscredentials(", "credential(", ".login(", "auth(", "networkcredential(", "plainauth(",
                                "ftp.open(", "ftp.new(", "client(", ".connect("}) {
    for (size_t at = l.find(call); at != std::string::npos; at = l.find(call, at + 1)) {
      const size_t close = l.find(')', at + call.size());
      if (close == std::string::npos || close - at > 400) continue;
      std::string_view last;
      size_t strings = 0;
      bool strong = false;  // a later argument with letters, digits and a symbol: NetworkCredential(user, PASS, domain)
      for (size_t k = at + call.size(); k < close; ++k) {
        if (t[k] != '\'' && t[k] != '"') continue;
        const size_t end = t.find(t[k], k + 1);
        if (end == std::string::npos || end > close) break;
        last = std::string_view(t).substr(k + 1, end - k - 1);
        if (++strings >= 2 && IsAppPassword(last)) strong = true;
        if (strings >= 2 && Secret(last) && std::any_of(last.begin(), last.end(), IsDigit) &&
            std::any_of(last.begin(), last.end(), IsAlpha) &&
            std::any_of(last.begin(), last.end(), [](char c) { return !IsAlnum(c) && c != '_' && c != '-' && c != '.'; })) {
          strong = true;
        }
        k = end;
      }
      if (strong || (strings >= 2 && Secret(last))) return true;
    }
  }
  // Elements: <name …>value</name>
  for (size_t at = l.find('<'); at != std::string::npos; at = l.find('<', at + 1)) {
    if (at + 1 >= l.size() || !IsAlpha(l[at + 1])) continue;
    size_t e = at + 1;
    while (e < l.size() && (IsWordByte(l[e]) || l[e] == ':' || l[e] == '-' || l[e] == '.')) ++e;
    std::string_view name = std::string_view(l).substr(at + 1, e - at - 1);
    if (const size_t colon = name.rfind(':'); colon != std::string_view::npos) name.remove_prefix(colon + 1);
    const size_t close = l.find('>', e);
    if (close == std::string::npos || close - at > kReach) continue;
    const std::string_view tag = std::string_view(l).substr(at, close - at);
    // <add key="…Password" value="…"/>, <entry name="…" value="…">: the name's attribute says what the value is.
    for (std::string_view attr : {"key=\"", "name=\"", "key='", "name='"}) {
      const size_t k = tag.find(attr);
      if (k == std::string_view::npos) continue;
      const size_t kend = tag.find(attr.back(), k + attr.size());
      if (kend == std::string_view::npos || !SecretName(tag.substr(k + attr.size(), kend - k - attr.size()))) continue;
      for (std::string_view vattr : {"value=\"", "value='"}) {
        const size_t v = tag.find(vattr);
        if (v == std::string_view::npos) continue;
        const size_t vend = tag.find(vattr.back(), v + vattr.size());
        if (vend == std::string_view::npos) continue;
        if (Secret(std::string_view(t).substr(at + v + vattr.size(), vend - v - vattr.size()))) return true;
      }
    }
    // A property list: <key>RevenueCatSecretKey</key> <string>…</string>.
    if (name == "key" && !(close > 0 && l[close - 1] == '/')) {
      const size_t end = l.find("</key>", close);
      if (end != std::string::npos && end - close < 128 && SecretName(std::string_view(l).substr(close + 1, end - close - 1))) {
        const size_t str = l.find("<string>", end);
        if (str != std::string::npos && str - end < 64) {
          const size_t str_end = l.find('<', str + 8);
          if (str_end != std::string::npos && Secret(std::string_view(t).substr(str + 8, str_end - str - 8))) return true;
        }
        // KeePass's XML: <Key>Password</Key><Value ProtectInMemory="True">…</Value>.
        const size_t value = l.find("<value", end);
        if (value != std::string::npos && value - end < 16) {
          const size_t open = l.find('>', value);
          const size_t value_end = open == std::string::npos ? open : l.find('<', open);
          if (value_end != std::string::npos && value_end - open < 256 &&
              Secret(std::string_view(t).substr(open + 1, value_end - open - 1))) {
            return true;
          }
        }
      }
    }
    if (!SecretName(name) || (close > 0 && l[close - 1] == '/')) continue;
    // The element's text: up to the next '<', on one line; past one nested element (<Password><Value>…).
    size_t open = close;
    size_t text_end = l.find('<', open + 1);
    if (text_end != std::string::npos && text_end + 1 < l.size() && IsAlpha(l[text_end + 1]) &&
        std::string_view(l).substr(open + 1, text_end - open - 1).find_first_not_of(" \t\n") == std::string_view::npos) {
      open = l.find('>', text_end);
      text_end = open == std::string::npos ? std::string::npos : l.find('<', open + 1);
    }
    if (text_end == std::string::npos || text_end - open > kReach) continue;
    std::string_view v = std::string_view(t).substr(open + 1, text_end - open - 1);
    if (v.find('\n') != std::string_view::npos) continue;
    while (!v.empty() && IsSpace(v.front())) v.remove_prefix(1);
    while (!v.empty() && IsSpace(v.back())) v.remove_suffix(1);
    if (v.find(' ') == std::string_view::npos && Secret(v)) return true;
  }
  // define('DB_PASSWORD', 'V'), ("password", "V"): a quoted secret name, a comma, a quoted value.
  for (size_t at = 0; at < t.size(); ++at) {
    const char q = t[at];
    if (q != '\'' && q != '"') continue;
    const size_t close = t.find(q, at + 1);
    if (close == std::string::npos || close - at > 64) continue;
    const std::string_view name = std::string_view(l).substr(at + 1, close - at - 1);
    if (name.find('\n') != std::string_view::npos || name.find(' ') != std::string_view::npos || !SecretName(name)) {
      continue;
    }
    size_t k = close + 1;
    while (k < t.size() && (t[k] == ' ' || t[k] == '\t')) ++k;
    if (k < t.size() && t[k] == ',') {
      ++k;
      while (k < t.size() && (t[k] == ' ' || t[k] == '\t')) ++k;
      if (k < t.size() && (t[k] == '\'' || t[k] == '"') && Secret(ValueAt(t, k))) return true;
    }
    at = close;
  }
  return false;
}

// ---------------------------------------------------------------------------
// Tables whose column is named a password, a secret or a token: Markdown
// ("| site | user | pass |") and HTML (<th>Password</th>).
// ---------------------------------------------------------------------------

namespace {

std::vector<std::string_view> Cells(std::string_view row) {
  std::vector<std::string_view> cells;
  while (!row.empty() && (row.front() == ' ' || row.front() == '>' || row.front() == '\t')) row.remove_prefix(1);
  if (row.empty() || row.front() != '|') return cells;
  row.remove_prefix(1);
  while (!row.empty()) {
    const size_t bar = row.find('|');
    std::string_view cell = row.substr(0, bar);
    while (!cell.empty() && (cell.front() == ' ' || cell.front() == '`')) cell.remove_prefix(1);
    while (!cell.empty() && (cell.back() == ' ' || cell.back() == '`' || cell.back() == '\r')) cell.remove_suffix(1);
    if (bar == std::string_view::npos) {
      if (!cell.empty()) cells.push_back(cell);
      break;
    }
    cells.push_back(cell);
    row.remove_prefix(bar + 1);
  }
  return cells;
}

// A column of PINs or Chinese 密码 may hold digits alone; a "tokens" column of a price table may not.
bool DigitColumn(std::string_view lower_cell) {
  for (std::string_view w : {"pin", "passcode", "密码", "口令"}) {
    if (lower_cell.find(w) != std::string_view::npos) return true;
  }
  return false;
}

// A cell's value: typed on a keyboard (no spaces, ASCII), digits alone only in a PIN column, and random in a
// column named just "key" (ids and names fill such columns too).
bool TableValue(std::string_view v, bool digits_ok, bool random = false) {
  if (!digits_ok && std::all_of(v.begin(), v.end(), [](char c) { return IsDigit(c) || c == ',' || c == '.'; })) {
    return false;
  }
  if (!std::all_of(v.begin(), v.end(), [](char c) { return c > ' ' && c < 0x7F; })) return false;
  if (random && !RandomRun(v, 20)) return false;
  // Letters alone: a name in a comparison ("iCloud", "KeePassXC") unless long.
  if (v.size() < 10 && std::all_of(v.begin(), v.end(), IsAlpha)) return false;
  return Secret(v);
}

bool KeyColumn(std::string_view lower_cell) {
  return lower_cell == "key" || lower_cell == "api key" || lower_cell == "keys" || lower_cell == "value";
}

bool ColumnName(std::string_view lower_cell) {
  if (SecretName(lower_cell)) return true;
  for (std::string_view zh : {"密码", "口令", "密钥", "秘钥", "令牌"}) {
    if (lower_cell.find(zh) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

bool TableSecret(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  // Markdown: a header row, a separator row, body rows.
  std::vector<size_t> columns;
  std::vector<bool> header_digits;  // a column whose secrets may be digits alone (a PIN, 密码)
  std::vector<bool> header_random;  // a column named "key": only random values count
  bool in_body = false;
  bool hit = AnyLine(t, [&](std::string_view line, size_t start) {
    // A grid table's rule ("+-----+====+"): a separator.
    if (StartsWith(line, 0, "+-") || StartsWith(line, 0, "+=")) {
      if (line.find_first_not_of("+-=: \r") == std::string_view::npos) {
        in_body = !columns.empty();
        return false;
      }
    }
    const std::vector<std::string_view> cells = Cells(line);
    if (cells.empty()) {
      columns.clear();
      in_body = false;
      return false;
    }
    const bool separator = std::all_of(cells.begin(), cells.end(), [](std::string_view c) {
      return !c.empty() && c.find_first_not_of("-: ") == std::string_view::npos;
    });
    if (separator) {
      in_body = !columns.empty();
      return false;
    }
    if (!in_body) {
      columns.clear();
      header_digits.clear();
      header_random.clear();
      const std::vector<std::string_view> lower = Cells(std::string_view(l).substr(start, line.size()));
      header_digits.resize(lower.size());
      header_random.resize(lower.size());
      for (size_t c = 0; c < lower.size(); ++c) {
        header_random[c] = KeyColumn(lower[c]);
        if (ColumnName(lower[c]) || header_random[c]) columns.push_back(c);
        header_digits[c] = DigitColumn(lower[c]);
      }
      return false;
    }
    for (size_t c : columns) {
      if (c < cells.size() && TableValue(cells[c], header_digits[c], header_random[c]) && !DocumentedAt(s, start)) {
        return true;
      }
    }
    return false;
  });
  if (hit) return true;
  // HTML: <tr> rows of <th>/<td> cells.
  std::vector<size_t> html_columns;
  for (size_t tr = l.find("<tr"); tr != std::string::npos; tr = l.find("<tr", tr + 3)) {
    const size_t end = l.find("</tr", tr);
    if (end == std::string::npos || end - tr > kReach) continue;
    std::vector<std::string_view> cells, lower_cells;
    bool header = false;
    for (size_t c = l.find("<t", tr + 3); c != std::string::npos && c < end; c = l.find("<t", c + 2)) {
      if (c + 2 >= l.size() || (l[c + 2] != 'd' && l[c + 2] != 'h')) continue;
      header = header || l[c + 2] == 'h';
      const size_t open = l.find('>', c);
      const size_t close = l.find('<', open == std::string::npos ? c : open);
      if (open == std::string::npos || close == std::string::npos || close > end) break;
      cells.push_back(std::string_view(t).substr(open + 1, close - open - 1));
      lower_cells.push_back(std::string_view(l).substr(open + 1, close - open - 1));
    }
    if (header) {
      html_columns.clear();
      for (size_t c = 0; c < lower_cells.size(); ++c) {
        if (ColumnName(lower_cells[c])) html_columns.push_back(c);
      }
      continue;
    }
    for (size_t c : html_columns) {
      if (c < cells.size() && TableValue(cells[c], false)) return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------
// Private keys without their header: a base64 body whose DER says it is a
// private key (PKCS#1 RSA or DSA, PKCS#8, SEC1 EC) or an OpenSSH key, and
// base64 of a whole PEM private key block (a Kubernetes secret, a Helm value).
// ---------------------------------------------------------------------------

namespace {

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  return -1;
}

// Decodes base64 characters (line breaks, quote markers and indentation in
// between skipped) from t[b] until max_bytes are out or the run ends.
std::string DecodeBase64(std::string_view t, size_t b, size_t max_bytes) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = b; i < t.size() && out.size() < max_bytes; ++i) {
    const char c = t[i];
    if (c == '\n' || c == ' ' || c == '>' || c == '\t') continue;
    const int v = Base64Value(c);
    if (v < 0) break;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

// DER that starts a private key: SEQUENCE { INTEGER version 0 or 1, then an
// INTEGER (RSA, DSA), an AlgorithmIdentifier SEQUENCE (PKCS#8) or an OCTET
// STRING (EC) }. A certificate or a public key starts with a SEQUENCE inside.
bool DerPrivateKey(std::string_view d) {
  if (d.size() < 8 || static_cast<uint8_t>(d[0]) != 0x30) return false;
  size_t h = 2;
  const auto len = static_cast<uint8_t>(d[1]);
  if (len == 0x81) h = 3;
  if (len == 0x82) h = 4;
  if (len > 0x82) return false;
  if (d.size() < h + 4) return false;
  const auto b = [&](size_t k) { return static_cast<uint8_t>(d[h + k]); };
  if (b(0) != 0x02 || b(1) != 0x01) return false;
  if (b(2) == 0x00) return b(3) == 0x02 || b(3) == 0x30;
  return b(2) == 0x01 && b(3) == 0x04;
}

}  // namespace

bool PrivateKeyBody(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  // The SSH.com format's header has four dashes: ---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----
  if (l.find("---- begin ssh2") != std::string::npos && l.find("private key") != std::string::npos) return true;
  // A JSON Web Key with its private exponent: "kty" and a long "d".
  for (size_t at = l.find("\"kty\""); at != std::string::npos; at = l.find("\"kty\"", at + 1)) {
    const size_t d = l.find("\"d\"", at > 300 ? at - 300 : 0);
    if (d == std::string::npos || d > at + 1200) continue;
    size_t q = l.find('"', d + 3);
    if (q == std::string::npos) continue;
    size_t e = q + 1;
    while (e < t.size() && (IsBase64Url(t[e]))) ++e;
    if (e - q - 1 >= 32) return true;
  }
  auto b64 = [](char c) { return Base64Value(c) >= 0; };
  for (size_t i = 0; i < t.size(); ++i) {
    if (!b64(t[i]) || (i > 0 && (b64(t[i - 1]) || t[i - 1] == '='))) continue;
    size_t end = 0;
    const size_t n = TokenRun(t, i, [](char c) { return Base64Value(c) >= 0 || c == '='; }, &end);
    if (n < 60) {
      i = std::max(i, end);
      continue;
    }
    const std::string head = DecodeBase64(t, i, 64);
    if (DerPrivateKey(head) || head.rfind(std::string("openssh-key-v1\0", 15), 0) == 0) return true;
    if (head.rfind("-----BEGIN", 0) == 0) {
      const std::string pem = DecodeBase64(t, i, 80);
      const size_t eol = pem.find('\n');
      if (pem.substr(0, eol).find("PRIVATE KEY") != std::string::npos) return true;
    }
    i = std::max(i, end);
  }
  return false;
}

// ---------------------------------------------------------------------------
// Vendor tokens and webhook URLs by their shape.
// ---------------------------------------------------------------------------


bool VendorToken(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  struct Prefix {
    std::string_view prefix;
    size_t min;  // token characters after it
  };
  static constexpr std::array<Prefix, 36> kPrefixes = {{{"glpat-", 20},
                                                        {"glptt-", 20},
                                                        {"gldt-", 20},
                                                        {"glrt-", 20},
                                                        {"hf_", 30},
                                                        {"dckr_pat_", 20},
                                                        {"npm_", 36},
                                                        {"pypi-AgE", 50},
                                                        {"sntrys_", 40},
                                                        {"sntryu_", 40},
                                                        {"xapp-", 20},
                                                        {"shpat_", 30},
                                                        {"shpss_", 30},
                                                        {"whsec_", 24},
                                                        {"rk_live_", 20},
                                                        {"AKID", 32},
                                                        {"SG.", 20},
                                                        {"LTAI", 12},
                                                        {"dop_v1_", 40},
                                                        {"PMAK-", 40},
                                                        {"ntn_", 30},
                                                        {"secret_", 40},
                                                        {"lin_api_", 30},
                                                        {"xkeysib-", 40},
                                                        {"ATATT", 40},
                                                        {"glsa_", 30},
                                                        {"hvs.", 20},
                                                        {"ya29.", 30},
                                                        {"EAA", 60},
                                                        {"key-", 32},
                                                        {"sk-ant-", 30},
                                                        {"nfp_", 30},
                                                        {"HRKU-", 30},
                                                        {"ATBB", 28},
                                                        {":APA91b", 60},
                                                        {"AGE-SECRET-KEY-1", 50}}};
  for (const Prefix& p : kPrefixes) {
    for (size_t at = t.find(p.prefix); at != std::string::npos; at = t.find(p.prefix, at + 1)) {
      // A prefix that starts with a separator (":APA91b") follows the token's first part.
      if (at > 0 && IsTokenChar(t[at - 1]) && IsTokenChar(p.prefix[0])) continue;
      if (s.ZoneAt(at) == kFile) continue;
      size_t end = 0;
      const size_t n = TokenRun(t, at + p.prefix.size(), [](char c) { return IsTokenChar(c) || c == '.'; }, &end);
      const std::string_view body = std::string_view(t).substr(at + p.prefix.size(), end - at - p.prefix.size());
      if (n >= p.min && RandomRun(body, p.min) && !IsPlaceholder(common::AsciiLower(body)) && !DocumentedAt(s, at)) {
        return true;
      }
    }
  }
  // Discord bot tokens: the bot's id in base64 (24-26 characters, "MT…", "OT…"), '.', 6, '.', 27 or more.
  for (size_t dot = t.find('.'); dot != std::string::npos; dot = t.find('.', dot + 1)) {
    size_t b = dot;
    while (b > 0 && IsBase64Url(t[b - 1]) && dot - b <= 27) --b;
    if (dot - b < 23 || dot - b > 26 || (b > 0 && IsBase64Url(t[b - 1])) || (t[b] != 'M' && t[b] != 'N' && t[b] != 'O')) {
      continue;
    }
    size_t e = dot + 1;
    while (e < t.size() && IsBase64Url(t[e])) ++e;
    if (e - dot - 1 != 6 || e >= t.size() || t[e] != '.') continue;
    size_t f = e + 1;
    while (f < t.size() && IsBase64Url(t[f])) ++f;
    if (f - e - 1 >= 27 && RandomRun(std::string_view(t).substr(e + 1, f - e - 1), 27)) return true;
  }
  // Telegram bot tokens: 8-10 digits, ':', "AA" and 33 more.
  for (size_t at = t.find(":AA"); at != std::string::npos; at = t.find(":AA", at + 1)) {
    size_t b = at;
    while (b > 0 && IsDigit(t[b - 1])) --b;
    if (at - b < 8 || at - b > 10 || (b > 0 && IsTokenChar(t[b - 1]))) continue;
    size_t end = 0;
    if (TokenRun(t, at + 1, IsTokenChar, &end) >= 35) return true;
  }
  // Zhipu-style keys: 32 hex digits, '.', 16 letters and digits.
  for (size_t dot = t.find('.'); dot != std::string::npos; dot = t.find('.', dot + 1)) {
    if (dot < 32) continue;
    size_t b = dot;
    while (b > 0 && std::isxdigit(static_cast<unsigned char>(t[b - 1])) != 0 && dot - b <= 32) --b;
    if (dot - b != 32 || (b > 0 && IsTokenChar(t[b - 1]))) continue;
    size_t e = dot + 1;
    while (e < t.size() && IsAlnum(t[e])) ++e;
    if (e - dot - 1 == 16 && RandomRun(std::string_view(t).substr(dot + 1, 16), 16)) return true;
  }
  // Webhook URLs: the path after these hosts is the credential.
  static constexpr std::array<std::string_view, 12> kHooks = {
      "api.day.app/", "sctapi.ftqq.com/", "sc.ftqq.com/", "/hooks/",
      "hooks.slack.com/services/", "discord.com/api/webhooks/",      "discordapp.com/api/webhooks/",
      "webhook.office.com/webhookb2/", "outlook.office.com/webhook/", "open.feishu.cn/open-apis/bot/v2/hook/",
      "qyapi.weixin.qq.com/cgi-bin/webhook/send?key=", "open.larksuite.com/open-apis/bot/v2/hook/"};
  for (std::string_view hook : kHooks) {
    for (size_t at = l.find(hook); at != std::string::npos; at = l.find(hook, at + 1)) {
      size_t e = at + hook.size();
      while (e < t.size() && (IsTokenChar(t[e]) || t[e] == '/' || t[e] == '@')) ++e;
      const std::string_view path = std::string_view(t).substr(at + hook.size(), e - at - hook.size());
      // (A documentation page's masked key, "693a91f6-7xxx-…", is no credential.)
      if (RandomRun(path, 20) && !Contains(common::AsciiLower(path), "xxx") && !DocumentedAt(s, at)) return true;
    }
  }
  // otpauth:// URIs carry the 2FA seed in their secret= parameter.
  // Google Authenticator's export carries every seed in its data= parameter.
  for (size_t at = l.find("otpauth-migration://"); at != std::string::npos; at = l.find("otpauth-migration://", at + 1)) {
    const size_t q = l.find("data=", at);
    if (q == std::string::npos || q - at > 40) continue;
    size_t e = q + 5;
    while (e < t.size() && (IsAlnum(t[e]) || t[e] == '%' || t[e] == '+' || t[e] == '/' || t[e] == '=')) ++e;
    if (e - q - 5 >= 20) return true;
  }
  for (size_t at = l.find("otpauth://"); at != std::string::npos; at = l.find("otpauth://", at + 1)) {
    if (DocumentedAt(s, at)) continue;
    const size_t q = l.find("secret=", at);
    if (q != std::string::npos && q - at < 300) {
      size_t e = q + 7;
      while (e < l.size() && IsAlnum(l[e])) ++e;
      if (e - q - 7 >= 16 && !IsPublicExample(std::string_view(t).substr(q + 7, e - q - 7))) return true;
    }
  }
  // An AWS secret access key: 40 base64 characters after "secret".
  for (size_t at = l.find("secret"); at != std::string::npos; at = l.find("secret", at + 1)) {
    for (size_t k = at + 6; k < l.size() && k < at + 48; ++k) {
      if (!(IsAlnum(t[k]) || t[k] == '/' || t[k] == '+') || (k > 0 && (IsAlnum(t[k - 1]) || t[k - 1] == '/'))) continue;
      size_t e = k;
      while (e < t.size() && (IsAlnum(t[e]) || t[e] == '/' || t[e] == '+')) ++e;
      const std::string_view v = std::string_view(t).substr(k, e - k);
      if (v.size() == 40 && std::any_of(v.begin(), v.end(), IsDigit) && std::any_of(v.begin(), v.end(), IsUpper) &&
          std::any_of(v.begin(), v.end(), IsLower) && !IsPublicExample(v) && !DocumentedAt(s, at)) {
        return true;
      }
    }
  }
  // Recovery codes: an Apple recovery key (six groups of four), or a list of
  // at least six one-time codes (five and five, GitHub's form).
  size_t codes = 0;
  const bool listed = AnyLine(t, [&](std::string_view line, size_t) {
    while (!line.empty() && (line.front() == ' ' || line.front() == '-' || line.front() == '>')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    const bool code = line.size() == 11 && line[5] == '-' &&
                      std::all_of(line.begin(), line.end(), [](char c) { return IsAlnum(c) || c == '-'; }) &&
                      std::any_of(line.begin(), line.end(), IsDigit) && std::any_of(line.begin(), line.end(), IsAlpha);
    codes = code ? codes + 1 : 0;
    if (codes >= 6) return true;
    if (line.size() == 29 && std::count(line.begin(), line.end(), '-') == 5 &&
        std::all_of(line.begin(), line.end(), [](char c) { return IsUpper(c) || IsDigit(c) || c == '-'; }) &&
        RandomRun(line, 29) && std::any_of(line.begin(), line.end(), IsDigit)) {
      bool groups = true;
      for (size_t k = 4; k < line.size(); k += 5) groups = groups && line[k] == '-';
      if (groups) return true;
    }
    return false;
  });
  return listed;
}

// ---------------------------------------------------------------------------
// Personal secrets named by a label: PINs and door codes, passport and Hong
// Kong ID numbers, the 15-digit Chinese ID of before 1999, Wi-Fi QR strings,
// seed phrases and 2FA seeds.
// ---------------------------------------------------------------------------

namespace {

// The first value after a label at t[from]: past spaces, ':', '：', '是', '为' and '#'.
size_t AfterLabel(std::string_view l, size_t from, size_t limit) {
  size_t k = from;
  while (k < l.size() && k - from < limit) {
    if (l[k] == ' ' || l[k] == ':' || l[k] == '=' || l[k] == '\t') {
      ++k;
    } else if (StartsWith(l, k, "是") || StartsWith(l, k, "为") || StartsWith(l, k, "号") || StartsWith(l, k, "码")) {
      k += 3;
    } else if (StartsWith(l, k, "字")) {
      k += 3;  // 身分證字號
    } else if (StartsWith(l, k, "no.") || StartsWith(l, k, "no ") || StartsWith(l, k, "number")) {
      k += StartsWith(l, k, "number") ? 6 : 3;
    } else if (StartsWith(l, k, "code") || StartsWith(l, k, "is ")) {
      k += l[k] == 'c' ? 4 : 3;  // "keypad code 5829#", "door code is 4821"
    } else {
      break;
    }
  }
  return k;
}

bool TaiwanIdValid(std::string_view v) {  // A123456789: the letter's two digits, weights 1 9 8 … 1
  if (v.size() != 10 || !IsUpper(v[0]) || (v[1] != '1' && v[1] != '2')) return false;
  static constexpr std::array<int, 26> kLetters = {10, 11, 12, 13, 14, 15, 16, 17, 34, 18, 19, 20, 21,
                                                   22, 35, 23, 24, 25, 26, 27, 28, 29, 32, 30, 31, 33};
  const int code = kLetters[static_cast<size_t>(v[0] - 'A')];
  int sum = code / 10 + (code % 10) * 9;
  for (size_t k = 1; k < 10; ++k) {
    if (!IsDigit(v[k])) return false;
    sum += (v[k] - '0') * (k == 9 ? 1 : static_cast<int>(9 - k));
  }
  return sum % 10 == 0;
}

bool HongKongIdValid(std::string_view v) {  // A123456(7): letters weigh 9/8, digits 7..2, check mod 11
  size_t letters = 0;
  while (letters < v.size() && IsUpper(v[letters])) ++letters;
  if (letters < 1 || letters > 2 || v.size() < letters + 7) return false;
  int sum = letters == 1 ? 36 * 9 : 0;
  for (size_t k = 0; k < letters; ++k) sum += (v[k] - 'A' + 10) * (letters == 1 ? 8 : 9 - static_cast<int>(k));
  for (size_t k = 0; k < 6; ++k) {
    if (!IsDigit(v[letters + k])) return false;
    sum += (v[letters + k] - '0') * (7 - static_cast<int>(k));
  }
  size_t c = letters + 6;
  if (v[c] == '(') ++c;
  if (c >= v.size()) return false;
  const int check = v[c] == 'A' ? 10 : IsDigit(v[c]) ? v[c] - '0' : -1;
  return check >= 0 && (sum + check) % 11 == 0;
}

}  // namespace

bool PersonalLabel(const Scan& s) {
  const std::string& t = s.text;
  const std::string& l = s.lower;
  auto digits_at = [&](size_t k, size_t* end) {
    size_t e = k;
    while (e < t.size() && (IsDigit(t[e]) || t[e] == '#' || t[e] == '*')) ++e;
    *end = e;
    return std::count_if(t.begin() + static_cast<std::ptrdiff_t>(k), t.begin() + static_cast<std::ptrdiff_t>(e),
                         [](char c) { return IsDigit(c); });
  };
  // PINs, passcodes and door codes: 4 to 8 digits (a keypad's # and * around them).
  static constexpr std::array<std::string_view, 23> kPinLabels = {
      "passcode", "pin code", "pin:",   "pin ",     "keypad",   "disarm code", "alarm code", "door code",
      "gate code", "取款密码", "支付密码", "交易密码", "社保卡密码", "银行卡密码", "门禁密码",  "开门密码",
      "保险柜密码", "保险箱密码", "锁屏密码", "开机密码", "卡密码",   "查询密码", "密码"};
  for (std::string_view label : kPinLabels) {
    for (size_t at = l.find(label); at != std::string::npos; at = l.find(label, at + 1)) {
      if (IsAlpha(label[0]) && at > 0 && IsAlpha(l[at - 1])) continue;
      size_t v = AfterLabel(l, at + label.size(), 12);
      // "PIN (changes every January): 289325", "chip & PIN for Europe: 0332": the value after a colon further on.
      if (v < t.size() && !IsDigit(t[v])) {
        const std::string_view rest = std::string_view(l).substr(v, 48);
        const size_t colon = rest.find(':');
        if (colon != std::string_view::npos && rest.substr(0, colon).find('\n') == std::string_view::npos) {
          v = AfterLabel(l, v + colon, 4);
        }
      }
      size_t end = 0;
      const auto n = digits_at(v, &end);
      // A combination lock's numbers: 42-17-36.
      if (n <= 2 && end < t.size() && t[end] == '-') {
        size_t e = v, groups = 0;
        while (e < t.size() && IsDigit(t[e])) {
          size_t g = e;
          while (e < t.size() && IsDigit(t[e])) ++e;
          if (e - g > 2) break;
          ++groups;
          if (e < t.size() && t[e] == '-' && e + 1 < t.size() && IsDigit(t[e + 1])) ++e;
          else break;
        }
        if (groups >= 3 && groups <= 4 && (e >= t.size() || !IsAlnum(t[e]))) return true;
      }
      if (n < 4 || n > 8 || (end < t.size() && IsAlpha(t[end]))) continue;
      std::string value(std::string_view(t).substr(v, end - v));
      std::erase_if(value, [](char c) { return c == '#' || c == '*'; });
      if (!IsPlaceholder(value) && !(n == 4 && (value.rfind("19", 0) == 0 || value.rfind("20", 0) == 0))) return true;
    }
  }
  // Passports and travel permits: a letter or two and 7-9 digits, or 9 digits.
  for (std::string_view label : {"passport", "护照", "通行证", "台胞证", "旅行证"}) {
    for (size_t at = l.find(label); at != std::string::npos; at = l.find(label, at + 1)) {
      size_t v = AfterLabel(l, at + label.size(), 16);
      size_t letters = 0;
      while (v + letters < t.size() && IsUpper(t[v + letters])) ++letters;
      size_t e = v + letters;
      while (e < t.size() && IsDigit(t[e])) ++e;
      const size_t digits = e - v - letters;
      if (e < t.size() && IsAlnum(t[e])) continue;
      if ((letters <= 2 && digits >= 7 && digits <= 9 && (letters > 0 || digits == 9))) return true;
    }
  }
  // Hong Kong identity card numbers, checked.
  for (std::string_view label : {"身份证", "身分证", "hkid", "identity card", "id no", "id number"}) {
    for (size_t at = l.find(label); at != std::string::npos; at = l.find(label, at + 1)) {
      const size_t v = AfterLabel(l, at + label.size(), 16);
      if (HongKongIdValid(std::string_view(t).substr(v, 12)) || TaiwanIdValid(std::string_view(t).substr(v, 10))) {
        return true;
      }
      // The 15-digit resident ID of before 1999 (region, YYMMDD, sequence), within a few words of the label.
      for (size_t k = at + label.size(); k < t.size() && k < at + label.size() + 48; ++k) {
        if (!IsDigit(t[k]) || IsAlnum(t[k - 1])) continue;
        size_t e = k;
        while (e < t.size() && IsDigit(t[e])) ++e;
        if (e - k == 15 && (e >= t.size() || !IsAlnum(t[e]))) {
          const std::string_view d = std::string_view(t).substr(k, 15);
          const int month = (d[8] - '0') * 10 + (d[9] - '0'), day = (d[10] - '0') * 10 + (d[11] - '0');
          if (d[0] >= '1' && d[0] <= '8' && month >= 1 && month <= 12 && day >= 1 && day <= 31) return true;
        }
        k = e;
      }
    }
  }
  // An admin account and its password written as a pair: "admin/Nvr_Cam_7734", "telecomadmin / nE7aWq2m".
  static constexpr std::array<std::string_view, 12> kAccounts = {
      "admin", "root", "administrator", "telecomadmin", "useradmin", "superadmin", "sa", "ubnt", "pi",
      "operator", "support", "manager"};
  for (std::string_view account : kAccounts) {
    for (size_t at = l.find(account); at != std::string::npos; at = l.find(account, at + 1)) {
      // Not a folder of a path or a URL ("/root/myModule", "github.com/nodejs/admin/blob/…").
      if (at > 0 && (IsWordByte(l[at - 1]) || l[at - 1] == '/' || l[at - 1] == '.' || l[at - 1] == '-')) continue;
      if (s.ZoneAt(at) != kText) continue;
      size_t k = at + account.size();
      while (k < l.size() && l[k] == ' ') ++k;
      // "root yYx13jSL?c" (a file name, a sticky note): the account, a space, and a password with a symbol.
      if (k == at + account.size() + 1 && k < l.size() && l[k] != '/' &&
          (at == 0 || l[at - 1] == ' ' || l[at - 1] == '\n' || static_cast<unsigned char>(l[at - 1]) >= 0x80)) {
        const std::string_view v = ValueAt(t, k);
        if (v.size() >= 8 && Secret(v) && std::any_of(v.begin(), v.end(), IsDigit) &&
            std::any_of(v.begin(), v.end(), IsAlpha) &&
            std::any_of(v.begin(), v.end(), [](char c) { return !IsAlnum(c) && c != '-' && c != '_' && c != '.'; })) {
          return true;
        }
      }
      if (k >= l.size() || l[k] != '/') continue;
      ++k;
      while (k < l.size() && l[k] == ' ') ++k;
      if (Secret(ValueAt(t, k))) return true;
    }
  }
  // Wi-Fi QR strings: WIFI:T:WPA;S:name;P:password;;
  for (size_t at = l.find("wifi:"); at != std::string::npos; at = l.find("wifi:", at + 1)) {
    const size_t p = l.find(";p:", at);
    if (p == std::string::npos || p - at > 200) continue;
    const size_t e = t.find(';', p + 3);
    if (e != std::string::npos && e - p - 3 >= 8 && !IsPlaceholder(std::string_view(l).substr(p + 3, e - p - 3)) &&
        l[p + 3] != '<' && l[p + 3] != '$' && l[p + 3] != '{' && l[p + 3] != '[') {
      return true;
    }
  }
  // Seed phrases: twelve or more lowercase words after a label.
  for (std::string_view label : {"助记词", "seed phrase", "mnemonic", "recovery phrase", "secret phrase"}) {
    for (size_t at = l.find(label); at != std::string::npos; at = l.find(label, at + 1)) {
      size_t k = at + label.size();
      const size_t stop = std::min(l.size(), k + 300);
      size_t words = 0;
      while (k < stop) {
        size_t e = k;
        while (e < stop && IsLower(t[e])) ++e;
        const size_t len = e - k;
        if (len >= 3 && len <= 8 && (e >= t.size() || t[e] == ' ' || t[e] == '\n' || t[e] == ',')) {
          if (++words >= 12) return true;
          k = e + 1;
        } else {
          words = 0;
          k = e + 1;
        }
      }
    }
  }
  // 2FA seeds: base32 (letters and 2-7), 16 or more, often in groups of four, after an authenticator label.
  for (std::string_view label : {"验证器", "authenticator", "2fa", "totp", "otp"}) {
    for (size_t at = l.find(label); at != std::string::npos; at = l.find(label, at + 1)) {
      const size_t stop = std::min(l.size(), at + 240);
      auto base32 = [](char c) { return IsLower(c) || (c >= '2' && c <= '7'); };
      for (size_t k = at + label.size(); k + 4 <= stop; ++k) {
        if (!base32(l[k]) || (k > 0 && IsAlnum(l[k - 1]))) continue;
        // Groups of exactly four base32 characters separated by single spaces.
        size_t groups = 0, e = k;
        bool digit = false;
        while (e + 4 <= l.size() && std::all_of(l.begin() + static_cast<std::ptrdiff_t>(e),
                                                l.begin() + static_cast<std::ptrdiff_t>(e + 4), base32) &&
               (e + 4 == l.size() || !IsAlnum(l[e + 4]))) {
          for (size_t d = e; d < e + 4; ++d) digit = digit || IsDigit(l[d]);
          ++groups;
          e += 4;
          if (e < l.size() && l[e] == ' ') ++e;
        }
        if (groups >= 4 && digit) return true;
        k = std::max(k, e);
      }
    }
  }
  return false;
}

}  // namespace engram::sync::sensitive
