// Reading and writing <brain>/.engram/config.toml.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "engram/options.h"
#include "engram/status.h"
#include "ops/toml_subset.h"

namespace engram::ops {

// The config file written by `engram init`: every setting with its default
// and what it does.
std::string DefaultConfigToml();

// Parses config text. Unknown sections or keys, wrong types and out-of-range
// values are InvalidArgument naming the file, key and line: a setting that
// cannot apply is an error, never silently ignored.
Result<BrainOptions> ParseConfig(const std::string& toml_text, const std::string& file_name);

// Applies ENGRAM_<SECTION>_<KEY> environment overrides (e.g.
// ENGRAM_SEARCH_LIMIT=20), validated like the file.
Status ApplyEnvironment(BrainOptions* options);

Result<BrainOptions> LoadConfig(const std::filesystem::path& config_file);

enum class SettingType { kInteger, kNumber, kString, kList };

// One key of config.toml, described from the tables ParseConfig reads with,
// so `engram config` and loading cannot disagree about what exists.
struct SettingInfo {
  std::string section;  // "embedding"
  std::string key;      // "provider"
  std::string name;     // "embedding.provider"
  SettingType type = SettingType::kString;
  double min = 0, max = 0;           // kInteger / kNumber: the accepted range
  std::vector<std::string> allowed;  // kString with a fixed set of values (search.mode allows ""); else empty
  std::string env;                   // the ENGRAM_* variable that overrides it; "" when none does
  bool reindexes = false;            // changing it re-indexes pages at the next sync or import
};

// Every setting, in the order DefaultConfigToml() lists them.
const std::vector<SettingInfo>& SettingCatalogue();

// The value options holds for setting: a number, a string or a list.
TomlValue SettingValue(const BrainOptions& options, const SettingInfo& setting);

// "integer", "number", "string" or "list".
const char* SettingTypeName(SettingType type);

// The store URI of the brain at root: sqlite:ROOT/.engram/engram.db, or the
// PostgreSQL URL [store] names (url_env's variable first, then url);
// FailedPrecondition naming what is missing.
Result<std::string> BrainStoreUri(const std::filesystem::path& root, const StoreOptions& store);

// url without the password of its user part (postgres://user:pw@host → postgres://user@host).
std::string WithoutPassword(const std::string& url);

}  // namespace engram::ops
