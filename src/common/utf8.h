// UTF-8 helpers: validation, decoding one code point, encoding, and the
// Unicode normalisations the rest of engram relies on (through ICU).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace engram::common {

// Decodes the code point starting at s[*i] and advances *i past it. Invalid
// sequences yield U+FFFD and advance one byte, so callers never loop forever.
char32_t DecodeUtf8(std::string_view s, size_t* i);

void AppendUtf8(char32_t cp, std::string* out);

// True when s is well-formed UTF-8 (no overlongs, surrogates or > U+10FFFF).
bool IsValidUtf8(std::string_view s);

// Byte offset of the first invalid sequence, or npos when s is valid.
size_t FindInvalidUtf8(std::string_view s);

// Unicode NFC of valid UTF-8 text.
std::string NormalizeNfc(std::string_view s);

// Unicode NFKC with full case folding (ICU's NFKC_Casefold): folds
// full-width forms to half-width, ligatures, compatibility characters and case.
std::string NfkcCasefold(std::string_view s);

// Lower-cases ASCII letters only; other bytes are kept (for matching file
// names, keywords and markup where Unicode case folding is not wanted).
std::string AsciiLower(std::string_view s);

// s without leading and trailing ASCII whitespace (space, tab, CR, LF).
inline std::string_view TrimSpace(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// Simple lower-casing of valid UTF-8 text (full Unicode, locale-independent).
std::string ToLower(std::string_view s);

// True for Han ideographs (CJK Unified, Extension A-F, compatibility).
bool IsHan(char32_t cp);
// True for Hiragana and Katakana (including half-width Katakana).
bool IsKana(char32_t cp);
// Han or Kana: scripts written without spaces between words.
inline bool IsCjk(char32_t cp) { return IsHan(cp) || IsKana(cp); }

// Letters and digits of any script (Unicode general categories L*, N*, Mn/Mc).
bool IsWordChar(char32_t cp);

// Number of "words" in text for length budgets: each Latin-like word counts
// one, each CJK character counts one (a CJK character carries about as much as
// a short English word).
size_t CountWords(std::string_view s);

// Columns s takes in a terminal: East Asian wide and full-width characters
// two, combining marks and zero-width characters none, others one (invalid
// bytes count one each).
size_t DisplayWidth(std::string_view s);

}  // namespace engram::common
