// A starting threshold for the pruned search: MaxScore prunes nothing until
// it holds `limit` pages, and sweeping docs in id order it finds good ones
// late; a threshold known from the start makes most lists non-essential at
// once. Internal to the bm25 module.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "bm25/prepared_query.h"

namespace engram::bm25 {

// Scores a few likely docs exactly (the best postings of the strongest
// lists, read from their best blocks by the block table) and returns the
// limit-th best score among the best docs of distinct pages that `out` does
// not exclude: the final limit-th page scores at least that much, so it is a
// safe threshold. The scores are summed as the searcher sums them (float
// contributions in pq.terms order), so a seeded doc later scores exactly
// the same. 0 when fewer than limit such pages were found, or a list could
// not be read (the search itself then reports it).
float SeedThreshold(const PreparedQuery& pq, size_t limit, const std::function<bool(int64_t page)>& out);

}  // namespace engram::bm25
