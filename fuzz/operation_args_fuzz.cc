// Fuzz target: the HTTP API's request bodies and the MCP tools' arguments —
// JSON parsed, then checked against every operation's parameters (types,
// limits, unknown fields, nested filters). Bad input is an InvalidArgument
// naming a field, never a crash or an exception.
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "common/json_limits.h"
#include "ops/operations.h"
#include "ops/render.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  // As the server does before parsing a body (seeds/operation_args holds a
  // 100,000-level one): copying a deeper value below would overflow the stack.
  if (!engram::common::CheckJsonLimits(text, "the body").ok()) return 0;
  nlohmann::json args = nlohmann::json::parse(text, nullptr, false);
  if (args.is_discarded()) return 0;
  for (const engram::ops::Operation& op : engram::ops::Operations()) {
    nlohmann::json copy = args;
    engram::Status st = engram::ops::CheckArguments(op, &copy);
    if (!st.ok() && st.code() != engram::StatusCode::kInvalidArgument) std::abort();
    if (!st.ok()) (void)engram::ops::Dump(engram::ops::ErrorJson(st));
  }
  return 0;
}
