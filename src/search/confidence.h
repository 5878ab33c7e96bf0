// How much to trust the title and vector arms of a hybrid search for one
// query, from the query and the arms' own scores (no labels):
//   vector arm: how far its best cosine stands above the best that chance
//               gives among n chunks. The query's cosines with a sample of
//               the collection give the chance distribution (mean, standard
//               deviation); the expected largest of n standard normal draws
//               is the bar. ramp = (z − bar) / bar clamped to [0, 1] (0 at
//               the bar, 1 at twice it); confidence = ramp², so that a best
//               hit barely above chance barely counts.
//   title arm:  a title counts only when the query names its page: every
//               analysed term of the title (or of one alias) is in the
//               query. It then counts by the share of the query's terms the
//               name covers ("Zhang San" for "who is Zhang San": 1).
// Reciprocal rank fusion is flat near the top (rank 0 of a list adds 1/60,
// rank 5 1/65), so any weight on a signal-poor list reorders the keyword
// arm's best results; with both confidences at 0 hybrid search returns the
// keyword ranking (PERFORMANCE.md, "Hybrid retrieval quality with a
// signal-poor vector arm").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace engram::search {

// Draws of the collection the background sample takes.
constexpr size_t kBackgroundSample = 256;

// The expected largest of n independent standard normal draws (the location
// of the Gumbel limit): sqrt(2 ln n) − (ln ln n + ln 4π) / (2 sqrt(2 ln n)),
// clamped at 0; 0 for n < 3.
double ChanceMaximum(size_t n);

// Confidence in [0, 1] of a vector arm whose best cosine is `best`, given
// the query's cosines with a sample of a collection of `collection` chunks.
// A sample of fewer than 8 cosines cannot say what chance gives: 1.
double VectorConfidence(double best, const std::vector<float>& background, size_t collection);

// Confidence in [0, 1] of a title-arm hit: the best over the page's names
// (title, aliases; each given as its analysed terms) of the share of the
// query's distinct terms the name covers, counting only names all of whose
// terms are in the query. 0 when the query has no terms.
double TitleConfidence(const std::vector<std::string>& query_terms,
                       const std::vector<std::vector<std::string>>& names);

}  // namespace engram::search
