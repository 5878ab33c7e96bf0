// The embedding module's operations (ops/embedding_module.h).
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>

#include "ops/embedding_module.h"
#include "ops/operation_params.h"
#include "ops/operations.h"

namespace engram::ops {

using Json = nlohmann::json;
using Type = Param::Type;

void AddEmbeddingOperations(OperationTable& ops) {
  ops.Add({"embed",
           "Embed the chunks that have no vector of the configured model yet (all with all).",
           Scope::kAdmin,
           false,
           {{"all", Type::kBoolean, false, "re-embed every chunk", 0, 0, 0, {}, {}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             std::function<void(int64_t, int64_t)> progress;
             if (ctx.progress) {
               progress = [&ctx](int64_t done, int64_t total) {
                 ctx.progress(static_cast<size_t>(done), static_cast<size_t>(total));
               };
             }
             ENGRAM_ASSIGN_OR_RETURN(EmbedReport r,
                                     b.Module<EmbeddingModule>().Embed(ctx, a.Bool("all"), progress));
             return Json{{"provider", r.provider}, {"model", r.model},          {"dims", r.dims},
                         {"embedded", r.embedded}, {"chunks", r.chunks},        {"stale", r.stale},
                         {"seconds", r.seconds},   {"index_note", r.index_note}};
           }});
}

}  // namespace engram::ops
