#include "command_support.h"

#include <signal.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "ops/operations.h"
#include "output.h"
#include "ops/render.h"

namespace engram::cli {

Result<std::unique_ptr<Brain>> OpenBrain(const std::string& brain_dir) {
  ENGRAM_ASSIGN_OR_RETURN(std::filesystem::path root, Brain::Locate(brain_dir));
  return Brain::Open(root);
}

void Print(const nlohmann::json& j) { std::cout << ops::Dump(j, 2) << "\n"; }

Result<std::string> ReadStdin(uint64_t max_bytes) {
  std::string data;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) {
    data.append(buf, n);
    if (data.size() > max_bytes) {
      return Status::InvalidArgument("input is over the limit of " + std::to_string(max_bytes) + " bytes");
    }
  }
  return data;
}

Result<std::string> ReadInputFile(const std::string& path, uint64_t max_bytes) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return Status::InvalidArgument(path + ": not a regular file");
  if (std::filesystem::file_size(path, ec) > max_bytes) {
    return Status::InvalidArgument(path + ": over the limit of " + std::to_string(max_bytes) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError(path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {
std::atomic<bool> stop_requested{false};
}  // namespace

std::atomic<bool>& StopOnSignals() {
  struct sigaction sa {};
  sa.sa_handler = [](int) { stop_requested = true; };
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  return stop_requested;
}

Result<nlohmann::json> CallOperation(Brain& brain, std::string_view name, const nlohmann::json& args,
                                     const OperationContext& ctx) {
  return ops::Call(brain, ctx, name, args);
}

int RunOperation(std::string_view name, const nlohmann::json& args, bool json, const std::string& brain_dir,
                 void (*print_text)(const nlohmann::json&)) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  auto r = CallOperation(**brain, name, args);
  if (!r.ok()) return Fail(r.status(), json);
  if (json) Print(*r);
  else print_text(*r);
  return 0;
}

CLI::Range OperationRange(std::string_view op_name, std::string_view param) {
  const ops::Operation* op = ops::FindOperation(op_name);
  for (const ops::Param& p : op == nullptr ? std::vector<ops::Param>{} : op->params) {
    if (p.name == param) return CLI::Range(p.min, p.max);
  }
  return CLI::Range(INT64_MIN, INT64_MAX);  // a programmer error: no such parameter; the operation still checks
}

}  // namespace engram::cli
