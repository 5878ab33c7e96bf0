// Fuzz target: the MCP server's JSON-RPC handling (parse, dispatch, tool
// argument checks, tool calls on a real brain as a remote caller). Every
// input gets a well-formed JSON-RPC answer or none, never a crash — also
// 100,000 levels of nesting (seeds/jsonrpc/deep_arguments.json).
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "engram/brain.h"
#include "ops/page_module.h"
#include "server/mcp.h"

namespace {

engram::Brain* TheBrain() {
  static std::unique_ptr<engram::Brain> brain = [] {
    char tmpl[] = "/tmp/engram-fuzz-jsonrpc-XXXXXX";
    const char* dir = mkdtemp(tmpl);
    if (dir == nullptr) std::abort();
    if (!engram::Brain::Init(dir).ok()) std::abort();
    auto b = engram::Brain::Open(dir);
    if (!b.ok()) std::abort();
    engram::OperationContext local;
    engram::ops::PageModule& pages = (*b)->Module<engram::ops::PageModule>();
    (void)pages.Put(local, "people/ann", "---\ntitle: Ann\ntags: [x]\n---\nAnn works on rank fusion.\n");
    (void)pages.Put(local, "notes/diary", "---\nvisibility: private\n---\nsecret\n");
    return std::move(*b);
  }();
  return brain.get();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  engram::OperationContext ctx;
  ctx.remote = true;
  ctx.transport = "fuzz";
  ctx.scope = engram::Scope::kWrite;
  engram::server::McpSession session([](const auto& fn) { return fn(*TheBrain()); }, ctx);
  std::string text(reinterpret_cast<const char*>(data), size);
  auto response = session.HandleText(text);
  if (response) {
    if (!response->is_object() || !response->contains("jsonrpc")) std::abort();
    if (response->at("jsonrpc").get<std::string>() != "2.0") std::abort();
    if (!response->contains("result") && !response->contains("error")) std::abort();
    (void)response->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return 0;
}
