// The Model Context Protocol server (revision 2025-06-18; 2025-03-26 and
// 2024-11-05 clients are answered in their own revision): JSON-RPC 2.0
// requests in, responses out, transport-neutral. Tools are the operation
// layer's operations that this caller may run (ops/operations.h: not
// local-only, within its scope), each
// with its JSON Schema; a call runs with the session's OperationContext.
//   initialize, notifications/initialized, ping, tools/list, tools/call;
//   anything else is -32601 (method not found). Invalid arguments and
//   unknown tools are -32602; a tool that fails returns isError: true with
//   the message, as the specification asks.
#pragma once

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "engram/brain.h"

namespace engram::server {

constexpr const char* kMcpLatestVersion = "2025-06-18";
bool McpVersionSupported(std::string_view version);

// Runs fn with a Brain for the calling thread (the HTTP server hands out
// one per worker; stdio has one).
using WithBrain = std::function<Result<nlohmann::json>(const std::function<Result<nlohmann::json>(Brain&)>&)>;

class McpSession {
 public:
  McpSession(WithBrain with_brain, OperationContext ctx);

  // One parsed message; a response for requests, nothing for notifications
  // and responses.
  std::optional<nlohmann::json> Handle(const nlohmann::json& message);
  // One raw message (stdio line or HTTP body): parse errors and batches are
  // answered here too.
  std::optional<nlohmann::json> HandleText(std::string_view text);

  const std::string& protocol_version() const { return protocol_version_; }
  bool initialized() const { return !protocol_version_.empty(); }

 private:
  nlohmann::json Initialize(const nlohmann::json& params);
  nlohmann::json ToolsList() const;
  Result<nlohmann::json> ToolsCall(const nlohmann::json& params);

  WithBrain with_brain_;
  OperationContext ctx_;
  std::string protocol_version_;
};

// {"jsonrpc": "2.0", "id": id, "error": {"code", "message"}}
nlohmann::json JsonRpcError(const nlohmann::json& id, int code, const std::string& message);

}  // namespace engram::server
