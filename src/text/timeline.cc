// Dates at the start of timeline lines, in English and Chinese forms.
#include <array>
#include <cstdio>
#include <string>
#include <string_view>

#include "text/page_parser.h"

namespace engram::text {
namespace {

bool ReadInt(std::string_view s, size_t* i, int min_digits, int max_digits, int* value) {
  size_t start = *i;
  int v = 0;
  while (*i < s.size() && s[*i] >= '0' && s[*i] <= '9' && static_cast<int>(*i - start) < max_digits) {
    v = v * 10 + (s[*i] - '0');
    ++*i;
  }
  int n = static_cast<int>(*i - start);
  if (n < min_digits) {
    *i = start;
    return false;
  }
  // A longer digit run is not a date part ("20260" is not a year).
  if (*i < s.size() && s[*i] >= '0' && s[*i] <= '9') {
    *i = start;
    return false;
  }
  *value = v;
  return true;
}

bool Consume(std::string_view s, size_t* i, std::string_view lit) {
  if (s.substr(*i, lit.size()) == lit) {
    *i += lit.size();
    return true;
  }
  return false;
}

int MonthFromName(std::string_view s, size_t* i) {
  static constexpr std::array<std::string_view, 12> kNames = {
      "january", "february", "march", "april", "may", "june",
      "july", "august", "september", "october", "november", "december"};
  size_t start = *i;
  std::string word;
  while (*i < s.size() && ((s[*i] >= 'a' && s[*i] <= 'z') || (s[*i] >= 'A' && s[*i] <= 'Z'))) {
    word.push_back(static_cast<char>(s[*i] | 0x20));
    ++*i;
  }
  if (word.size() >= 3) {
    for (size_t m = 0; m < kNames.size(); ++m) {
      std::string_view name = kNames[m];
      if (word == name || (word.size() <= name.size() && name.substr(0, word.size()) == word &&
                           (word.size() == 3 || word == "sept"))) {
        if (*i < s.size() && s[*i] == '.') ++*i;
        return static_cast<int>(m) + 1;
      }
    }
  }
  *i = start;
  return 0;
}

std::string Format(int y, int m, int d) {
  char buf[16];
  if (m == 0) {
    std::snprintf(buf, sizeof buf, "%04d", y);
  } else if (d == 0) {
    std::snprintf(buf, sizeof buf, "%04d-%02d", y, m);
  } else {
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", y, m, d);
  }
  return buf;
}

bool Valid(int y, int m, int d) {
  static constexpr std::array<int, 12> kDays = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (y < 1000 || y > 9999) return false;
  if (m == 0) return d == 0;
  if (m < 1 || m > 12) return false;
  return d == 0 || (d >= 1 && d <= kDays[m - 1]);
}

void SkipSpaces(std::string_view s, size_t* i) {
  while (*i < s.size() && (s[*i] == ' ' || s[*i] == '\t')) ++*i;
}

}  // namespace

std::string ParseLeadingDate(std::string_view s, size_t* consumed) {
  size_t i = 0;
  int y = 0, m = 0, d = 0;
  if (ReadInt(s, &i, 4, 4, &y)) {
    size_t after_year = i;
    if (Consume(s, &i, "年")) {  // 2026年4月7日 / 2026年4月
      SkipSpaces(s, &i);
      size_t before_month = i;
      if (ReadInt(s, &i, 1, 2, &m) && (SkipSpaces(s, &i), Consume(s, &i, "月"))) {
        size_t before_day = i;
        SkipSpaces(s, &i);
        if (!(ReadInt(s, &i, 1, 2, &d) && (SkipSpaces(s, &i), Consume(s, &i, "日") || Consume(s, &i, "号")))) {
          i = before_day;
          d = 0;
        }
      } else {
        i = before_month;
        m = 0;
      }
    } else if (i < s.size() && (s[i] == '-' || s[i] == '/' || s[i] == '.')) {
      char sep = s[i++];
      if (ReadInt(s, &i, 1, 2, &m)) {
        size_t before_day = i;
        if (!(i < s.size() && s[i] == sep && (++i, ReadInt(s, &i, 1, 2, &d)))) {
          i = before_day;
          d = 0;
        }
      } else {
        i = after_year;
        m = 0;
      }
    }
    if (!Valid(y, m, d)) return "";
    *consumed = i;
    return Format(y, m, d);
  }
  // "April 7, 2026" / "Apr 2026" / "7 April 2026"
  i = 0;
  if ((m = MonthFromName(s, &i)) != 0) {
    SkipSpaces(s, &i);
    size_t before_day = i;
    if (ReadInt(s, &i, 1, 2, &d)) {
      Consume(s, &i, ",");
      SkipSpaces(s, &i);
    } else {
      i = before_day;
      d = 0;
    }
    if (!ReadInt(s, &i, 4, 4, &y) || !Valid(y, m, d)) return "";
    *consumed = i;
    return Format(y, m, d);
  }
  i = 0;
  if (ReadInt(s, &i, 1, 2, &d)) {
    SkipSpaces(s, &i);
    if ((m = MonthFromName(s, &i)) != 0) {
      SkipSpaces(s, &i);
      if (ReadInt(s, &i, 4, 4, &y) && Valid(y, m, d)) {
        *consumed = i;
        return Format(y, m, d);
      }
    }
  }
  return "";
}

}  // namespace engram::text
