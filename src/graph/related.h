// Pages related to a page without a link between them, by what they share:
// the pages both link to, their tags, and the pages that mention both
// (co-mentions). What `engram related` and the `related` operation list.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/store/page_store.h"

namespace engram::graph {

struct RelatedPage {
  std::string slug;
  std::string title;
  double score = 0;                      // shared links + co-mentions + 0.5 per shared tag
  std::vector<std::string> shared_links; // pages both link to
  std::vector<std::string> shared_tags;
  std::vector<std::string> co_mentions;  // pages that link to both
};

// The pages most related to `slug`, best first (ties by slug), at most
// `limit`; pages it already links to or from count too. NotFound when the
// scope does not see it. Bounded: at most 200 neighbours are expanded.
Result<std::vector<RelatedPage>> Related(PageStore& store, const ReadScope& scope, std::string_view slug,
                                         size_t limit);

}  // namespace engram::graph
