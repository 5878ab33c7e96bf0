// A strict parser for the part of TOML that config.toml uses: [tables],
// key = value lines with integers, floats, booleans, "basic strings" and
// arrays of strings, and # comments. Anything else is an error naming the
// line, so every config file engram accepts is also valid TOML.
//
// (toml++ 3.3.0 from Debian reaches __builtin_unreachable on some non-ASCII
// input, found by fuzz/config_fuzz.cc; a config file must never do that.)
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engram/status.h"

namespace engram::ops {

struct TomlValue {
  std::variant<double, bool, std::string, std::vector<std::string>> value;
  bool is_integer = false;  // a number written without '.', 'e' or 'E'
};

struct TomlEntry {
  std::string table;  // "" for keys before the first [table]
  std::string key;
  TomlValue value;
  int line = 0;
};

constexpr size_t kMaxTomlBytes = 1u << 20;

// Entries in file order. Duplicate keys in one table are errors, and so is
// a text over kMaxTomlBytes.
Result<std::vector<TomlEntry>> ParseTomlSubset(std::string_view text, const std::string& file_name);

// The writer beside the parser: a value as one line of TOML that
// ParseTomlSubset reads back as the same value. Numbers in their shortest
// decimal form without exponent (5242880, 0.9); strings as basic strings with
// '"', '\\', newline and tab escaped. InvalidArgument for a string that is not
// valid UTF-8 or holds another control character (the subset has no escape
// for them), naming the byte offset.
Result<std::string> FormatTomlValue(const TomlValue& value);
Result<std::string> FormatTomlString(std::string_view text);
// Shortest decimal text of a finite number without exponent ("1000", "0.9").
std::string FormatTomlNumber(double number);

}  // namespace engram::ops
