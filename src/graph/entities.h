// Entities and identity resolution: which page a name means.
//
// Every page is a node of the graph; a page of an entity type (person,
// company, project, ... : [graph] entity_types, graph/rules.h) is an entity. A name resolves through, strongest first: the slug or path, the
// file name, the title, an alias, the title or an alias folded (Unicode case,
// full/half width, Traditional/Simplified Chinese), and the folded spelling
// without spaces or punctuation ("zhangsan", "Zhang-San" for an alias "Zhang
// San"). All pages matched at the strongest level come back, each with the
// reason: more than one is an ambiguous name, and none is chosen for the
// caller.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/store/page_store.h"
#include "graph/rules.h"

namespace engram::graph {

struct EntityCandidate {
  std::string slug;
  std::string title;
  std::string type;
  bool is_entity = false;  // of an entity type (rules.IsEntityType)
  std::string reason;      // "slug", "file name", "title", "alias 'Xinghe AI'", ...
};

// The pages `name` may mean, among those the scope sees (see above); empty
// when none. InvalidArgument for an empty or over-long (> 1,024 bytes) name.
Result<std::vector<EntityCandidate>> ResolveEntity(PageStore& store, const ReadScope& scope, std::string_view name,
                                                   const GraphRules& rules);

// The names, type and id of the page `slug` as the scope sees it, from the
// same index ResolveEntity keeps (no page read); nullopt when the scope sees
// no such page.
Result<std::optional<PageNames>> PageNamed(PageStore& store, const ReadScope& scope, std::string_view slug);

// A page's title or alias found in a text (folded): where, and which page.
struct NameInText {
  std::string slug;
  std::string type;
  size_t at = 0;    // byte offset in the folded text
  size_t size = 0;  // bytes of the folded name
};

// Every title and alias (at least two CJK characters or four others, whole
// words) of a page the scope sees that occurs in `text`, compared folded,
// from the same cached index as ResolveEntity.
Result<std::vector<NameInText>> NamesInText(PageStore& store, const ReadScope& scope, std::string_view text);

// The form names are compared in at the folded level, and without spaces
// and punctuation at the last.
std::string FoldName(std::string_view name);
std::string CompactName(std::string_view name);

}  // namespace engram::graph
