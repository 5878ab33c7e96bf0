// `engram bench vector`: the HNSW index on fvecs files (no brain needed).
#pragma once

#include <CLI/CLI.hpp>

namespace engram::cli {

// Adds `vector` under the existing `bench` subcommand of app.
void AddVectorBenchCommand(CLI::App& app, const bool* json, int* exit_code);

}  // namespace engram::cli
