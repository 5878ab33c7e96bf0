// Commands of the embedding runtime that need no brain: `engram vectorize`
// and `engram bench embed`.
#pragma once

#include <CLI/CLI.hpp>

namespace engram::cli {

// Adds the subcommands to app; when one of them ran, *exit_code holds its
// exit status (it stays -1 otherwise).
void AddEmbedCommands(CLI::App& app, const bool* json, int* exit_code);

}  // namespace engram::cli
