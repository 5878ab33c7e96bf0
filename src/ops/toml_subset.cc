#include "ops/toml_subset.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "common/utf8.h"

namespace engram::ops {

namespace {

bool IsBareKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

class LineParser {
 public:
  LineParser(std::string_view line, std::string where) : s_(line), where_(std::move(where)) {}

  void SkipSpace() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  bool AtEnd() {
    SkipSpace();
    return i_ == s_.size() || s_[i_] == '#';
  }
  char Peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }

  Result<std::string> BareKey() {
    SkipSpace();
    size_t start = i_;
    while (i_ < s_.size() && IsBareKeyChar(s_[i_])) ++i_;
    if (i_ == start) return Error("expected a name (letters, digits, '_' or '-')");
    return std::string(s_.substr(start, i_ - start));
  }

  Result<std::string> String() {
    if (Peek() != '"') return Error("expected a \"string\"");
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (c == '\\') {
        if (i_ >= s_.size()) break;
        char e = s_[i_++];
        switch (e) {
          case '"': out.push_back('"'); break;
          case '\\': out.push_back('\\'); break;
          case 'n': out.push_back('\n'); break;
          case 't': out.push_back('\t'); break;
          default: return Error(std::string("unsupported escape \\") + e + " in a string");
        }
      } else if (static_cast<unsigned char>(c) < 0x20 && c != '\t') {
        return Error("control character in a string");
      } else {
        out.push_back(c);
      }
    }
    if (i_ >= s_.size()) return Error("string is not closed");
    ++i_;
    return out;
  }

  Result<TomlValue> Value() {
    SkipSpace();
    TomlValue v;
    char c = Peek();
    if (c == '"') {
      ENGRAM_ASSIGN_OR_RETURN(std::string str, String());
      v.value = std::move(str);
      return v;
    }
    if (c == '[') {
      ++i_;
      std::vector<std::string> items;
      SkipSpace();
      while (Peek() != ']') {
        SkipSpace();
        ENGRAM_ASSIGN_OR_RETURN(std::string item, String());
        items.push_back(std::move(item));
        SkipSpace();
        if (Peek() == ',') {
          ++i_;
          SkipSpace();
        } else if (Peek() != ']') {
          return Error("expected ',' or ']' in an array (arrays hold \"strings\" on one line)");
        }
      }
      ++i_;
      v.value = std::move(items);
      return v;
    }
    size_t start = i_;
    while (i_ < s_.size() && s_[i_] != ' ' && s_[i_] != '\t' && s_[i_] != '#') ++i_;
    std::string word(s_.substr(start, i_ - start));
    if (word == "true" || word == "false") {
      v.value = word == "true";
      return v;
    }
    std::string digits;
    for (char d : word) {
      if (d != '_') digits.push_back(d);  // TOML allows 5_242_880
    }
    if (digits.empty() || digits.find_first_not_of("+-0123456789.eE") != std::string::npos) {
      return Error("'" + word + "' is not a number, true/false, \"string\" or [array]");
    }
    char* end = nullptr;
    double num = std::strtod(digits.c_str(), &end);
    if (end != digits.c_str() + digits.size() || !std::isfinite(num)) return Error("'" + word + "' is not a number");
    v.value = num;
    v.is_integer = digits.find_first_of(".eE") == std::string::npos;
    return v;
  }

  Status Error(const std::string& what) const { return Status::InvalidArgument(where_ + ": " + what); }
  bool Consume(char c) {
    SkipSpace();
    if (Peek() != c) return false;
    ++i_;
    return true;
  }

 private:
  std::string_view s_;
  std::string where_;
  size_t i_ = 0;
};

}  // namespace

Result<std::vector<TomlEntry>> ParseTomlSubset(std::string_view text, const std::string& file_name) {
  // Limits of outside input, checked before anything else: a size cap here
  // (whoever calls), and no nesting at all — arrays hold strings only and
  // inline tables do not exist, so nothing recurses.
  if (text.size() > kMaxTomlBytes) {
    return Status::InvalidArgument(file_name + ": " + std::to_string(text.size()) + " bytes, over the limit of " +
                                   std::to_string(kMaxTomlBytes) + " for a config file");
  }
  if (size_t bad = common::FindInvalidUtf8(text); bad != std::string_view::npos) {
    return Status::InvalidArgument(file_name + ": not valid UTF-8 at byte " + std::to_string(bad));
  }
  std::vector<TomlEntry> entries;
  std::set<std::string> seen_keys, seen_tables;
  std::string table;
  int number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++number;
    start = end + 1;
    std::string where = file_name + ":" + std::to_string(number);
    LineParser p(line, where);
    if (p.AtEnd()) {
      if (end == text.size()) break;
      continue;
    }
    if (p.Consume('[')) {
      ENGRAM_ASSIGN_OR_RETURN(table, p.BareKey());
      if (!p.Consume(']')) return p.Error("expected ']' after the table name");
      if (!p.AtEnd()) return p.Error("unexpected text after [" + table + "]");
      if (!seen_tables.insert(table).second) return p.Error("table [" + table + "] appears twice");
    } else {
      ENGRAM_ASSIGN_OR_RETURN(std::string key, p.BareKey());
      if (!p.Consume('=')) return p.Error("expected '=' after " + key);
      ENGRAM_ASSIGN_OR_RETURN(TomlValue value, p.Value());
      if (!p.AtEnd()) return p.Error("unexpected text after the value of " + key);
      if (!seen_keys.insert(table + "." + key).second) return p.Error(key + " is set twice");
      entries.push_back({table, key, std::move(value), number});
    }
    if (end == text.size()) break;
  }
  return entries;
}

std::string FormatTomlNumber(double number) {
  // Fixed notation, shortest digits that read back as the same double: the
  // parser reads "1e+06" too, but people read "1000000".
  char buf[400];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, number, std::chars_format::fixed);
  if (ec != std::errc()) return std::to_string(number);
  return std::string(buf, end);
}

Result<std::string> FormatTomlString(std::string_view text) {
  if (size_t bad = common::FindInvalidUtf8(text); bad != std::string_view::npos) {
    return Status::InvalidArgument("not valid UTF-8 at byte " + std::to_string(bad));
  }
  std::string out = "\"";
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (c == '\n') {
      out.append("\\n");
    } else if (c == '\t') {
      out.append("\\t");
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char code[16];
      std::snprintf(code, sizeof code, "U+%04X", static_cast<unsigned>(static_cast<unsigned char>(c)));
      return Status::InvalidArgument(std::string("control character ") + code + " at byte " + std::to_string(i) +
                                     " (of the control characters only newline and tab can be written)");
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

Result<std::string> FormatTomlValue(const TomlValue& value) {
  if (const double* number = std::get_if<double>(&value.value)) {
    if (!std::isfinite(*number)) return Status::InvalidArgument("not a finite number");
    return FormatTomlNumber(*number);
  }
  if (const bool* flag = std::get_if<bool>(&value.value)) return std::string(*flag ? "true" : "false");
  if (const std::string* text = std::get_if<std::string>(&value.value)) return FormatTomlString(*text);
  std::string out = "[";
  for (const std::string& item : std::get<std::vector<std::string>>(value.value)) {
    ENGRAM_ASSIGN_OR_RETURN(std::string quoted, FormatTomlString(item));
    if (out.size() > 1) out.append(", ");
    out.append(quoted);
  }
  out.push_back(']');
  return out;
}

}  // namespace engram::ops
