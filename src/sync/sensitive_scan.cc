// Normalisation and context for the quarantine rules: turns raw text into the
// Scan every content rule reads (sync/sensitive_scan.h).
#include "sync/sensitive_scan.h"

#include <algorithm>
#include <array>

#include "common/utf8.h"
#include "text/analyzer.h"

namespace engram::sync::sensitive {

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

}  // namespace

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

namespace {

// ---------------------------------------------------------------------------
// Context: which bytes are inside a URL, and which inside an embedded image,
// an attachment, a wiki-link target or a local file name. Digit runs there are
// timestamps and ids ("![[Pasted image 20250609035719.png]]",
// "image-20220115075019776.png", "https://item.example.com/100012043978.html"),
// and "token=" there is a CDN's signing parameter, not a credential.
// ---------------------------------------------------------------------------

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

}  // namespace

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

}  // namespace engram::sync::sensitive
