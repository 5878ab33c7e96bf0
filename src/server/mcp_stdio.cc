#include "server/mcp_stdio.h"

#include <nlohmann/json.hpp>
#include <string>

#include "ops/render.h"
#include "server/mcp.h"

namespace engram::server {

using Json = nlohmann::json;

Status ServeMcpStdio(Brain& brain, std::FILE* in, std::FILE* out, size_t max_line_bytes) {
  OperationContext ctx;
  ctx.remote = true;  // whatever drives stdio is an agent: the trust boundary applies
  ctx.transport = "mcp-stdio";
  ctx.scope = Scope::kWrite;
  McpSession session(
      [&brain](const auto& fn) {
        brain.engine().FinishReads();  // see what other processes committed since the last message
        auto r = fn(brain);
        brain.engine().FinishReads();
        return r;
      },
      ctx);
  std::string line;
  bool too_long = false;
  auto answer = [&](const std::optional<Json>& response) {
    if (!response) return;
    const std::string text = ops::Dump(*response) + "\n";
    std::fwrite(text.data(), 1, text.size(), out);
    std::fflush(out);
  };
  for (int c = std::fgetc(in);; c = std::fgetc(in)) {
    if (c == EOF || c == '\n') {
      if (too_long) {
        answer(JsonRpcError(nullptr, -32600, "message over " + std::to_string(max_line_bytes) + " bytes"));
      } else if (line.find_first_not_of(" \t\r") != std::string::npos) {
        answer(session.HandleText(line));
      }
      line.clear();
      too_long = false;
      if (c == EOF) break;
      continue;
    }
    if (line.size() >= max_line_bytes) {
      too_long = true;
      continue;
    }
    line.push_back(static_cast<char>(c));
  }
  if (std::ferror(in)) return Status::IOError("reading stdin failed");
  return Status::Ok();
}

}  // namespace engram::server
