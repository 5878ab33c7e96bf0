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

// The brain every input runs against, in a temporary folder removed when
// the run ends (the brain closed first).
struct FuzzBrain {
  std::string dir;
  std::unique_ptr<engram::Brain> brain;
  ~FuzzBrain() {
    brain.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

engram::Brain* TheBrain() {
  static FuzzBrain fuzz;
  if (fuzz.brain == nullptr) {
    char tmpl[] = "/tmp/engram-fuzz-jsonrpc-XXXXXX";
    const char* dir = mkdtemp(tmpl);
    if (dir == nullptr) std::abort();
    fuzz.dir = dir;
    if (!engram::Brain::Init(dir).ok()) std::abort();
    auto b = engram::Brain::Open(dir);
    if (!b.ok()) std::abort();
    engram::OperationContext local;
    engram::ops::PageModule& pages = (*b)->Module<engram::ops::PageModule>();
    (void)pages.Put(local, "people/ann", "---\ntitle: Ann\ntags: [x]\n---\nAnn works on rank fusion.\n");
    (void)pages.Put(local, "notes/diary", "---\nvisibility: private\n---\nsecret\n");
    fuzz.brain = std::move(*b);
  }
  return fuzz.brain.get();
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
