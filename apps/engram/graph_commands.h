// `engram entity resolve | facts | conflicts | graph | path | dead-links |
// orphans`: the knowledge graph.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace engram::cli {

// Adds the subcommands; when one ran, *exit_code holds its exit status.
void AddGraphCommands(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code);

}  // namespace engram::cli
