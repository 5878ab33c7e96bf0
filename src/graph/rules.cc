#include "graph/rules.h"

#include <algorithm>

namespace engram::graph {

bool GraphRules::IsSingleValued(std::string_view predicate) const {
  return std::find(options.single_valued.begin(), options.single_valued.end(), predicate) !=
         options.single_valued.end();
}

bool GraphRules::IsEntityType(std::string_view type) const {
  return std::find(options.entity_types.begin(), options.entity_types.end(), type) != options.entity_types.end();
}

}  // namespace engram::graph
