// `engram call OP 'JSON'`: any operation of the operation layer from a shell.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace engram::cli {

// Adds the subcommand; when it ran, *exit_code holds its exit status.
void AddCallCommand(CLI::App& app, const std::string* brain_dir, int* exit_code);

}  // namespace engram::cli
