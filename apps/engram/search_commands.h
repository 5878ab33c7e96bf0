// `engram search | context | bench search`: queries against the brain.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace engram::cli {

// Add the subcommands: search and context; bench search under the existing
// `bench` (so after AddVectorBenchCommand). When one ran, *exit_code holds
// its exit status.
void AddSearchCommands(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code);
void AddBenchSearchCommand(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code);

// After a usage error: when the command was search or context and an
// argument reads like an option ("-word"), says how to pass such a query.
void HintDashQuery(const CLI::App& app, int argc, char** argv);

}  // namespace engram::cli
