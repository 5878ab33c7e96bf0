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
// Set (to the model) while a switch to a new model has not embedded every
// chunk yet: the vectors of the recorded model then cover part of the brain,
// and search stays on keywords until `engram embed` completes it.
constexpr const char* kIncompleteKey = "embedding.incomplete";

}  // namespace engram::ops
