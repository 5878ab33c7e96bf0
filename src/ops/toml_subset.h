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

}  // namespace engram::ops
