// Content rules for personal numbers: Chinese resident ID numbers, Chinese
// mobile numbers and payment card numbers, each checked (province, date and
// check digit; prefix and shape; issuer and Luhn) and read in context.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "sync/sensitive_scan.h"

namespace engram::sync::sensitive {

namespace {

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

// anywhere: also digits in a URL or a file name, and glued to '_' ("身份证_3201…_正面.jpg") — for numbers
// whose checks no timestamp or id passes by chance.
template <typename Fn>
bool AnyDigitSeq(const Scan& s, Fn&& fn, bool anywhere = false) {
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
    q.attached_left = IsAlpha(before) || (before == '_' && !anywhere) ||
                      ((before == '-' || before == '.') && q.begin > 1 && IsAlnum(t[q.begin - 2]));
    char after = q.end < t.size() ? t[q.end] : ' ';
    q.attached_right =
        IsAlpha(after) || (after == '_' && !anywhere) ||
        ((after == '-' || after == '.' || (after == '_' && !anywhere)) && q.end + 1 < t.size() && IsAlnum(t[q.end + 1]));
    bool zoned = false;
    for (size_t k = q.begin; k < q.end && !zoned && !anywhere; ++k) zoned = s.ZoneAt(k) != kText;
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

}  // namespace

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
            return b == q.groups.size() && d.size() == 17 && valid(d, 'X') && !IsPublicExample(d + "X");
          })) {
        return true;
      }
    }
    return AnyWindow(q, [&](size_t, size_t, const std::string& d) {
      return d.size() == 18 && valid(d.substr(0, 17), d[17]) && !IsPublicExample(d);
    });
  }, /*anywhere=*/true);
}

namespace {

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

}  // namespace

// Mainland mobile numbers: 1[3-9] and nine digits, written 13812345678,
// 138 1234 5678, 138-1234-5678, with or without +86 / 0086 in front.
bool ChineseMobile(const Scan& s) {
  // A tel: or sms: link dials the number whatever else its URL holds.
  for (std::string_view scheme : {"tel:", "sms:"}) {
    for (size_t at = s.lower.find(scheme); at != std::string::npos; at = s.lower.find(scheme, at + 1)) {
      if (at > 0 && IsAlnum(s.lower[at - 1])) continue;
      std::string d;
      for (size_t k = at + 4; k < s.text.size() && d.size() < 16 && (IsDigit(s.text[k]) || s.text[k] == '+' ||
                                                                      s.text[k] == '-' || s.text[k] == ' ');
           ++k) {
        if (IsDigit(s.text[k])) d.push_back(s.text[k]);
      }
      if (d.size() == 13 && StartsWith(d, 0, "86")) d.erase(0, 2);
      if (d.size() == 11 && d[0] == '1' && d[1] >= '3') return true;
    }
  }
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

namespace {

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
  if (nl != std::string::npos && nl >= b) {
    // A number alone at the start of its line is labelled by the line before ("card:\n4539…").
    const bool alone = l.substr(nl + 1, begin - nl - 1).find_first_not_of(" \t>") == std::string::npos;
    const size_t prev = nl > 0 ? l.rfind('\n', nl - 1) : std::string::npos;
    b = alone ? (prev == std::string::npos ? 0 : prev + 1) : nl + 1;
  }
  size_t nr = l.find('\n', end);
  if (nr != std::string::npos && nr < e) e = nr;
  std::string_view window = std::string_view(l).substr(b, e - b);
  return std::any_of(kWords.begin(), kWords.end(), [&](std::string_view w) { return Contains(window, w); });
}

}  // namespace

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
      if (d.size() < 13 || !CardIssuer(d) || !Luhn(d) || IsPublicExample(d)) return false;
      // Five equal digits in a row: the networks' and banks' test numbers ("4000 0000 0000 9995",
      // "6216261000000000018"), never an issued card's.
      for (size_t k = 0; k + 5 <= d.size(); ++k) {
        if (std::all_of(d.begin() + static_cast<std::ptrdiff_t>(k) + 1, d.begin() + static_cast<std::ptrdiff_t>(k) + 5,
                        [&](char c) { return c == d[k]; })) {
          return false;
        }
      }
      if (DocumentedAt(s, q.begin)) return false;
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

}  // namespace engram::sync::sensitive
