// What the command files share: opening the brain, printing a JSON document,
// reading page input, stopping a --watch loop on a signal, and running an
// operation of the operation table as the local CLI.
#pragma once

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "engram/brain.h"

namespace engram::cli {

// The brain found from --brain, $ENGRAM_BRAIN or the working directory up.
Result<std::unique_ptr<Brain>> OpenBrain(const std::string& brain_dir);

// Prints j indented on stdout. Never throws: invalid UTF-8 from a file name,
// an argument or a page is replaced.
void Print(const nlohmann::json& j);

// All of stdin, or a whole regular file; more than max_bytes is refused.
Result<std::string> ReadStdin(uint64_t max_bytes);
Result<std::string> ReadInputFile(const std::string& path, uint64_t max_bytes);

// Installs SIGINT and SIGTERM handlers that set the returned flag (one flag
// per process: a --watch loop polls it and ends cleanly).
std::atomic<bool>& StopOnSignals();

// Runs the operation `name` through ops::Call — the validation, scope and
// local-only checks and the JSON that MCP and HTTP callers get — as the local
// CLI (OperationContext defaults: not remote, admin scope).
Result<nlohmann::json> CallOperation(Brain& brain, std::string_view name, const nlohmann::json& args,
                                     const OperationContext& ctx = {});

// Opens the brain, runs the operation `name` (CallOperation) and prints its
// JSON (json) or, from the same JSON, the text print_text makes of it;
// returns the exit status.
int RunOperation(std::string_view name, const nlohmann::json& args, bool json, const std::string& brain_dir,
                 void (*print_text)(const nlohmann::json&));

// The range an operation's integer parameter allows, as a CLI11 check: a flag
// refuses what the operation would refuse, and its help shows the range.
CLI::Range OperationRange(std::string_view op, std::string_view param);

}  // namespace engram::cli
