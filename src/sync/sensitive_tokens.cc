// Content rules for keys and tokens recognised by their fixed shape: PEM and
// PuTTY private keys, sk-… / sk_live_… / AIza… API keys, AWS key ids, GitHub
// and Slack tokens, JWTs.
#include <algorithm>
#include <string>

#include "sync/sensitive_scan.h"

namespace engram::sync::sensitive {

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
    // A real header is words ("RSA PRIVATE KEY"); one with [A-Z ]* or (…) is a pattern that finds them.
    const bool words = std::all_of(header.begin(), header.end(), [](char c) { return IsAlnum(c) || c == ' '; });
    if (words && header.find("private key") != std::string::npos) return true;
  }
  // PuTTY's own format carries the key in "Private-Lines:".
  return l.find("putty-user-key-file-") != std::string::npos && l.find("private-lines:") != std::string::npos;
}

namespace {

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
    if (accept(at + prefix.size(), end, n) && !DocumentedAt(s, at)) return true;
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

}  // namespace

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
      // AWS's own documentation key (…EXAMPLE) is known to every reader.
      const bool example = end + 7 <= t.size() && Contains(std::string_view(t).substr(at, end - at + 7), "EXAMPLE");
      if (n == 16 && (end >= t.size() || !IsAlnum(t[end])) && !example && !DocumentedAt(s, at)) return true;
    }
  }
  return false;
}

bool GithubToken(const Scan& s) {
  // At least min characters, and not a placeholder ("ghp_xxxx…" in documentation).
  auto at_least = [&s](size_t min) {
    return [&s, min](size_t b, size_t e, size_t n) {
      return n >= min && !IsPlaceholder(std::string_view(s.lower).substr(b, e - b));
    };
  };
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
    size_t c_end = 0;
    const size_t c_at = skip_wrap(b_end + 1);
    if (TokenRun(t, c_at, IsBase64Url, &c_end) >= 10 &&
        !IsPublicExample(std::string_view(t).substr(c_at, c_end - c_at)) && !DocumentedAt(s, at)) {
      return true;
    }
  }
  return false;
}

}  // namespace engram::sync::sensitive
