// Normalisation and context for the quarantine rules: turns raw text into the
// Scan every content rule reads (sync/sensitive_scan.h).
#include "sync/sensitive_scan.h"

#include <algorithm>
#include <array>
#include <cctype>

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
  // Colons a PDF or an input method puts where ':' was meant: ∶ ︰ ︓ ﹕ ː ꞉.
  if (c == 0x2236 || c == 0xFE30 || c == 0xFE13 || c == 0xFE55 || c == 0x02D0 || c == 0xA789) return ':';
  if (c == 0xFE66) return '=';
  return 0;
}

// Cyrillic and Greek letters that look like Latin ones ("pаssword" with a
// Cyrillic а, "ΑKIA…" with a Greek Α, as OCR and some fonts produce). Mapped
// only beside an ASCII letter or digit, so Russian or Greek text is left alone.
char32_t LatinLookalike(char32_t c) {
  switch (c) {
    case 0x0430: return 'a';
    case 0x0435: return 'e';
    case 0x043E: return 'o';
    case 0x0440: return 'p';
    case 0x0441: return 'c';
    case 0x0443: return 'y';
    case 0x0445: return 'x';
    case 0x0455: return 's';
    case 0x0456: return 'i';
    case 0x0458: return 'j';
    case 0x0410: return 'A';
    case 0x0412: return 'B';
    case 0x0415: return 'E';
    case 0x041A: return 'K';
    case 0x041C: return 'M';
    case 0x041D: return 'H';
    case 0x041E: return 'O';
    case 0x0420: return 'P';
    case 0x0421: return 'C';
    case 0x0422: return 'T';
    case 0x0425: return 'X';
    case 0x0405: return 'S';
    case 0x0406: return 'I';
    case 0x0408: return 'J';
    case 0x0391: return 'A';
    case 0x0392: return 'B';
    case 0x0395: return 'E';
    case 0x0396: return 'Z';
    case 0x0397: return 'H';
    case 0x0399: return 'I';
    case 0x039A: return 'K';
    case 0x039C: return 'M';
    case 0x039D: return 'N';
    case 0x039F: return 'O';
    case 0x03A1: return 'P';
    case 0x03A4: return 'T';
    case 0x03A5: return 'Y';
    case 0x03A7: return 'X';
    case 0x03BF: return 'o';
    // IPA and Latin extensions fonts draw as ASCII letters.
    case 0x0261: return 'g';
    case 0x0251: return 'a';
    case 0x0131: return 'i';
    case 0x0269: return 'i';
    case 0x01C0: return 'l';
    case 0x0262: return 'G';
    case 0x026A: return 'I';
    default: return 0;
  }
}

bool AsciiAlnumAt(std::string_view s, size_t i) {
  return i < s.size() && static_cast<unsigned char>(s[i]) < 0x80 && IsAlnum(s[i]);
}

// HTML's named references a note pasted from a web page or an export holds.
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kNamedEntities = {{
    {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}, {"nbsp", " "}, {"#39", "'"},
    {"colon", ":"},
}};

}  // namespace

std::string Decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '&') {
      // &name; &#NN; &#xHH;
      const size_t semi = s.substr(i, 12).find(';');
      if (semi != std::string_view::npos && semi > 1) {
        const std::string_view body = s.substr(i + 1, semi - 1);
        std::string decoded;
        for (const auto& [name, value] : kNamedEntities) {
          if (common::AsciiLower(body) == name) decoded = value;
        }
        if (decoded.empty() && body.size() >= 2 && body[0] == '#') {
          const bool hex = body[1] == 'x' || body[1] == 'X';
          const std::string_view digits = body.substr(hex ? 2 : 1);
          char32_t cp = 0;
          bool ok = !digits.empty() && digits.size() <= 7;
          for (char d : digits) {
            const int v = IsDigit(d) ? d - '0' : hex && std::isxdigit(static_cast<unsigned char>(d)) ? (d | 0x20) - 'a' + 10 : -1;
            if (v < 0) ok = false;
            cp = cp * (hex ? 16 : 10) + static_cast<char32_t>(std::max(v, 0));
          }
          if (ok && cp > 0 && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF)) common::AppendUtf8(cp, &decoded);
        }
        if (!decoded.empty()) {
          out += decoded;
          i += semi + 1;
          continue;
        }
      }
    } else if (c == '\\' && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0x80 &&
               std::ispunct(static_cast<unsigned char>(s[i + 1])) && s[i + 1] != '\\') {
      // A Markdown backslash escape ("sk\_live\_…", "Lm\#4q") reads as the character.
      out.push_back(s[i + 1]);
      i += 2;
      continue;
    } else if (c == '=' && i + 2 < s.size() && s[i + 1] == '=' && i > 0 && AsciiAlnumAt(s, i - 1) &&
               AsciiAlnumAt(s, i + 2)) {
      // An Obsidian highlight inside a token ("glpat-049wgW==sxu7Wr==VZd…") reads as the token.
      i += 2;
      continue;
    } else if (c == '*' && i + 1 < s.size() && s[i + 1] == '*') {
      // ** emphasis: "**sk-proj-**TX…" is the key it shows.
      i += 2;
      continue;
    } else if (c == '%' && i + 2 < s.size()) {
      // Percent escapes of characters a URL never needs to escape ("AIza…%5F…").
      const std::string_view hex = s.substr(i + 1, 2);
      char plain = 0;
      if (hex == "5F" || hex == "5f") plain = '_';
      if (hex == "2D" || hex == "2d") plain = '-';
      if (hex == "2E" || hex == "2e") plain = '.';
      if (hex == "7E" || hex == "7e") plain = '~';
      if (plain != 0) {
        out.push_back(plain);
        i += 3;
        continue;
      }
    } else if (c == '<') {
      // Markup a reader of the page does not see as text: keys drawn as keys (<kbd>7</kbd><kbd>2</kbd> reads
      // 72) and inline formatting (<b>, </code>, <span class="…">) vanish; <br> and the blocks of an export
      // ("…4813</p><p>1351…") are line breaks.
      size_t newline = 0, skip = 0;
      size_t k = i + 1 + (i + 1 < s.size() && s[i + 1] == '/' ? 1 : 0);
      const size_t name = k;
      while (k < s.size() && IsAlpha(s[k])) ++k;
      const std::string tag = common::AsciiLower(s.substr(name, k - name));
      static constexpr std::array<std::string_view, 10> kInline = {"b",    "i", "em",   "strong", "code",
                                                                    "span", "u", "mark", "tt",     "kbd"};
      static constexpr std::array<std::string_view, 3> kBlocks = {"p", "div", "li"};
      size_t close = k;
      while (close < s.size() && (s[close] == ' ' || s[close] == '/')) ++close;
      if (tag == "br" && close < s.size() && s[close] == '>') {
        newline = 1;
        skip = close + 1 - i;
      } else if (std::find(kInline.begin(), kInline.end(), tag) != kInline.end() && k < s.size() &&
                 (s[k] == '>' || (s[k] == ' ' && tag == "span"))) {
        const size_t gt = s.find('>', k);
        if (gt != std::string_view::npos && gt - i < 200) skip = gt + 1 - i;
      } else if (std::find(kBlocks.begin(), kBlocks.end(), tag) != kBlocks.end() && k < s.size() && s[k] == '>') {
        newline = 1;
        skip = k + 1 - i;
        // "</p><p>": one break for the pair.
        if (s[i + 1] == '/' && s.substr(i + skip, 2) == "<" + tag.substr(0, 1) && s.substr(i + skip, tag.size() + 2) == "<" + tag + ">") {
          skip += tag.size() + 2;
        }
      }
      if (skip > 0) {
        if (newline > 0) out.push_back('\n');
        i += skip;
        continue;
      }
    } else if ((c == '`' || c == '"' || c == '\'') && s.substr(i, 5) == std::string{c, ' ', '+', ' ', c} && i > 0 &&
               i + 5 < s.size() && s[i - 1] != ' ' && s[i - 1] != c && s[i + 5] != ' ') {
      // "ghp_` + `ewb1…", "sk-" + "proj…": one token written in two quoted parts.
      i += 5;
      continue;
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

std::string Normalise(std::string_view raw) {
  const std::string decoded = Decode(raw);
  const std::string_view s = decoded;
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
    } else if (char32_t latin = LatinLookalike(c);
               latin != 0 && ((!out.empty() && run.empty() && AsciiAlnumAt(out, out.size() - 1)) ||
                              AsciiAlnumAt(s, i))) {
      flush();
      out.push_back(static_cast<char>(latin));
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

std::string JoinBrokenLines(std::string_view t) {
  // A word is random-looking when it mixes digits with letters or lower with upper case.
  auto random_word = [](std::string_view w) {
    bool digit = false, lower = false, upper = false;
    for (char c : w) {
      digit = digit || IsDigit(c);
      lower = lower || IsLower(c);
      upper = upper || IsUpper(c);
    }
    return (digit && (lower || upper)) || (lower && upper);
  };
  auto token = [](char c) { return IsBase64Url(c) || c == '+' || c == '/' || c == '='; };
  std::string out;
  bool joined = false;
  size_t copied = 0;
  for (size_t nl = t.find('\n'); nl != std::string_view::npos; nl = t.find('\n', nl + 1)) {
    if (nl == 0) continue;
    size_t next = nl + 1;  // the next line's first character, past indentation and quote markers
    while (next < t.size() && (t[next] == ' ' || t[next] == '\t' || t[next] == '>')) ++next;
    if (next >= t.size()) break;
    size_t end = nl;  // the line's end, past trailing spaces
    while (end > 0 && (t[end - 1] == ' ' || t[end - 1] == '\t')) --end;
    if (end == 0) continue;
    const char left = t[end - 1], right = t[next];
    std::string glue;
    bool join = false;
    if (IsDigit(left) && IsDigit(right)) {
      join = true;
      glue = " ";  // "6222 0219 1888 / 9396 729": one number, its groups kept
    } else if ((left == '-' || left == '\\') && end >= 2 && IsAlnum(t[end - 2]) && IsAlnum(right)) {
      join = true;
      if (left == '\\') --end;  // a shell continuation inside a quoted token
    } else if (token(left) && token(right)) {
      size_t a = end;
      while (a > 0 && token(t[a - 1])) --a;
      size_t b = next;
      while (b < t.size() && token(t[b])) ++b;
      const std::string_view before = t.substr(a, end - a), after = t.substr(next, b - next);
      join = before.size() >= 12 && after.size() >= 8 && random_word(before) && random_word(after);
    }
    if (!join) continue;
    out.append(t.substr(copied, end - copied)).append(glue);
    copied = next;
    joined = true;
  }
  if (!joined) return "";
  out.append(t.substr(copied));
  return out;
}

std::string PercentDecoded(std::string_view t) {
  std::string out;
  bool decoded = false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '%' && i + 2 < t.size()) {
      const std::string hex = common::AsciiLower(t.substr(i + 1, 2));
      static constexpr std::array<std::pair<std::string_view, char>, 11> kEscapes = {{
          {"22", '"'}, {"27", '\''}, {"7b", '{'}, {"7d", '}'}, {"3a", ':'}, {"2c", ','}, {"20", ' '},
          {"23", '#'}, {"3d", '='}, {"26", '&'}, {"40", '@'},
      }};
      const auto it = std::find_if(kEscapes.begin(), kEscapes.end(), [&](const auto& e) { return e.first == hex; });
      if (it != kEscapes.end()) {
        out.push_back(it->second);
        i += 2;
        decoded = true;
        continue;
      }
    }
    out.push_back(t[i]);
  }
  return decoded ? out : "";
}

Scan MakeScan(std::string_view raw, bool with_zones) { return ScanOf(Normalise(raw), with_zones); }

Scan ScanOf(std::string normalised, bool with_zones) {
  Scan s;
  s.text = std::move(normalised);
  s.lower = common::AsciiLower(s.text);
  if (with_zones) {
    s.zones = FindZones(s.text, s.lower);
  } else {
    s.zones.assign(s.text.size(), kText);
  }
  return s;
}

namespace {

// Whether a line (lowercased) says it shows documentation's examples: it
// names a published source ("the Slack docs", "RFC 7519", "the PostgreSQL manual",
// "git-credential(1) documents", "ICAO specimen", "test cards", "sample keys",
// "官方文档", "example JWT"). Not an example from one's own systems ("example
// from the logs"), nor "调用示例" (a team's own usage example) in Chinese.
bool DocumentationLine(std::string_view line) {
  // (Not "wiki", "readme" or "reference": a team's wiki holds its real passwords.)
  for (std::string_view word : {"docs", "documentation", "documents", "documented", "manual", "rfc", "specimen",
                                "sample key", "sample keys", "test card", "test cards", "test number", "test numbers",
                                "test vector", "test vectors", "test key", "test keys", "well-known", "tutorial",
                                "dummy", "fake", "example", "examples", "sample"}) {
    for (size_t at = line.find(word); at != std::string_view::npos; at = line.find(word, at + 1)) {
      const size_t end = at + word.size();
      if (at > 0 && (IsAlnum(line[at - 1]) || line[at - 1] == '@' || line[at - 1] == '.' || line[at - 1] == '-' ||
                     line[at - 1] == '_' || line[at - 1] == '/')) {
        continue;
      }
      // "docs.example.com", "docs_repo": a name, not a word.
      if (end < line.size() && (IsAlnum(line[end]) || line[end] == '_' || line[end] == '-' || line[end] == '@' ||
                                (line[end] == '.' && end + 1 < line.size() && IsAlpha(line[end + 1])))) {
        continue;
      }
      // An example taken from one's own systems is real: "example from the logs", "example from prod".
      if (word == "example" || word == "examples" || word == "sample") {
        const std::string_view after = line.substr(end, 24);
        if (StartsWith(after, 0, " from the log") || StartsWith(after, 0, " from our") ||
            StartsWith(after, 0, " from prod") || StartsWith(after, 0, " from the server") ||
            StartsWith(after, 0, " from my")) {
          continue;
        }
      }
      // "the docs repo", "the docs site": a place where one's own things are.
      if (word == "docs") {
        const std::string_view after = line.substr(end, 8);
        if (StartsWith(after, 0, " repo") || StartsWith(after, 0, " site") || StartsWith(after, 0, " team") ||
            StartsWith(after, 0, " folder") || StartsWith(after, 0, " bucket") || StartsWith(after, 0, " server")) {
          continue;
        }
      }
      return true;
    }
  }
  for (std::string_view zh : {"测试卡", "官方文档", "文档里", "文档中", "文档的", "官方示例", "文档示例", "教程", "手册"}) {
    if (line.find(zh) != std::string_view::npos) return true;
  }
  return false;
}

bool ListItem(std::string_view line) {
  size_t k = 0;
  while (k < line.size() && (line[k] == ' ' || line[k] == '\t' || line[k] == '>')) ++k;
  if (k + 1 < line.size() && (line[k] == '-' || line[k] == '*' || line[k] == '+') && line[k + 1] == ' ') return true;
  size_t d = k;
  while (d < line.size() && IsDigit(line[d])) ++d;
  return d > k && d + 1 < line.size() && (line[d] == '.' || line[d] == ')') && line[d + 1] == ' ';
}

}  // namespace

bool DocumentedAt(const Scan& s, size_t at) {
  const std::string_view l = s.lower;
  if (at >= l.size()) return false;
  auto line_of = [&](size_t k, size_t* b, size_t* e) {
    const size_t nl = k == 0 ? std::string_view::npos : l.rfind('\n', k - 1);
    *b = nl == std::string_view::npos ? 0 : nl + 1;
    const size_t end = l.find('\n', k);
    *e = end == std::string_view::npos ? l.size() : end;
  };
  size_t b = 0, e = 0;
  line_of(at, &b, &e);
  if (DocumentationLine(l.substr(b, e - b))) return true;
  // An item of a list: the line that introduces the list.
  for (int n = 0; n < 32 && ListItem(l.substr(b, e - b)) && b > 0; ++n) {
    line_of(b - 1, &b, &e);
    while (b > 0 && l.substr(b, e - b).find_first_not_of(" \t\r") == std::string_view::npos) line_of(b - 1, &b, &e);
    if (!ListItem(l.substr(b, e - b))) return DocumentationLine(l.substr(b, e - b));
  }
  // A row of a table: the line above the table.
  const size_t row_b = b;
  for (int n = 0; n < 64 && b > 0 && StartsWith(l.substr(b, e - b), 0, "|"); ++n) {
    line_of(b - 1, &b, &e);
    while (b > 0 && l.substr(b, e - b).find_first_not_of(" \t\r") == std::string_view::npos) line_of(b - 1, &b, &e);
    if (!StartsWith(l.substr(b, e - b), 0, "|")) return DocumentationLine(l.substr(b, e - b));
  }
  line_of(row_b, &b, &e);
  // A line of a code block: the line that introduces the block, above its fence.
  {
    size_t cb = b, ce = e;
    for (int n = 0; n < 60 && cb > 0; ++n) {
      line_of(cb - 1, &cb, &ce);
      std::string_view line = l.substr(cb, ce - cb);
      while (!line.empty() && (line.front() == ' ' || line.front() == '>')) line.remove_prefix(1);
      if (!StartsWith(line, 0, "```") && !StartsWith(line, 0, "~~~")) continue;
      for (int m = 0; m < 3 && cb > 0; ++m) {
        line_of(cb - 1, &cb, &ce);
        const std::string_view intro = l.substr(cb, ce - cb);
        if (intro.find_first_not_of(" \t\r>") == std::string_view::npos) continue;
        if (DocumentationLine(intro)) return true;
        break;
      }
      break;
    }
  }
  // A value on its own line (a quoted token): the line above that introduces it with a colon, past blank lines.
  for (int n = 0; n < 4 && b > 0; ++n) {
    line_of(b - 1, &b, &e);
    std::string_view line = l.substr(b, e - b);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    if (line.empty() || StartsWith(line, 0, "```")) continue;
    return line.back() == ':' && DocumentationLine(line);
  }
  return false;
}

}  // namespace engram::sync::sensitive
