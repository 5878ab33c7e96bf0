// The vector-store contract: one embedding per chunk and model, and the
// cache of query embeddings. Part of engram/engine.h's Engine; the embedding
// pipeline and the vector index take a VectorStore&.
//
// Every change to a chunk's vector (stored, replaced, or gone with its
// chunk) is logged in the store's change log (engram/store/change_log.h,
// stream kVectors), which vector indexes catch up from.
//
// Errors: IOError / Unavailable when the store cannot be read or written,
// Corruption when a stored vector is damaged (wrong size).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/ids.h"
#include "engram/status.h"

namespace engram {

// Embeddings are stored per chunk with the model that made them and a hash
// of the text they were computed from (ChunkEmbeddingText). A chunk without
// an embedding of the brain's model is stale. Rewriting a page keeps the
// embedding of every chunk whose text (and page title) did not change.
struct EmbeddingTask {
  ChunkId chunk_id;
  std::string text;  // ChunkEmbeddingText(title, chunk text)
};
struct EmbeddingWrite {
  ChunkId chunk_id;
  std::string model;
  std::string text_hash;  // EmbeddingTextHash(text)
  std::vector<float> vector;
};
struct EmbeddingCounts {
  int64_t chunks = 0;
  int64_t current = 0;  // embedded by the given model
  int64_t stale = 0;    // not embedded, or by another model
};
// A chunk's stored vector.
struct ChunkVector {
  ChunkId chunk_id;
  std::vector<float> vector;
};

// What is embedded for a chunk: the page title, a blank line, the chunk text.
std::string ChunkEmbeddingText(std::string_view title, std::string_view text);
std::string EmbeddingTextHash(std::string_view text);

class VectorStore {
 public:
  virtual ~VectorStore() = default;

  // Chunks (id > after_id, ascending) without an embedding of model, or all
  // chunks when all is set; at most limit.
  virtual Result<std::vector<EmbeddingTask>> ChunksToEmbed(std::string_view model, bool all, ChunkId after_id,
                                                           size_t limit) = 0;
  // Stores vectors (one transaction); chunks deleted meanwhile are skipped.
  virtual Status StoreEmbeddings(const std::vector<EmbeddingWrite>& rows) = 0;
  // The chunks of the pages scope sees, and how many have a vector of model.
  virtual Result<EmbeddingCounts> CountEmbeddings(std::string_view model, const ReadScope& scope) = 0;
  // The query-embedding cache (model, query text) -> vector.
  virtual Result<std::optional<std::vector<float>>> CachedQueryVector(std::string_view model,
                                                                      std::string_view query) = 0;
  virtual Status CacheQueryVector(std::string_view model, std::string_view query, const std::vector<float>& v) = 0;
  // Vectors of model, for chunks with id > after_id (ascending, at most
  // limit), or for the given ids (those without a vector of model are absent).
  virtual Result<std::vector<ChunkVector>> ChunkVectors(std::string_view model, ChunkId after_id, size_t limit) = 0;
  virtual Result<std::vector<ChunkVector>> ChunkVectorsById(std::string_view model,
                                                            const std::vector<ChunkId>& ids) = 0;

 protected:
  VectorStore() = default;
};

}  // namespace engram
