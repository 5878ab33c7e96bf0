// Reading and writing <brain>/.engram/config.toml.
#pragma once

#include <filesystem>
#include <string>

#include "engram/options.h"
#include "engram/status.h"

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

}  // namespace engram::ops
