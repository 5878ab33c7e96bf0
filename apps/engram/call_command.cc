#include "call_command.h"

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "engram/brain.h"
#include "ops/operations.h"
#include "ops/render.h"

namespace engram::cli {

namespace {

using Json = nlohmann::json;

struct CallArgs {
  std::string op;
  std::string args = "{}";
  bool remote = false;
  std::string scope = "admin";
};

int PrintError(const Status& st) {
  std::cout << ops::Dump(ops::ErrorJson(st), 2) << "\n";
  std::cerr << "engram: " << st.message() << "\n";
  return ExitCodeFor(st);
}

int RunCall(const CallArgs& a, const std::string& brain_dir) {
  if (a.op.empty()) {  // the list of operations
    Json list = Json::array();
    for (const ops::Operation& op : ops::Operations()) {
      list.push_back({{"name", op.name}, {"description", op.description}, {"scope", ScopeName(op.scope)},
                      {"local_only", op.local_only}, {"input_schema", ops::InputSchema(op)}});
    }
    std::cout << ops::Dump(Json{{"operations", list}}, 2) << "\n";
    return 0;
  }
  Json args = Json::parse(a.args, nullptr, false);
  if (args.is_discarded()) return PrintError(Status::InvalidArgument("the arguments are not valid JSON: " + a.args));
  OperationContext ctx;
  if (a.remote) {
    ctx.remote = true;
    ctx.transport = "call";
    ctx.caller = "engram call --remote";
  }
  if (!ParseScope(a.scope, &ctx.scope)) return PrintError(Status::InvalidArgument("--scope must be read, write or admin"));
  auto root = Brain::Locate(brain_dir);
  if (!root.ok()) return PrintError(root.status());
  auto brain = Brain::Open(*root);
  if (!brain.ok()) return PrintError(brain.status());
  auto r = ops::Call(**brain, ctx, a.op, args);
  if (!r.ok()) return PrintError(r.status());
  std::cout << ops::Dump(*r, 2) << "\n";
  return 0;
}

}  // namespace

void AddCallCommand(CLI::App& app, const std::string* brain_dir, int* exit_code) {
  auto a = std::make_shared<CallArgs>();
  auto* call = app.add_subcommand("call", "Run any operation (the ones MCP and HTTP offer) with JSON arguments");
  call->add_option("OP", a->op, "Operation name; none lists every operation with its JSON Schema");
  call->add_option("ARGS", a->args, "Arguments as one JSON object (default {})");
  call->add_flag("--remote", a->remote,
                 "Run as a remote caller would: the trust boundary applies, private pages are hidden, "
                 "local-only operations are refused");
  call->add_option("--scope", a->scope, "The caller's scope: read, write or admin (default admin)")
      ->check(CLI::IsMember({"read", "write", "admin"}));
  call->footer(
      "Prints the operation's result as JSON, or {\"error\": {\"code\", \"message\"}} (exit 1; 2 for invalid\n"
      "arguments). Examples:\n"
      "  engram call search '{\"query\": \"who is Zhang San\", \"limit\": 3}'\n"
      "  engram call add_tag '{\"slug\": \"people/zhang-san\", \"tag\": \"founder\"}'\n"
      "  engram call --remote --scope read get_page '{\"slug\": \"notes/diary\"}'");
  call->callback([a, brain_dir, exit_code] { *exit_code = RunCall(*a, *brain_dir); });
}

}  // namespace engram::cli
