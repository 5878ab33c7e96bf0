// `engram kb create | list | upsert | delete | search | import | export |
// online | offline | audit | reindex`:
// knowledge collections (the red-line knowledge service) from the shell.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace engram::cli {

// Adds the `kb` command; when one of its subcommands ran, *exit_code holds its exit status.
void AddKbCommands(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code);

}  // namespace engram::cli
