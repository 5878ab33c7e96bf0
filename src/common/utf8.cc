#include "common/utf8.h"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

namespace engram::common {

char32_t DecodeUtf8(std::string_view s, size_t* i) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size();
  size_t k = *i;
  unsigned char c = p[k];
  if (c < 0x80) {
    *i = k + 1;
    return c;
  }
  int len;
  char32_t cp;
  char32_t min;
  if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; min = 0x80; }
  else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; min = 0x800; }
  else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; min = 0x10000; }
  else { *i = k + 1; return 0xFFFD; }
  if (k + len > n) { *i = k + 1; return 0xFFFD; }
  for (int j = 1; j < len; ++j) {
    unsigned char cc = p[k + j];
    if ((cc & 0xC0) != 0x80) { *i = k + 1; return 0xFFFD; }
    cp = (cp << 6) | (cc & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    *i = k + 1;
    return 0xFFFD;
  }
  *i = k + len;
  return cp;
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

size_t FindInvalidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    size_t start = i;
    char32_t cp = DecodeUtf8(s, &i);
    // A genuine U+FFFD takes three bytes; a decoding failure advances one.
    if (cp == 0xFFFD && i - start == 1) return start;
  }
  return std::string_view::npos;
}

bool IsValidUtf8(std::string_view s) { return FindInvalidUtf8(s) == std::string_view::npos; }

namespace {

std::string Normalize(const icu::Normalizer2* norm, std::string_view s) {
  if (norm == nullptr) return std::string(s);
  UErrorCode err = U_ZERO_ERROR;
  icu::UnicodeString in = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), s.size()));
  icu::UnicodeString out = norm->normalize(in, err);
  if (U_FAILURE(err)) return std::string(s);
  std::string result;
  out.toUTF8String(result);
  return result;
}

const icu::Normalizer2* NfcInstance() {
  UErrorCode err = U_ZERO_ERROR;
  const icu::Normalizer2* n = icu::Normalizer2::getNFCInstance(err);
  return U_SUCCESS(err) ? n : nullptr;
}

const icu::Normalizer2* NfkcCfInstance() {
  UErrorCode err = U_ZERO_ERROR;
  const icu::Normalizer2* n = icu::Normalizer2::getNFKCCasefoldInstance(err);
  return U_SUCCESS(err) ? n : nullptr;
}

}  // namespace

std::string NormalizeNfc(std::string_view s) {
  static const icu::Normalizer2* norm = NfcInstance();
  return Normalize(norm, s);
}

std::string NfkcCasefold(std::string_view s) {
  static const icu::Normalizer2* norm = NfkcCfInstance();
  return Normalize(norm, s);
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string ToLower(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    char32_t cp = DecodeUtf8(s, &i);
    AppendUtf8(static_cast<char32_t>(u_tolower(static_cast<UChar32>(cp))), &out);
  }
  return out;
}

bool IsHan(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2FA1F) || (cp >= 0xF900 && cp <= 0xFAFF) || cp == 0x3007;
}

bool IsKana(char32_t cp) {
  return (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x31F0 && cp <= 0x31FF) ||
         (cp >= 0xFF66 && cp <= 0xFF9F);
}

bool IsWordChar(char32_t cp) {
  if (cp < 0x80) {
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
  }
  if (cp == 0xFFFD) return false;
  int8_t cat = u_charType(static_cast<UChar32>(cp));
  switch (cat) {
    case U_UPPERCASE_LETTER: case U_LOWERCASE_LETTER: case U_TITLECASE_LETTER:
    case U_MODIFIER_LETTER: case U_OTHER_LETTER: case U_DECIMAL_DIGIT_NUMBER:
    case U_LETTER_NUMBER: case U_OTHER_NUMBER: case U_NON_SPACING_MARK:
    case U_COMBINING_SPACING_MARK:
      return true;
    default:
      return false;
  }
}

size_t CountWords(std::string_view s) {
  size_t words = 0;
  bool in_word = false;
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {  // ASCII fast path
      ++i;
      bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      if (word && !in_word) ++words;
      in_word = word;
      continue;
    }
    char32_t cp = DecodeUtf8(s, &i);
    if (IsCjk(cp)) {
      ++words;
      in_word = false;
    } else if (IsWordChar(cp)) {
      if (!in_word) ++words;
      in_word = true;
    } else {
      in_word = false;
    }
  }
  return words;
}

size_t DisplayWidth(std::string_view s) {
  size_t width = 0, i = 0;
  while (i < s.size()) {
    const char32_t c = DecodeUtf8(s, &i);
    if (c < 0x80) {
      width += c >= 0x20 && c != 0x7f ? 1 : 0;
      continue;
    }
    const auto cp = static_cast<UChar32>(c);
    const int category = u_charType(cp);
    if (category == U_NON_SPACING_MARK || category == U_ENCLOSING_MARK || category == U_FORMAT_CHAR ||
        category == U_CONTROL_CHAR) {
      continue;
    }
    const int eaw = u_getIntPropertyValue(cp, UCHAR_EAST_ASIAN_WIDTH);
    width += eaw == U_EA_WIDE || eaw == U_EA_FULLWIDTH ? 2 : 1;
  }
  return width;
}

}  // namespace engram::common
