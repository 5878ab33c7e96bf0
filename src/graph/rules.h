// The rules a brain's [graph] settings give the graph (include/engram/options.h):
// which page types are entities, and which predicates hold one value at a time.
#pragma once

#include <string_view>

#include "engram/options.h"

namespace engram::graph {

struct GraphRules {
  GraphOptions options;  // the defaults unless a brain's config says otherwise

  bool IsEntityType(std::string_view type) const;
  bool IsSingleValued(std::string_view predicate) const;
};

}  // namespace engram::graph
