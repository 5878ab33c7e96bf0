// Fuzz target: the vector-index file reader. The input is an index file; its
// trailing checksum is recomputed first, so that mutations reach the
// structural checks instead of stopping at the checksum. Invariants: no
// crash; an accepted index answers a search with live labels only, at most
// k of them, best first.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "vector/hnsw_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("engram-fuzz-hnsw-" + std::to_string(::getpid()));
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.size() >= 8) {
    const uint64_t seal = engram::vector::HnswIndex::FileChecksum(bytes.data(), bytes.size() - 8);
    std::memcpy(&bytes[bytes.size() - 8], &seal, 8);
  }
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  auto index = engram::vector::HnswIndex::Load(file, nullptr);
  std::filesystem::remove(file);
  if (!index.ok()) return 0;
  std::vector<float> q(static_cast<size_t>((*index)->dims()), 0.0f);
  q[0] = 1.0f;
  auto hits = (*index)->Search(q.data(), 5, 10);
  if (hits.size() > 5) std::abort();
  for (size_t i = 0; i < hits.size(); ++i) {
    if (!(*index)->Contains(hits[i].label)) std::abort();
    if (i > 0 && hits[i].score > hits[i - 1].score) std::abort();
  }
  return 0;
}
