// Internal to engram_sync: what the quarantine rules (sync/sensitive.h) read,
// shared by the files that hold them. sensitive_scan.cc makes a Scan (the text
// folded as the index folds it, its ASCII-lowered twin and the context zones);
// the content scanners are in sensitive_tokens.cc (fixed-shape keys and
// tokens), sensitive_assignments.cc (secrets named by a key) and
// sensitive_numbers.cc (ID, phone and card numbers); sensitive.cc holds the
// rule table, the path and name rules and FindSensitive.
//
// Every function here is pure and may be called from any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engram::sync::sensitive {

// What a reader of the page sees where the file escapes it: HTML character
// references decoded (&#95; &amp; &lt; …), Markdown backslash escapes and **
// emphasis dropped, percent escapes of unreserved URL characters decoded,
// <br> made a line break.
std::string Decode(std::string_view s);

// The text as the index sees it, decoded (Decode): ASCII kept with its case,
// full-width ASCII mapped to ASCII, spaces and dashes to ' ' and '-',
// default-ignorable characters dropped, Cyrillic and Greek look-alikes of
// Latin letters beside ASCII made Latin, line ends made "\n", other
// non-ASCII text folded as the analyzer folds it (NFKC, case, Traditional →
// Simplified).
std::string Normalise(std::string_view s);

// The normalised text with the line breaks that cut one thing in two
// removed: between digits (a card or ID number wrapped: a space), after a
// hyphen or a shell continuation inside a word, and inside a long random
// token. "" when there is none (the text scans as it is).
std::string JoinBrokenLines(std::string_view normalised);

// The normalised text with every percent escape of a quote, a brace, a colon,
// a comma, a space or '#' decoded ("%7B%22pwd%22%3A%22Jq%239Lm2%22%7D" reads
// {"pwd":"Jq#9Lm2"}). "" when there is none.
std::string PercentDecoded(std::string_view normalised);

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool IsAlnum(char c) { return IsDigit(c) || IsAlpha(c); }
inline bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
inline bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
inline bool IsTokenChar(char c) { return IsAlnum(c) || c == '_' || c == '-'; }
inline bool IsAwsChar(char c) { return IsUpper(c) || IsDigit(c); }

inline bool StartsWith(std::string_view s, size_t at, std::string_view p) {
  return at <= s.size() && s.compare(at, p.size(), p) == 0;
}
inline bool IsBase64Url(char c) { return IsAlnum(c) || c == '_' || c == '-'; }
inline bool Contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

// How far any context scan reaches from where it starts. Links, names and
// assignments are far shorter; the bound keeps a pathological file (a 10 MB
// line of "[[" or "sk-") linear instead of quadratic.
constexpr size_t kReach = 2048;

// Context: kUrl for bytes inside a URL, kFile for bytes inside an embedded
// image, an attachment, a wiki-link target or a local file name (see
// sensitive_scan.cc). A zone only ever rises: a URL to an image is kFile.
enum Zone : uint8_t { kText = 0, kUrl = 1, kFile = 2 };

// What every scanner sees: the normalised text, its ASCII-lowered twin (same
// offsets), and the zones. A file's path is scanned with no zones.
struct Scan {
  std::string text;
  std::string lower;
  std::vector<uint8_t> zones;

  Zone ZoneAt(size_t at) const { return at < zones.size() ? static_cast<Zone>(zones[at]) : kText; }
};

// The scan of raw text; with_zones false (a file's path) marks every byte kText.
Scan MakeScan(std::string_view raw, bool with_zones);
// The scan of text already normalised (Normalise, JoinBrokenLines).
Scan ScanOf(std::string normalised, bool with_zones);

// Token runs. A long key wrapped onto the next line (hard-wrapped notes,
// terminal copies) is still the key: a run may continue across one line break
// once it has at least kWrapMin characters.
constexpr size_t kWrapMin = 8;

// Characters satisfying pred from t[from], continuing across line breaks; *end is one past the last.
inline size_t TokenRun(std::string_view t, size_t from, bool (*pred)(char), size_t* end = nullptr,
                       size_t max = kReach) {
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

// A value documentation and tutorials write where a secret would go
// ("123456", "changeme", "scott:tiger"'s tiger, "新密码", anything with
// "example", "your", "xxxx"), lowercased; never a secret.
bool IsPlaceholder(std::string_view lower);
// A value that has a secret's shape on its own, the value standing after a
// key in a command line, a table or markup (sensitive_assignments.cc).
bool LooksLikeSecret(std::string_view cased);
// A Google or Apple app-specific password: four groups of four lowercase
// letters ("sicb bzcz xjca xelr"), or the same with dashes.
bool IsAppPassword(std::string_view v);
// Secret-shaped values every reader of the documentation knows (AWS's
// AKIAIOSFODNN7EXAMPLE, jwt.io's token, the standards' ID number, the card
// networks' test numbers): never someone's secret.
bool IsPublicExample(std::string_view value);
// Whether the line holding s.text[at] (or, for an item of a list, the line
// that introduces the list) says it shows documentation's examples: "the
// docs example bot token", "Stripe test cards:", "RFC 7519 example JWT",
// "测试卡号", "示例". Shape rules skip what such a line shows.
bool DocumentedAt(const Scan& s, size_t at);

// The content rules: true when the scan holds what the rule looks for. The
// rule table (ids, order) is in sensitive.cc.
// sensitive_tokens.cc
bool PemPrivateKey(const Scan& s);
bool ApiKey(const Scan& s);
bool AwsKey(const Scan& s);
bool GithubToken(const Scan& s);
bool SlackToken(const Scan& s);
bool Jwt(const Scan& s);
// sensitive_assignments.cc
bool SecretAssignment(const Scan& s);
bool UrlCredentials(const Scan& s);
// sensitive_numbers.cc
bool ChineseResidentId(const Scan& s);
bool ChineseMobile(const Scan& s);
bool CardNumber(const Scan& s);
// sensitive_forms.cc
bool CommandLinePassword(const Scan& s);
bool MarkupPassword(const Scan& s);
bool TableSecret(const Scan& s);
bool PrivateKeyBody(const Scan& s);
bool VendorToken(const Scan& s);
bool PersonalLabel(const Scan& s);
// sensitive_labels.cc
bool CredentialPair(const Scan& s);
bool LabelledSecret(const Scan& s);

}  // namespace engram::sync::sensitive
