// Commands that expose the brain to agents and services: `engram mcp`
// (MCP over stdio), `engram serve` (HTTP API + MCP over HTTP) and
// `engram token create|list|revoke`.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace engram::cli {

// Adds the subcommands; when one ran, *exit_code holds its exit status.
void AddServerCommands(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code);

}  // namespace engram::cli
