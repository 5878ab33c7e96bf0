#include "text/note_date.h"

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "text/page_parser.h"

namespace engram::text {

namespace {

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
// (H. Hinnant's days_from_civil): no time zone, no libc.
int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void CivilFromDays(int64_t z, int* y, int* m, int* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *y = static_cast<int>(yoe + era * 400 + (*m <= 2 ? 1 : 0));
}

struct Cursor {
  std::string_view s;
  size_t i = 0;

  bool AtEnd() const { return i == s.size(); }
  bool Eat(char c) {
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  // Between min and max decimal digits.
  bool Number(size_t min, size_t max, int* out) {
    size_t n = 0;
    int v = 0;
    while (i + n < s.size() && n < max && s[i + n] >= '0' && s[i + n] <= '9') v = v * 10 + (s[i + n++] - '0');
    if (n < min) return false;
    i += n;
    *out = v;
    return true;
  }
  size_t Spaces() {
    size_t n = 0;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i, ++n;
    return n;
  }
};

std::string Day(int y, int m, int d) {
  char buf[48];  // room for any int, so the compiler sees no truncation
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", y, m, d);
  return buf;
}

// The ISO 8601 / YAML timestamp forms.
std::optional<std::string> ParseIso(std::string_view s) {
  Cursor c{s};
  int y = 0, mo = 0, d = 0;
  if (!c.Number(4, 4, &y) || !c.Eat('-') || !c.Number(1, 2, &mo) || !c.Eat('-') || !c.Number(1, 2, &d)) {
    return std::nullopt;
  }
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > DaysInMonth(y, mo)) return std::nullopt;
  if (c.AtEnd()) return Day(y, mo, d);
  if (!c.Eat('T') && !c.Eat('t') && c.Spaces() == 0) return std::nullopt;
  int h = 0, mi = 0, sec = 0;
  if (!c.Number(1, 2, &h) || !c.Eat(':') || !c.Number(2, 2, &mi)) return std::nullopt;
  if (c.Eat(':')) {
    if (!c.Number(2, 2, &sec)) return std::nullopt;
    if (c.Eat('.')) {
      int ignored = 0;
      if (!c.Number(1, 9, &ignored)) return std::nullopt;
      while (!c.AtEnd() && s[c.i] >= '0' && s[c.i] <= '9') ++c.i;  // finer than seconds: dropped
    }
  }
  if (h > 23 || mi > 59 || sec > 60) return std::nullopt;
  int offset_minutes = 0;
  c.Spaces();
  if (c.Eat('Z') || c.Eat('z')) {
  } else if (!c.AtEnd() && (s[c.i] == '+' || s[c.i] == '-')) {
    const int sign = s[c.i++] == '-' ? -1 : 1;
    int oh = 0, om = 0;
    if (!c.Number(1, 2, &oh)) return std::nullopt;
    if (c.Eat(':')) {
      if (!c.Number(2, 2, &om)) return std::nullopt;
    } else if (!c.AtEnd()) {
      if (!c.Number(2, 2, &om)) return std::nullopt;
    }
    if (oh > 14 || om > 59) return std::nullopt;
    offset_minutes = sign * (oh * 60 + om);
  }
  if (!c.AtEnd()) return std::nullopt;
  const int64_t t = DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset_minutes * 60;
  int64_t days = t / 86400, rest = t % 86400;
  if (rest < 0) rest += 86400, --days;
  int uy = 0, um = 0, ud = 0;
  CivilFromDays(days, &uy, &um, &ud);
  if (uy < 1 || uy > 9999) return std::nullopt;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%sT%02d:%02d:%02dZ", Day(uy, um, ud).c_str(), static_cast<int>(rest / 3600),
                static_cast<int>(rest / 60 % 60), static_cast<int>(rest % 60));
  return std::string(buf);
}

}  // namespace

std::optional<std::string> NormalizeNoteDate(std::string_view value) {
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r' ||
                            value.back() == '\n')) {
    value.remove_suffix(1);
  }
  if (value.empty()) return std::nullopt;
  if (auto iso = ParseIso(value)) return iso;
  // Other ways of writing a whole day, as timeline lines accept them.
  size_t consumed = 0;
  std::string day = ParseLeadingDate(value, &consumed);
  if (day.size() != 10 || consumed != value.size()) return std::nullopt;
  const int y = std::stoi(day.substr(0, 4)), m = std::stoi(day.substr(5, 2)), d = std::stoi(day.substr(8, 2));
  if (y < 1 || m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m)) return std::nullopt;
  return day;
}

void ReadNoteDates(const nlohmann::json& fm, Page* page) {
  if (!fm.is_object()) return;
  constexpr const char* kKeys[] = {"updated", "date", "created"};
  std::optional<std::string> found[3];
  for (int k = 0; k < 3; ++k) {
    auto it = fm.find(kKeys[k]);
    if (it == fm.end() || it->is_null()) continue;
    if (it->is_string()) {
      const std::string& v = it->get_ref<const std::string&>();
      if (v.find_first_not_of(" \t\r\n") == std::string::npos) continue;
      found[k] = NormalizeNoteDate(v);
    }
    if (!found[k]) {
      std::string w = "frontmatter: '";
      w.append(kKeys[k]).append("' is not a date (write 2024-05-01 or 2024-05-01T10:00:00Z); ignored");
      page->warnings.push_back(std::move(w));
    }
  }
  page->date = found[0] ? *found[0] : found[1] ? *found[1] : found[2] ? *found[2] : "";
  page->created = found[2] ? *found[2] : found[1] ? *found[1] : "";
}

}  // namespace engram::text
