// `engram config list|get|set|unset`: read and edit .engram/config.toml one
// setting at a time (the editing itself is ops/config_edit.h).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace engram::cli {

// Adds the subcommand; when it ran, *exit_code holds its exit status.
void AddConfigCommand(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code);

}  // namespace engram::cli
