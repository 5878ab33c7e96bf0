// Reading and editing <brain>/.engram/config.toml setting by setting, for
// `engram config get|set|unset|list`.
//
// An edit changes one line of the file and keeps every other byte (comments,
// blank lines, key order, line endings). Before anything is written the whole
// resulting text goes through ParseConfig — the code that loads the file — so
// a value that loading would refuse (type, range, allowed values, rules that
// tie settings together) is refused here with the same message, and the file
// is rewritten atomically (a temp file renamed over it in the same folder).
// Functions are thread-compatible; two processes editing at once each write a
// whole, valid file and the last rename wins.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "ops/config.h"
#include "ops/toml_subset.h"

namespace engram::ops {

// Where a setting's effective value comes from (flags aside).
enum class SettingSource { kDefault, kFile, kEnvironment };

// "default", "config.toml" or "environment".
const char* SettingSourceName(SettingSource source);

struct EffectiveSetting {
  const SettingInfo* setting = nullptr;  // a row of SettingCatalogue()
  TomlValue value;
  SettingSource source = SettingSource::kDefault;
};

// The catalogue row named "section.key". NotFound "unknown setting 'x'" that
// names up to three close names (edit distance, or the same key in another
// section) when there are any.
Result<const SettingInfo*> FindSetting(std::string_view name);

// Every setting in catalogue order, as a brain loads them: config_file (a
// missing file means the defaults), then ENGRAM_* variables. A file or
// variable that does not load is FailedPrecondition with loading's message.
Result<std::vector<EffectiveSetting>> EffectiveSettings(const std::filesystem::path& config_file);

// A value given on the command line: a number for numbers ("20", "0.5",
// "5_242_880"), the text itself for strings (no quotes needed), a JSON or
// TOML array of strings for lists ('["04_Archive", "Templates"]').
// InvalidArgument naming the expected form. Ranges and allowed values are
// not checked here (ParseConfig does that on the whole file).
Result<TomlValue> ParseSettingArgument(const SettingInfo& setting, std::string_view text);

// A value for people: SettingValueToml as config.toml writes it ("openai"
// with its quotes, 10, ["a"]); SettingValueText as `config get` prints it
// (strings bare, the rest as TOML). Never fails: what TOML cannot hold (only
// an environment variable can supply it) is shown JSON-escaped.
std::string SettingValueToml(const TomlValue& value);
std::string SettingValueText(const TomlValue& value);

// Pure text edits, in file order. SetInConfigText replaces the value on the
// key's line (spacing and a trailing comment kept) or, when the key is
// absent, adds `key = value` after the last key of its section (the section
// is appended at the end of the text when absent). UnsetInConfigText removes
// the key's line (the text unchanged when the key is absent). A text that
// does not parse as TOML is FailedPrecondition with the parse error.
// file_name only labels messages.
Result<std::string> SetInConfigText(std::string_view text, const SettingInfo& setting, const TomlValue& value,
                                    const std::string& file_name);
Result<std::string> UnsetInConfigText(std::string_view text, const SettingInfo& setting,
                                      const std::string& file_name);

struct ConfigEditReport {
  bool changed = false;   // false: the file already said so (or, unset: did not set it)
  TomlValue value;        // set: the value written; unset: the default that applies again
};

// Read config_file (missing: empty), edit, check the whole result with
// ParseConfig and write it atomically. On any error the file is untouched:
// FailedPrecondition when the file does not parse, InvalidArgument when the
// result would not load (the message names what to change first when the
// refusal comes from another setting), IOError from the disk.
Result<ConfigEditReport> SetSetting(const std::filesystem::path& config_file, const SettingInfo& setting,
                                    std::string_view value_text);
Result<ConfigEditReport> UnsetSetting(const std::filesystem::path& config_file, const SettingInfo& setting);

}  // namespace engram::ops
