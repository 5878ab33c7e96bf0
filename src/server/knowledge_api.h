// The red-line knowledge service's HTTP API as JoySafety's safety-knowledge
// service defines it (../shared/docs/KNOWLEDGE-API.md): its request bodies
// turned into the kb operations' arguments, and the operations' answers
// into its envelope. The routes themselves are served by http_server.cc,
// with the same authentication, scopes and limits as /v1.
//
// Envelope: {"code", "message", "cost", "data"} in that order; code 0 and
// "success" when the call succeeded, else code 1 and a message saying what
// was wrong — with the HTTP status of the error's class (400, 401, 403,
// 404, 413, 429, 503, 500) and application/json, where the original always
// answered 200 and text/html.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram::server::knowledge {

// An operation call: the operation's name and its arguments.
struct Call {
  std::string op;
  nlohmann::json args;
};

// The call behind POST /PATH for its JSON body. PATH (without the leading
// '/') is knowledge/upsert|delete|search|answer|check, dialog, or a governance route
// data/redline_knowledge/upsert|update|online|offline|getById|getByWord
// (whose body holds the operation's arguments). InvalidArgument with the
// original's message for what it refuses itself ("docs为空", "ids和texts均为空", "history为空",
// ...) and for a missing request_id or business_id.
Result<Call> Translate(std::string_view path, const nlohmann::json& body);

// The envelope's data for a route from its operation's answer.
nlohmann::ordered_json DataOf(std::string_view path, const nlohmann::json& answer);

// The envelope, serialised: code 0 / "success" for ok, else code 1 and the
// error's message.
std::string Envelope(const Status& status, double cost_seconds, const nlohmann::ordered_json& data);

}  // namespace engram::server::knowledge
