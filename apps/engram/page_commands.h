// `engram put | get | list | delete`: one page at a time; `backlinks |
// timeline | tag | link`: the parts of a page.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace engram::cli {

// Adds the subcommands; when one ran, *exit_code holds its exit status.
void AddPageCommands(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code);

}  // namespace engram::cli
