// `engram eval`: retrieval quality on a BEIR-layout benchmark.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace engram::cli {

// Adds the subcommand; when it ran, *exit_code holds its exit status.
void AddEvalCommand(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code);

}  // namespace engram::cli
