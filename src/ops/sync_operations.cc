// The sync module's operations (ops/sync_module.h): status, syncing and importing.
#include <nlohmann/json.hpp>

#include "ops/operation_params.h"
#include "ops/operations.h"
#include "ops/render.h"
#include "ops/sync_module.h"

namespace engram::ops {

using Json = nlohmann::json;
using Type = Param::Type;

void AddSyncOperations(OperationTable& ops) {
  ops.Add({"status", "What the brain holds: pages, chunks, links, embeddings, the synced commit, recent problems.",
           Scope::kRead, false, {},
           [](Brain& b, const OperationContext& ctx, const Args&) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(BrainStatus s, GetStatus(b, ctx));
             return ToJson(s);
           }});
  ops.Add({"sync", "Index what changed in the brain's git repository since the last sync.", Scope::kAdmin, true,
           {{"full", Type::kBoolean, false, "walk every file instead of the git diff", 0, 0, 0, {}, {}},
            {"worktree", Type::kBoolean, false, "include uncommitted changes", 0, 0, 0, {}, {}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(SyncReport r, b.Module<SyncModule>().Sync(ctx, a.Bool("full"), a.Bool("worktree"),
                                                                                ctx.progress));
             return ToJson(r);
           }});
  ops.Add({"import", "Index a folder of Markdown files (any folder on this machine).", Scope::kAdmin, true,
           {{"dir", Type::kString, true, "the folder", 0, 0, 4096, {}, {}},
            {"dry_run", Type::kBoolean, false, "report what would change", 0, 0, 0, {}, {}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(ImportReport r,
                                     b.Module<SyncModule>().Import(ctx, a.Str("dir"), a.Bool("dry_run")));
             return ToJson(r);
           }});
}

}  // namespace engram::ops
