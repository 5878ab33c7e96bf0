// `engram init | import | sync | audit | check | hook | status`: the brain as
// a whole — creating it, indexing its files, verifying and describing it.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace engram::cli {

// Add the subcommands (init, import, sync, audit, check, hook; status apart,
// to keep its place in --help); when one ran, *exit_code holds its exit status.
void AddBrainCommands(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code);
void AddStatusCommand(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code);

}  // namespace engram::cli
