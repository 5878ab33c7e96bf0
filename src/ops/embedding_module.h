// The embedding module: the configured embedder (opened once), embedding
// stale chunks on demand and inline after small writes, the record of the
// model the brain's vectors come from, cached query vectors, and the vector
// index the vector arm reads (caught up with the database's change log).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "engram/brain.h"

namespace engram {
namespace embed {
class Embedder;
}
namespace search {
class VectorArm;
}
}  // namespace engram

namespace engram::ops {

class EmbeddingModule final : public BrainModule {
 public:
  explicit EmbeddingModule(Brain& brain);
  ~EmbeddingModule() override;

  // Embeds stale chunks (all chunks with all) with the configured provider;
  // progress (optional) gets (done, total). A brain whose vectors come from
  // another model refuses --stale: the dimensions or the space differ.
  Result<EmbedReport> Embed(const OperationContext& ctx, bool all, std::function<void(int64_t, int64_t)> progress = {});
  // The embedding settings, and the chunks of the pages scope sees with and without a vector.
  Result<EmbeddingStatus> EmbeddingState(const ReadScope& scope);
  // A query's vector from the configured embedder, cached in the database.
  Result<std::vector<float>> EmbedQuery(std::string_view query);
  // The configured embedder (opened once); FailedPrecondition when provider = "none".
  Result<embed::Embedder*> GetEmbedder();
  // The vector index of the recorded model, caught up with the database, held
  // for reading as long as the lease lives; FailedPrecondition when nothing is
  // embedded yet. One index per database and model is shared by every
  // connection of the process: a server's pooled brains neither build nor
  // hold one each.
  struct VectorsLease {
    std::shared_ptr<void> holder;
    std::shared_lock<std::shared_mutex> lock;
    search::VectorArm* arm = nullptr;
  };
  Result<VectorsLease> Vectors();
  // What opening or catching up the index did ("" when nothing), once.
  std::string TakeVectorsNote();
  // Under the write lock: embeds up to options().embedding.inline_limit stale
  // chunks; embeds nothing when more are stale. Returns (embedded, stale, note).
  std::tuple<int64_t, int64_t, std::string> EmbedInline();

 private:
  Result<EmbedReport> EmbedLocked(bool all, const std::function<void(int64_t, int64_t)>& progress);

  Brain& brain_;
  std::unique_ptr<embed::Embedder> embedder_;
  std::string vectors_note_;  // what opening the shared index did (built, caught up)
};

}  // namespace engram::ops
