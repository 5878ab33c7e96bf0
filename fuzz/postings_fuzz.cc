// Fuzz target: decoding stored posting lists (a damaged database must give
// Corruption, never a crash), sequentially, through the skipping cursor, and
// through its block table read in place.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "store/postings_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view blob(reinterpret_cast<const char*>(data), size);
  std::vector<engram::store::Posting> list;
  bool decoded = engram::store::DecodePostings(blob, &list).ok();
  if (decoded && engram::store::EncodePostings(list) != blob && !blob.empty()) {
    // A blob that decodes must be the canonical encoding of its list, or
    // differ only in varint padding; decoding the re-encoding must agree.
    std::vector<engram::store::Posting> again;
    if (!engram::store::DecodePostings(engram::store::EncodePostings(list), &again).ok() || again != list) std::abort();
  }
  engram::store::PostingCursor shallow;
  if (shallow.Open(blob).ok()) {  // the block table read in place
    int64_t last = 0;
    uint32_t max_tf = 0, min_dl = 0;
    for (size_t b = 0; b < shallow.blocks() && b < 4096; ++b) shallow.BlockEntry(b, &last, &max_tf, &min_dl);
  }
  engram::store::PostingCursor cursor;
  if (cursor.Open(blob).ok()) {
    int64_t last = -1;
    for (int64_t target = 0; target < (1 << 20); target += 1 + target / 3) {
      const engram::store::Posting* p = cursor.NextGeq(target);
      if (p == nullptr) break;
      if (p->doc < target || p->doc < last) std::abort();
      last = p->doc;
    }
  }
  return 0;
}
