#include "sync/sensitive.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>

#include "common/utf8.h"
#include "text/analyzer.h"
#include "text/canvas.h"

namespace engram::sync {

namespace {

// ---------------------------------------------------------------------------
// Normalisation. The index folds text (NFKC + case folding + Traditional →
// Simplified) and Unicode drops default-ignorable characters, so "ＡＫＩＡ…",
// "pass\u200bword" and "1\u00ad3812345678" are indexed as the plain secret and a
// search for the plain secret finds the page. The rules therefore look at the
// same folded text. ASCII keeps its case (AKIA keys, JWTs and the "mixed case"
// test of a password value need it); full-width ASCII is mapped to ASCII with
// its case; every other non-ASCII run goes through the analyzer's FoldText.
// ---------------------------------------------------------------------------

bool IsDefaultIgnorable(char32_t c) {
  return c == 0xAD || c == 0x34F || c == 0x61C || (c >= 0x115F && c <= 0x1160) || (c >= 0x17B4 && c <= 0x17B5) ||
         (c >= 0x180B && c <= 0x180F) || (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2060 && c <= 0x206F) || c == 0x3164 || (c >= 0xFE00 && c <= 0xFE0F) || c == 0xFEFF || c == 0xFFA0 ||
         (c >= 0x1BCA0 && c <= 0x1BCA3) || (c >= 0x1D173 && c <= 0x1D17A) || (c >= 0xE0000 && c <= 0xE0FFF);
}

// Characters mapped here rather than by ICU: full-width ASCII keeps its case,
// and every space and dash variant becomes the ASCII one (NFKC leaves en and em
// dashes and some spaces alone, but a phone number written with them is still
// the number). Returns 0 for "not special".
char32_t SimpleMap(char32_t c) {
  if (c >= 0xFF01 && c <= 0xFF5E) return c - 0xFEE0;
  if (c == 0x3000 || c == 0xA0 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F) return ' ';
  if ((c >= 0x2010 && c <= 0x2015) || c == 0x2212 || c == 0xFE58 || c == 0xFE63) return '-';
  return 0;
}

std::string Normalise(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::string run;  // pending non-ASCII code points for FoldText
  auto flush = [&] {
    if (!run.empty()) out += text::FoldText(run);
    run.clear();
  };
  size_t i = 0;
  while (i < s.size()) {
    // Plain ASCII is copied in one piece.
    size_t j = i;
    while (j < s.size() && static_cast<unsigned char>(s[j]) < 0x80 && s[j] != '\r') ++j;
    if (j > i) {
      flush();
      out.append(s.substr(i, j - i));
      i = j;
      continue;
    }
    size_t at = i;
    char32_t c = common::DecodeUtf8(s, &i);
    if (c == '\r') {
      flush();
      if (i >= s.size() || s[i] != '\n') out.push_back('\n');  // "\r\n" keeps its "\n"
    } else if (IsDefaultIgnorable(c)) {
      // dropped, without breaking the pending run: "密\u200b码" folds as "密码"
    } else if (char32_t m = SimpleMap(c)) {
      flush();
      out.push_back(static_cast<char>(m));
    } else if (c == 0xFFFD && i - at == 1) {
      flush();
      out.push_back(' ');  // an invalid byte separates, like in the analyzer
    } else {
      run.append(s.substr(at, i - at));
    }
  }
  flush();
  return out;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAlnum(char c) { return IsDigit(c) || IsAlpha(c); }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool IsTokenChar(char c) { return IsAlnum(c) || c == '_' || c == '-'; }
bool IsAwsChar(char c) { return IsUpper(c) || IsDigit(c); }

bool StartsWith(std::string_view s, size_t at, std::string_view p) {
  return at <= s.size() && s.compare(at, p.size(), p) == 0;
}

// How far any context scan reaches from where it starts. Links, names and
// assignments are far shorter; the bound keeps a pathological file (a 10 MB
// line of "[[" or "sk-") linear instead of quadratic.
constexpr size_t kReach = 2048;

// ---------------------------------------------------------------------------
// Context: which bytes are inside a URL, and which inside an embedded image,
// an attachment, a wiki-link target or a local file name. Digit runs there are
// timestamps and ids ("![[Pasted image 20250609035719.png]]",
// "image-20220115075019776.png", "https://item.example.com/100012043978.html"),
// and "token=" there is a CDN's signing parameter, not a credential.
// ---------------------------------------------------------------------------

enum Zone : uint8_t { kText = 0, kUrl = 1, kFile = 2 };

constexpr std::array<std::string_view, 44> kFileExtensions = {
    "png",  "jpg",  "jpeg", "gif", "webp", "svg",  "bmp",  "tif",    "tiff",   "heic",       "heif",
    "ico",  "avif", "pdf",  "mp3", "mp4",  "m4a",  "mov",  "avi",    "mkv",    "wav",        "ogg",
    "webm", "flac", "zip",  "rar", "7z",   "gz",   "tgz",  "doc",    "docx",   "xls",        "xlsx",
    "ppt",  "pptx", "csv",  "md",  "txt",  "json", "html", "drawio", "canvas", "excalidraw", "epub"};

constexpr std::array<std::string_view, 17> kImageExtensions = {"png",  "jpg", "jpeg", "gif",  "webp", "svg",
                                                               "bmp",  "tif", "tiff", "heic", "heif", "ico",
                                                               "avif", "pdf", "mp4",  "mov",  "webm"};

// Length of a known extension at t[at] (after a '.'), bounded on the right; 0 if none.
size_t ExtensionAt(std::string_view lower, size_t at, bool images_only) {
  size_t n = 0;
  while (at + n < lower.size() && IsAlnum(lower[at + n])) ++n;
  std::string_view ext = lower.substr(at, n);
  if (images_only) {
    return std::find(kImageExtensions.begin(), kImageExtensions.end(), ext) != kImageExtensions.end() ? n : 0;
  }
  return std::find(kFileExtensions.begin(), kFileExtensions.end(), ext) != kFileExtensions.end() ? n : 0;
}

void Mark(std::vector<uint8_t>* zones, size_t b, size_t e, Zone z) {
  for (size_t k = b; k < e && k < zones->size(); ++k) (*zones)[k] = std::max<uint8_t>((*zones)[k], z);
}

// End of a URL starting at b: stops at white space, quotes, angle brackets,
// non-ASCII (Chinese text written straight after a link) and an unbalanced ')'.
size_t UrlEnd(std::string_view t, size_t b) {
  size_t e = b;
  int parens = 0;
  while (e < t.size() && e - b < kReach) {
    char c = t[e];
    if (IsSpace(c) || c == '"' || c == '\'' || c == '`' || c == '<' || c == '>' || c == '|' ||
        static_cast<unsigned char>(c) >= 0x80) {
      break;
    }
    if (c == '(') ++parens;
    if (c == ')' && parens-- == 0) break;
    if (c == ']') break;
    ++e;
  }
  while (e > b && (t[e - 1] == '.' || t[e - 1] == ',' || t[e - 1] == ';' || t[e - 1] == ':' || t[e - 1] == '!' ||
                   t[e - 1] == '?')) {
    --e;
  }
  return e;
}

// True when the URL's path (before '?' or '#') ends in an image/attachment extension.
bool IsImageUrl(std::string_view lower, size_t b, size_t e) {
  size_t q = b;
  while (q < e && lower[q] != '?' && lower[q] != '#') ++q;
  if (q <= b) return false;
  size_t dot = lower.substr(b, q - b).rfind('.');
  if (dot == std::string_view::npos) return false;
  dot += b;
  if (lower.substr(dot, q - dot).find('/') != std::string_view::npos) return false;
  return ExtensionAt(lower.substr(0, q), dot + 1, /*images_only=*/true) == q - dot - 1;
}

std::vector<uint8_t> FindZones(std::string_view t, std::string_view lower) {
  std::vector<uint8_t> z(t.size(), kText);
  // Bare URLs (scheme://…) and data: URIs.
  for (size_t at = t.find("://"); at != std::string_view::npos; at = t.find("://", at + 3)) {
    size_t b = at;
    while (b > 0 && (IsAlnum(t[b - 1]) || t[b - 1] == '+' || t[b - 1] == '.' || t[b - 1] == '-')) --b;
    if (b == at || !IsAlpha(t[b])) continue;
    size_t e = UrlEnd(t, at + 3);
    Mark(&z, b, e, IsImageUrl(lower, at + 3, e) ? kFile : kUrl);
  }
  for (size_t at = lower.find("data:"); at != std::string_view::npos; at = lower.find("data:", at + 5)) {
    if (at > 0 && IsAlnum(t[at - 1])) continue;
    if (!StartsWith(lower, at + 5, "image/") && !StartsWith(lower, at + 5, "application/")) continue;
    Mark(&z, at, UrlEnd(t, at + 5), kFile);
  }
  // Markdown link and image targets: "](target)". An image's target is a file
  // whatever it is; a link's target is a file unless it is a URL (see above).
  for (size_t at = t.find("]("); at != std::string_view::npos; at = t.find("](", at + 2)) {
    size_t close = at + 2;
    int depth = 0;
    while (close < t.size() && t[close] != '\n' && close - at < kReach) {
      if (t[close] == '(') ++depth;
      if (t[close] == ')' && depth-- == 0) break;
      ++close;
    }
    if (close >= t.size() || t[close] != ')') continue;
    size_t open = at;
    int brackets = 0;
    while (open > 0 && t[open - 1] != '\n' && at - open < kReach) {
      --open;
      if (t[open] == ']') ++brackets;
      if (t[open] == '[' && brackets-- == 0) break;
    }
    bool image = t[open] == '[' && open > 0 && t[open - 1] == '!';
    std::string_view target = t.substr(at + 2, close - at - 2);
    if (image || target.find("://") == std::string_view::npos) Mark(&z, at + 2, close, kFile);
  }
  // Wiki links and embeds: "[[target|alias]]", "![[target]]" — the target is a note or attachment name.
  for (size_t at = t.find("[["); at != std::string_view::npos; at = t.find("[[", at + 2)) {
    std::string_view line = t.substr(at, kReach);
    line = line.substr(0, line.find('\n'));
    size_t close = line.find("]]", 2);
    if (close == std::string_view::npos) continue;
    Mark(&z, at + 2, at + std::min(close, line.find('|')), kFile);
  }
  // HTML images: the whole <img …> tag.
  for (size_t at = lower.find("<img"); at != std::string_view::npos; at = lower.find("<img", at + 4)) {
    size_t close = t.substr(at, kReach).find('>');
    if (close != std::string_view::npos) Mark(&z, at, at + close + 1, kFile);
  }
  // File names written in the text: "Pasted image 20250609035719.png",
  // "微信图片_20250609035719.jpg", "IMG_20250609_035719.heic".
  for (size_t dot = t.find('.'); dot != std::string_view::npos; dot = t.find('.', dot + 1)) {
    size_t n = ExtensionAt(lower, dot + 1, /*images_only=*/false);
    if (n == 0 || dot == 0 || IsSpace(t[dot - 1])) continue;
    size_t b = dot;
    while (b > 0 && dot - b < kReach && !IsSpace(t[b - 1]) && t[b - 1] != '(' && t[b - 1] != '[' && t[b - 1] != '"' &&
           t[b - 1] != '\'' && t[b - 1] != '<' && t[b - 1] != '>' && t[b - 1] != '|' && t[b - 1] != '`') {
      --b;
    }
    Mark(&z, b, dot + 1 + n, kFile);
  }
  return z;
}

// What every scanner sees: the normalised text, its ASCII-lowered twin (same
// offsets), and the zones. A file's path is scanned with no zones.
struct Scan {
  std::string text;
  std::string lower;
  std::vector<uint8_t> zones;

  Zone ZoneAt(size_t at) const { return at < zones.size() ? static_cast<Zone>(zones[at]) : kText; }
};

Scan MakeScan(std::string_view raw, bool with_zones) {
  Scan s;
  s.text = Normalise(raw);
  s.lower = common::AsciiLower(s.text);
  if (with_zones) {
    s.zones = FindZones(s.text, s.lower);
  } else {
    s.zones.assign(s.text.size(), kText);
  }
  return s;
}

// ---------------------------------------------------------------------------
// Token signatures. A long key wrapped onto the next line (hard-wrapped notes,
// terminal copies) is still the key: a run may continue across one line break
// once it has at least kWrapMin characters.
// ---------------------------------------------------------------------------

constexpr size_t kWrapMin = 8;

// Characters satisfying pred from t[from], continuing across line breaks; *end is one past the last.
size_t TokenRun(std::string_view t, size_t from, bool (*pred)(char), size_t* end = nullptr, size_t max = kReach) {
  size_t n = 0;
  size_t i = from;
  while (n < max) {
    if (i < t.size() && pred(t[i])) {
      ++n;
      ++i;
      continue;
    }
    // A line break inside the token: "...\n" then optional indentation or a quote marker.
    if (n >= kWrapMin && i < t.size() && t[i] == '\n') {
      size_t j = i + 1;
      while (j < t.size() && (t[j] == ' ' || t[j] == '\t' || t[j] == '>')) ++j;
      if (j < t.size() && pred(t[j])) {
        i = j;
        continue;
      }
    }
    break;
  }
  if (end) *end = i;
  return n;
}

bool PemPrivateKey(const Scan& s) {
  const std::string& l = s.lower;
  for (size_t at = l.find("-----begin"); at != std::string::npos; at = l.find("-----begin", at + 1)) {
    size_t end = std::string_view(l).substr(at + 10, 90).find("-----");
    if (end == std::string_view::npos) continue;
    end += at + 10;
    std::string header;  // white space (line breaks included) collapsed to one space
    for (size_t k = at + 10; k < end; ++k) {
      if (IsSpace(l[k])) {
        if (!header.empty() && header.back() != ' ') header.push_back(' ');
      } else {
        header.push_back(l[k]);
      }
    }
    if (header.find("private key") != std::string::npos) return true;
  }
  // PuTTY's own format carries the key in "Private-Lines:".
  return l.find("putty-user-key-file-") != std::string::npos && l.find("private-lines:") != std::string::npos;
}

// A prefix followed by at least min token characters, not inside a longer word
// and not inside an image/attachment.
template <typename Accept>
bool PrefixedToken(const Scan& s, std::string_view prefix, bool (*pred)(char), Accept&& accept) {
  const std::string& t = s.text;
  for (size_t at = t.find(prefix); at != std::string::npos; at = t.find(prefix, at + 1)) {
    if (at > 0 && IsTokenChar(t[at - 1])) continue;
    if (s.ZoneAt(at) == kFile) continue;
    size_t end = 0;
    size_t n = TokenRun(t, at + prefix.size(), pred, &end);
    if (accept(at + prefix.size(), end, n)) return true;
  }
  return false;
}

// The body of an sk- key: 20+ characters, and random-looking: a 16-character
// stretch without separators, or digits with capitals. Kebab-case names
// ("sk-learn-compatible-estimators") are neither.
bool RandomBody(std::string_view t, size_t b, size_t e, size_t n) {
  if (n < 20) return false;
  size_t seg = 0;
  size_t longest = 0;
  bool digit = false;
  bool upper = false;
  for (size_t k = b; k < e; ++k) {
    char c = t[k];
    if (c == '\n' || c == ' ' || c == '\t' || c == '>') continue;  // a wrap
    if (c == '-' || c == '_') {
      seg = 0;
      continue;
    }
    longest = std::max(longest, ++seg);
    digit |= IsDigit(c);
    upper |= IsUpper(c);
  }
  return longest >= 16 || (digit && upper);
}

bool ApiKey(const Scan& s) {
  auto random = [&](size_t b, size_t e, size_t n) { return RandomBody(s.text, b, e, n); };
  for (std::string_view p : {"sk-", "sk_live_", "sk_test_", "rk_live_"}) {
    if (PrefixedToken(s, p, IsTokenChar, random)) return true;
  }
  // Google API keys: AIza + 35 characters.
  return PrefixedToken(s, "AIza", IsTokenChar, [](size_t, size_t, size_t n) { return n == 35; });
}

// AKIA (long-term) and ASIA (temporary) access key ids: exactly 16 more
// capitals or digits. One exception, decided on purpose: the key id inside a
// pre-signed S3 URL ("X-Amz-Credential=AKIA…%2F20220115%2F…", what Notion
// exports and web clippers keep on every image). A pre-signed URL carries the
// public key id and an expiring signature, never the secret access key, so it
// is not a credential leak; a bare key id anywhere else is treated as one.
bool AwsKey(const Scan& s) {
  const std::string& t = s.text;
  for (std::string_view prefix : {"AKIA", "ASIA"}) {
    for (size_t at = t.find(prefix); at != std::string::npos; at = t.find(prefix, at + 1)) {
      if (at > 0 && IsAlnum(t[at - 1])) continue;
      if (s.ZoneAt(at) == kFile) continue;
      if (s.ZoneAt(at) == kUrl && at >= 11 && s.lower.compare(at - 11, 11, "credential=") == 0) continue;
      size_t end = 0;
      size_t n = TokenRun(t, at + 4, IsAwsChar, &end, 16);
      if (n == 16 && (end >= t.size() || !IsAlnum(t[end]))) return true;
    }
  }
  return false;
}

bool GithubToken(const Scan& s) {
  auto at_least = [](size_t min) { return [min](size_t, size_t, size_t n) { return n >= min; }; };
  for (std::string_view p : {"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}) {
    if (PrefixedToken(s, p, IsAlnum, at_least(36))) return true;
  }
  return PrefixedToken(s, "github_pat_", IsTokenChar, at_least(22));
}

bool SlackToken(const Scan& s) {
  for (std::string_view p : {"xoxb-", "xoxa-", "xoxp-", "xoxr-", "xoxs-"}) {
    if (PrefixedToken(s, p, IsTokenChar, [](size_t, size_t, size_t n) { return n >= 10; })) return true;
  }
  return false;
}

bool IsBase64Url(char c) { return IsAlnum(c) || c == '_' || c == '-'; }

// header.payload.signature, both JSON parts starting "eyJ"; a line break may
// follow a dot or split a part.
bool Jwt(const Scan& s) {
  const std::string& t = s.text;
  auto skip_wrap = [&](size_t i) {
    if (i < t.size() && t[i] == '\n') {
      ++i;
      while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i;
    }
    return i;
  };
  for (size_t at = t.find("eyJ"); at != std::string::npos; at = t.find("eyJ", at + 1)) {
    if (at > 0 && IsBase64Url(t[at - 1])) continue;
    if (s.ZoneAt(at) == kFile) continue;
    size_t a_end = 0;
    if (TokenRun(t, at, IsBase64Url, &a_end) < 10 || a_end >= t.size() || t[a_end] != '.') continue;
    size_t b_at = skip_wrap(a_end + 1);
    if (!StartsWith(t, b_at, "eyJ")) continue;
    size_t b_end = 0;
    if (TokenRun(t, b_at, IsBase64Url, &b_end) < 10 || b_end >= t.size() || t[b_end] != '.') continue;
    if (TokenRun(t, skip_wrap(b_end + 1), IsBase64Url) >= 10) return true;
  }
  return false;
}

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

bool Contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

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

// ---------------------------------------------------------------------------
// Numbers. A digit sequence is digit groups joined by single spaces, dashes or
// dots ("6222 0212 3456 7890 123", "+86-137-1234-5678", "110105.19491231.002X").
// A rule looks at windows of whole groups that start and end at the sequence's
// ends or at a space ("手机 13812345678 2024年" holds the number and a year).
// Digits glued to a word ("v1.138…", "image-2022…", "IMG_2025…") or sitting in
// a URL or file name are never personal numbers.
// ---------------------------------------------------------------------------

struct DigitSeq {
  size_t begin = 0, end = 0;
  std::vector<std::string> groups;
  std::string seps;  // seps[k] joins groups k and k+1
  bool attached_left = false, attached_right = false;
};

template <typename Fn>
bool AnyDigitSeq(const Scan& s, Fn&& fn) {
  const std::string& t = s.text;
  size_t i = 0;
  while (i < t.size()) {
    if (!IsDigit(t[i])) {
      ++i;
      continue;
    }
    DigitSeq q;
    q.begin = i;
    while (true) {
      size_t g = i;
      while (i < t.size() && IsDigit(t[i])) ++i;
      q.groups.emplace_back(t.substr(g, i - g));
      if (i + 1 < t.size() && (t[i] == ' ' || t[i] == '-' || t[i] == '.') && IsDigit(t[i + 1])) {
        q.seps.push_back(t[i]);
        ++i;
        continue;
      }
      break;
    }
    q.end = i;
    char before = q.begin > 0 ? t[q.begin - 1] : ' ';
    q.attached_left = IsAlpha(before) || before == '_' ||
                      ((before == '-' || before == '.') && q.begin > 1 && IsAlnum(t[q.begin - 2]));
    char after = q.end < t.size() ? t[q.end] : ' ';
    q.attached_right =
        IsAlpha(after) || after == '_' ||
        ((after == '-' || after == '.' || after == '_') && q.end + 1 < t.size() && IsAlnum(t[q.end + 1]));
    bool zoned = false;
    for (size_t k = q.begin; k < q.end && !zoned; ++k) zoned = s.ZoneAt(k) != kText;
    // Hex: 0x2000_1000, 0x4000 1234 …
    bool hex = q.begin >= 2 && (t[q.begin - 1] == 'x' || t[q.begin - 1] == 'X') && t[q.begin - 2] == '0';
    if (!zoned && !hex && fn(q)) return true;
  }
  return false;
}

// Calls fn(first_group, last_group_exclusive, digits) for each space-bounded window.
template <typename Fn>
bool AnyWindow(const DigitSeq& q, Fn&& fn) {
  size_t n = q.groups.size();
  for (size_t a = 0; a < n; ++a) {
    if (a > 0 && q.seps[a - 1] != ' ') continue;
    if (a == 0 && q.attached_left) continue;
    std::string digits;
    for (size_t b = a + 1; b <= n; ++b) {
      digits += q.groups[b - 1];
      if (digits.size() > 19) break;
      if (b < n && q.seps[b - 1] != ' ') continue;
      if (b == n && q.attached_right) continue;
      if (fn(a, b, digits)) return true;
    }
  }
  return false;
}

bool Separators(const DigitSeq& q, size_t a, size_t b, char* sep) {  // true when one separator joins the window
  *sep = 0;
  for (size_t k = a; k + 1 < b; ++k) {
    if (*sep != 0 && q.seps[k] != *sep) return false;
    *sep = q.seps[k];
  }
  return true;
}

bool ValidDate(std::string_view d) {  // YYYYMMDD
  int year = std::stoi(std::string(d.substr(0, 4)));
  int month = std::stoi(std::string(d.substr(4, 2)));
  int day = std::stoi(std::string(d.substr(6, 2)));
  return year >= 1900 && year <= 2100 && month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

// 18 characters: region (first two digits a province code), birth date,
// sequence, and the ISO 7064 check character; grouped any way.
bool ChineseResidentId(const Scan& s) {
  static constexpr std::array<int, 17> kWeights = {7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2};
  static constexpr std::string_view kCheck = "10X98765432";
  static constexpr std::array<int, 34> kProvinces = {11, 12, 13, 14, 15, 21, 22, 23, 31, 32, 33, 34,
                                                     35, 36, 37, 41, 42, 43, 44, 45, 46, 50, 51, 52,
                                                     53, 54, 61, 62, 63, 64, 65, 71, 81, 82};
  const std::string& t = s.text;
  auto valid = [&](const std::string& id17, char check) {
    int province = (id17[0] - '0') * 10 + (id17[1] - '0');
    if (std::find(kProvinces.begin(), kProvinces.end(), province) == kProvinces.end()) return false;
    int sum = 0;
    for (size_t k = 0; k < 17; ++k) sum += (id17[k] - '0') * kWeights[k];
    return kCheck[static_cast<size_t>(sum % 11)] == check && ValidDate(std::string_view(id17).substr(6, 8));
  };
  return AnyDigitSeq(s, [&](const DigitSeq& q) {
    // 17 digits and an X check character glued to the last group.
    bool x =
        q.end < t.size() && (t[q.end] == 'X' || t[q.end] == 'x') && (q.end + 1 >= t.size() || !IsAlnum(t[q.end + 1]));
    if (x) {
      DigitSeq copy = q;
      copy.attached_right = false;
      if (AnyWindow(copy, [&](size_t, size_t b, const std::string& d) {
            return b == q.groups.size() && d.size() == 17 && valid(d, 'X');
          })) {
        return true;
      }
    }
    return AnyWindow(
        q, [&](size_t, size_t, const std::string& d) { return d.size() == 18 && valid(d.substr(0, 17), d[17]); });
  });
}

// Mainland mobile numbers: 1[3-9] and nine digits, written 13812345678,
// 138 1234 5678, 138-1234-5678, with or without +86 / 0086 in front.
// An unlabelled 11-digit number is a quantity when a field that is not a
// phone holds it ("total_memory": "17179869184", size=15032385536) or a unit
// follows it (bytes, 元, 次). A phone label, or none at all ("王五
// 13812345678"), keeps it a phone number.
bool QuantityContext(const Scan& s, size_t begin, size_t end) {
  static constexpr std::array<std::string_view, 14> kPhoneWords = {"phone",    "mobile", "tel",  "cell", "contact",
                                                                   "whatsapp", "wechat", "sms",  "手机", "电话",
                                                                   "联系",     "微信",   "号码", "call"};
  static constexpr std::array<std::string_view, 15> kUnits = {"bytes", "byte", "b ", "b\n", "b,",   "kb", "元", "yuan",
                                                              "rmb",   "ms",   "ns", "us",  "字节", "次", "条"};
  const std::string& l = s.lower;
  size_t k = begin;
  while (k > 0 && (l[k - 1] == ' ' || l[k - 1] == '"' || l[k - 1] == '\'' || l[k - 1] == '*')) --k;
  if (k > 0 && (l[k - 1] == ':' || l[k - 1] == '=')) {
    --k;
    while (k > 0 && (l[k - 1] == ' ' || l[k - 1] == '"' || l[k - 1] == '\'' || l[k - 1] == '*')) --k;
    size_t label_end = k;
    while (k > 0 && label_end - k < 32 && l[k - 1] != ' ' && l[k - 1] != '"' && l[k - 1] != '\'' && l[k - 1] != '{' &&
           l[k - 1] != ',' && l[k - 1] != '|' && l[k - 1] != '\n') {
      --k;
    }
    std::string_view label = std::string_view(l).substr(k, label_end - k);
    if (std::none_of(kPhoneWords.begin(), kPhoneWords.end(), [&](std::string_view w) { return Contains(label, w); })) {
      return true;
    }
  }
  size_t a = end;
  while (a < l.size() && (l[a] == ' ' || l[a] == '"')) ++a;
  return std::any_of(kUnits.begin(), kUnits.end(), [&](std::string_view u) { return StartsWith(l, a, u); });
}

bool ChineseMobile(const Scan& s) {
  auto mobile = [](const std::string& d) {
    if (d.size() != 11 || d[0] != '1' || d[1] < '3') return false;
    // 15000000000 is an amount, not a subscriber.
    return !std::all_of(d.begin() + 3, d.end(), [&](char c) { return c == d[3]; });
  };
  auto shape = [](const DigitSeq& q, size_t a, size_t b) {  // 11 or 3-4-4 with one separator
    if (b - a == 1) return q.groups[a].size() == 11;
    char sep = 0;
    return b - a == 3 && q.groups[a].size() == 3 && q.groups[a + 1].size() == 4 && q.groups[a + 2].size() == 4 &&
           Separators(q, a, b, &sep);
  };
  return AnyDigitSeq(s, [&](const DigitSeq& q) {
    bool plus = q.begin > 0 && s.text[q.begin - 1] == '+';
    // "+8613812345678", "008613812345678": the country code glued on.
    const std::string& g0 = q.groups[0];
    if (q.groups.size() == 1 && !q.attached_left && !q.attached_right &&
        ((plus && g0.size() == 13 && StartsWith(g0, 0, "86")) || (g0.size() == 15 && StartsWith(g0, 0, "0086")))) {
      return mobile(g0.substr(g0.size() - 11));
    }
    // "+86-137-1234-5678", "0086 138 1234 5678": the country code as the first group.
    if ((g0 == "86" || g0 == "0086") && q.groups.size() >= 2 && !q.attached_left) {
      for (size_t b : {size_t{2}, size_t{4}}) {
        if (b > q.groups.size() || (b == q.groups.size() && q.attached_right) ||
            (b < q.groups.size() && q.seps[b - 1] != ' '))
          continue;
        std::string d;
        for (size_t k = 1; k < b; ++k) d += q.groups[k];
        if (shape(q, 1, b) && mobile(d)) return true;
      }
    }
    return AnyWindow(q, [&](size_t a, size_t b, const std::string& d) {
      if (!shape(q, a, b) || !mobile(d)) return false;
      return b - a != 1 || !QuantityContext(s, q.begin, q.end);
    });
  });
}

bool Luhn(std::string_view digits) {
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
  return sum % 10 == 0;
}

// Issuer prefixes and lengths of the card networks seen in English and Chinese
// notes: Visa, Mastercard, American Express, UnionPay, JCB, Discover, Diners.
bool CardIssuer(std::string_view d) {
  size_t n = d.size();
  int p2 = (d[0] - '0') * 10 + (d[1] - '0');
  int p3 = p2 * 10 + (d[2] - '0');
  int p4 = p3 * 10 + (d[3] - '0');
  if (d[0] == '4') return n == 13 || n == 16 || n == 19;
  if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) return n == 16;
  if (p2 == 34 || p2 == 37) return n == 15;
  if (p2 == 62) return n >= 16 && n <= 19;
  if (p4 >= 3528 && p4 <= 3589) return n >= 16 && n <= 19;
  if (p4 == 6011 || p2 == 65 || (p3 >= 644 && p3 <= 649)) return n >= 16 && n <= 19;
  if ((p3 >= 300 && p3 <= 305) || p2 == 36 || p2 == 38 || p2 == 39) return n >= 14 && n <= 19;
  return false;
}

// Printed groupings: 4-4-4-4(-3), 4-4-4-1..4 (13-16 digits), 4-6-5 (Amex), 4-6-4 (Diners).
bool CardGrouping(const DigitSeq& q, size_t a, size_t b) {
  size_t n = b - a;
  char sep = 0;
  if (n < 3 || !Separators(q, a, b, &sep)) return false;
  if (n == 3) {
    return q.groups[a].size() == 4 && q.groups[a + 1].size() == 6 &&
           (q.groups[a + 2].size() == 5 || q.groups[a + 2].size() == 4);
  }
  for (size_t k = a; k + 1 < b; ++k) {
    if (q.groups[k].size() != 4) return false;
  }
  size_t last = q.groups[b - 1].size();
  return last >= 1 && last <= 4;
}

// Card words, English and Chinese (folded to Simplified), looked for on the
// number's line: 60 bytes before it (about 20 Chinese characters) and 30 after.
bool CardWordNear(const Scan& s, size_t begin, size_t end) {
  static constexpr std::array<std::string_view, 21> kWords = {
      "card",   "visa",   "mastercard", "amex",   "unionpay", "credit", "debit", "cvv",  "cvc",  "iban", "卡号",
      "银行卡", "信用卡", "借记卡",     "储蓄卡", "工资卡",   "银联",   "账号",  "帐号", "开户", "户名"};
  const std::string& l = s.lower;
  size_t b = begin > 60 ? begin - 60 : 0;
  size_t e = std::min(l.size(), end + 30);
  size_t nl = l.rfind('\n', begin);
  if (nl != std::string::npos && nl >= b) b = nl + 1;
  size_t nr = l.find('\n', end);
  if (nr != std::string::npos && nr < e) e = nr;
  std::string_view window = std::string_view(l).substr(b, e - b);
  return std::any_of(kWords.begin(), kWords.end(), [&](std::string_view w) { return Contains(window, w); });
}

// A card needs the issuer prefix, the Luhn check and either a printed grouping
// or a card word nearby. A bare run of 14-17 digits with no card word is a
// timestamp (Obsidian's "Pasted image 20250609035719", Typora's
// "image-20220115075019776"), an order number or a post id, and a row of
// four-digit groups longer than any card (a hex dump, a number table) is not a
// card either.
bool CardNumber(const Scan& s) {
  return AnyDigitSeq(s, [&](const DigitSeq& q) {
    bool dump = q.groups.size() > 5 &&
                std::all_of(q.groups.begin(), q.groups.end(), [](const std::string& g) { return g.size() == 4; });
    if (dump) return false;
    return AnyWindow(q, [&](size_t a, size_t b, const std::string& d) {
      if (d.size() < 13 || !CardIssuer(d) || !Luhn(d)) return false;
      if (CardWordNear(s, q.begin, q.end)) return true;
      // Without a card word the grouped number must stand alone: four-digit
      // groups continuing on either side are a row of a table or a dump.
      if (a != 0 || b != q.groups.size() || !CardGrouping(q, a, b)) return false;
      // 2019 2020 2021 2022 or 3000 3001 3002 3003: a list of numbers, not a card.
      bool progression = b - a >= 3;
      for (size_t k = a + 2; k < b && progression; ++k) {
        progression =
            q.groups[k].size() == q.groups[a].size() && std::stoll(q.groups[k]) - std::stoll(q.groups[k - 1]) ==
                                                            std::stoll(q.groups[a + 1]) - std::stoll(q.groups[a]);
      }
      return !progression;
    });
  });
}

struct ContentRule {
  const char* id;
  bool (*found)(const Scan&);
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

// A file-name keyword, unless the name is about the topic rather than a
// record of one: "密码学笔记" (cryptography), "password-policy",
// "身份证校验算法" hold no secret, "wifi-password" and "张三身份证" may.
bool NameHasKeyword(std::string_view name, std::string_view keyword) {
  static constexpr std::array<std::string_view, 26> kTopics = {
      "学",       "策略",  "政策",    "规则", "算法",  "校验",       "验证",      "强度",    "管理器",
      "生成器",   "机制",  "原理",    "格式", "识别",  "policy",     "policies",  "manager", "generator",
      "strength", "rules", "hashing", "hash", "reset", "validation", "validator", "checksum"};
  for (size_t at = name.find(keyword); at != std::string_view::npos; at = name.find(keyword, at + 1)) {
    size_t k = at + keyword.size();
    while (k < name.size() && (name[k] == ' ' || name[k] == '-' || name[k] == '_' || name[k] == '.')) ++k;
    bool topic =
        std::any_of(kTopics.begin(), kTopics.end(), [&](std::string_view w) { return StartsWith(name, k, w); });
    if (!topic) return true;
  }
  return false;
}

}  // namespace

SensitiveRules SensitiveRules::Defaults() {
  SensitiveRules r;
  r.path_components = {"secrets", "secret", "credentials", "passwords", "private-keys", "密码", "机密"};
  r.name_keywords = {"password",    "passwd", "secret", "credential", "apikey", "api-key", "api_key",
                     "private-key", "id_rsa", "密码",   "口令",       "密钥",   "身份证",  "银行卡"};
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

namespace {

// The first content rule hit in text (the path's lines when is_path).
const ContentRule* FirstContentHit(std::string_view text, bool is_path, const SensitiveRules& rules) {
  Scan scan = MakeScan(text, /*with_zones=*/!is_path);
  for (const ContentRule& r : kContentRules) {
    if (std::find(rules.disabled.begin(), rules.disabled.end(), r.id) != rules.disabled.end()) continue;
    if (r.found(scan)) return &r;
  }
  return nullptr;
}

// The line where rule's hit in content begins, found without touching the
// rules: the shortest run of leading lines that still hits ends on the hit's
// last line, and the latest first line from which that run still hits is
// where it begins (a PEM block or a wrapped key spans lines). The rules read
// only nearby context, so the run is first looked for in windows of about
// 32 KB overlapping by half (twice the text is scanned, then a few scans of
// one window), and in the whole text only when no window hits. Paid only
// for a file that is quarantined anyway.
int HitLine(std::string_view content, const ContentRule& rule) {
  std::vector<size_t> starts = {0};  // byte offset of each line
  for (size_t i = 0; i < content.size(); ++i) {
    if (content[i] == '\n' && i + 1 < content.size()) starts.push_back(i + 1);
  }
  const size_t n = starts.size();
  auto hits = [&](size_t first, size_t last) {  // lines [first, last), 0-based
    size_t begin = starts[first];
    size_t end = last < n ? starts[last] : content.size();
    return rule.found(MakeScan(content.substr(begin, end - begin), /*with_zones=*/true));
  };
  auto narrow = [&](size_t first, size_t last) {  // hits(first, last) holds
    size_t lo = first + 1, hi = last;             // hits(first, hi) holds
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (hits(first, mid)) hi = mid;
      else lo = mid + 1;
    }
    size_t begin = first, top = hi - 1;  // hits(begin, hi) holds
    while (begin < top) {
      size_t mid = begin + (top - begin + 1) / 2;
      if (hits(mid, hi)) begin = mid;
      else top = mid - 1;
    }
    return static_cast<int>(begin) + 1;
  };
  constexpr size_t kChunkBytes = 16 * 1024;
  std::vector<size_t> chunk = {0};  // first line of each chunk, then n
  for (size_t l = 1; l < n; ++l) {
    if (starts[l] - starts[chunk.back()] >= kChunkBytes) chunk.push_back(l);
  }
  chunk.push_back(n);
  const size_t chunks = chunk.size() - 1;
  for (size_t c = 0; c < chunks; ++c) {
    const size_t last = chunk[std::min(c + 2, chunks)];
    if (hits(chunk[c], last)) return narrow(chunk[c], last);
    if (c + 2 >= chunks) break;
  }
  return hits(0, n) ? narrow(0, n) : 0;
}

std::optional<SensitiveHit> FindSensitiveOrThrow(std::string_view path, std::string_view content,
                                                 const SensitiveRules& rules) {
  if (std::find(rules.allow.begin(), rules.allow.end(), path) != rules.allow.end()) return std::nullopt;
  auto disabled = [&](const std::string& id) {
    return std::find(rules.disabled.begin(), rules.disabled.end(), id) != rules.disabled.end();
  };
  // Names are compared folded, like the index compares titles: "ｐａｓｓｗｏｒｄ.md",
  // "pass\u200bword.md" and "我的密碼.md" are the names they look like.
  auto fold = [](std::string_view s) { return common::AsciiLower(Normalise(s)); };
  std::string lower = fold(path);
  // Folders: whole components.
  size_t start = 0;
  while (true) {
    size_t slash = lower.find('/', start);
    if (slash == std::string::npos) break;
    std::string dir = lower.substr(start, slash - start);
    for (const std::string& c : rules.path_components) {
      std::string id = "path:" + c;
      if (dir == fold(c) && !disabled(id)) return SensitiveHit{id, 0};
    }
    start = slash + 1;
  }
  std::string name = lower.substr(start);
  for (const std::string& k : rules.name_keywords) {
    std::string id = "name:" + k;
    if (!disabled(id) && NameHasKeyword(name, fold(k))) return SensitiveHit{id, 0};
  }
  // Content signatures on the content, then on the path itself: a phone
  // number, a key or an ID number in a file or folder name is indexed as the
  // page's title. The path is scanned as lines of names, its extension dropped
  // so "13812345678.md" ends where the number ends.
  std::string names(path);
  size_t dot = names.rfind('.');
  if (dot != std::string::npos && names.find('/', dot) == std::string::npos) names.resize(dot);
  std::replace(names.begin(), names.end(), '/', '\n');
  // In rule order, as one scan: the first rule hitting either the body or the name.
  const ContentRule* body = FirstContentHit(content, false, rules);
  // A canvas holds its cards' Markdown in JSON strings, where a line break is
  // "\n" and any character may be a \u escape: the rules also read the text
  // the index reads (cards, labels, URLs and file paths), its lines numbered
  // in that text. A canvas that is not JSON is never indexed; its bytes were read.
  std::string canvas_text;
  if (body == nullptr && text::IsCanvasPath(path)) {
    if (auto canvas = text::ReadCanvas(path, content); canvas.ok()) {
      canvas_text = std::move(canvas->text);
      for (const std::string& file : canvas->files) canvas_text.append("\n").append(file);
      body = FirstContentHit(canvas_text, false, rules);
    }
  }
  const ContentRule* title = FirstContentHit(names, true, rules);
  if (body == nullptr && title == nullptr) return std::nullopt;
  if (title != nullptr && (body == nullptr || title < body)) return SensitiveHit{title->id, 0};
  return SensitiveHit{body->id, HitLine(canvas_text.empty() ? content : canvas_text, *body)};
}

}  // namespace

std::optional<SensitiveHit> FindSensitive(std::string_view path, std::string_view content,
                                          const SensitiveRules& rules) {
  // Fail closed: a file the rules could not read is kept out.
  try {
    return FindSensitiveOrThrow(path, content, rules);
  } catch (...) {
    return SensitiveHit{"scan_failed", 0};
  }
}

}  // namespace engram::sync
