// Keys of the values a brain records about its vectors in the engine's
// config table (shared by embedding.cc and search.cc).
#pragma once

namespace engram::ops {

constexpr const char* kModelKey = "embedding.model";  // "provider:model" of the stored vectors
constexpr const char* kDimsKey = "embedding.dims";
// A random id of this database's vectors, in the index file's name: a brain
// whose database is recreated must not reuse an index file whose generation
// happens to match.
constexpr const char* kIndexIdKey = "vector.index_id";

}  // namespace engram::ops
