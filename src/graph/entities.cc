#include "graph/entities.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <memory>
#include <unordered_map>

#include "common/utf8.h"
#include "graph/store_cache.h"
#include "text/analyzer.h"
#include "text/page_links.h"
#include "text/slug.h"

namespace engram::graph {

namespace {

std::string_view FileStem(std::string_view path) {
  const size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (name.size() > 3 && name.substr(name.size() - 3) == ".md") name.remove_suffix(3);
  return name;
}

}  // namespace

std::string FoldName(std::string_view name) { return text::FoldText(common::TrimSpace(name)); }

std::string CompactName(std::string_view name) {
  const std::string folded = FoldName(name);
  std::string out;
  size_t i = 0;
  while (i < folded.size()) {
    const size_t start = i;
    const char32_t cp = common::DecodeUtf8(folded, &i);
    if (common::IsWordChar(cp)) out.append(folded, start, i - start);
  }
  return out;
}

namespace {

// The slug a redirect page's frontmatter names in `merged_into`, "" when none.
std::string MergedInto(const std::string& frontmatter_json) {
  nlohmann::json fm = nlohmann::json::parse(frontmatter_json, nullptr, false);
  if (!fm.is_object() || !fm.contains("merged_into") || !fm["merged_into"].is_string()) return "";
  return fm["merged_into"].get<std::string>();
}

}  // namespace

namespace {

// Every name of every page a scope sees, by the form each level compares:
// 0 slug or path key, 1 file name, 2 title, 3 alias (lower case), 4 folded
// title or alias, 5 the same without spaces or punctuation. Built from
// AllPageNames once per store state (the store's generation) and scope, so
// a resolution is a few hash look-ups, not a scan of every page.
struct NameIndex {
  std::vector<PageNames> pages;
  std::unordered_map<std::string, uint32_t> by_slug;
  std::vector<std::pair<std::string, std::vector<uint32_t>>> findable;  // folded names long enough to look for
  std::array<std::unordered_map<std::string, std::vector<std::pair<uint32_t, std::string>>>, 6> levels;

  void Add(size_t level, std::string key, uint32_t page, std::string reason) {
    if (key.empty()) return;
    auto& list = levels[level][std::move(key)];
    for (const auto& [p, r] : list) {
      if (p == page) return;  // a page once per level: its first reason
    }
    list.emplace_back(page, std::move(reason));
  }
};

std::shared_ptr<const NameIndex> BuildIndex(std::vector<PageNames> pages) {
  auto index = std::make_shared<NameIndex>();
  index->pages = std::move(pages);
  for (uint32_t i = 0; i < index->pages.size(); ++i) {
    const PageNames& p = index->pages[i];
    index->by_slug.emplace(p.slug, i);
    index->Add(0, p.slug, i, "slug");
    index->Add(0, text::PathKey(p.path), i, "slug");
    index->Add(1, common::ToLower(FileStem(p.path)), i, "file name");
    index->Add(2, common::ToLower(p.title), i, "title");
    for (const std::string& a : p.aliases) index->Add(3, common::ToLower(a), i, "alias '" + a + "'");
    std::vector<std::pair<std::string, const char*>> names = {{p.title, "title"}};
    for (const std::string& a : p.aliases) names.push_back({a, "alias"});
    for (const auto& [n, what] : names) {
      index->Add(4, FoldName(n), i, std::string(what) + " '" + n + "' (case, width or Traditional/Simplified)");
    }
    for (const auto& [n, what] : names) {
      index->Add(5, CompactName(n), i, std::string(what) + " '" + n + "' (spelled without spaces or punctuation)");
    }
  }
  for (const auto& [folded, list] : index->levels[4]) {
    size_t cjk = 0, other = 0, i = 0;
    while (i < folded.size()) {
      const char32_t cp = common::DecodeUtf8(folded, &i);
      (cp >= 0x3400 && cp <= 0x9FFF ? cjk : other) += 1;
    }
    if (cjk < 2 && cjk + other < 4) continue;  // one letter or a short word would be found everywhere
    std::vector<uint32_t> pages;
    for (const auto& [page, reason] : list) pages.push_back(page);
    index->findable.emplace_back(folded, std::move(pages));
  }
  return index;
}

// The index for a store's state and scope (graph/store_cache.h).
Result<std::shared_ptr<const NameIndex>> IndexFor(PageStore& store, const ReadScope& scope) {
  return CachedForStore<NameIndex>(store, scope.source + (scope.include_private ? "\n1" : "\n0"),
                                   [&]() -> Result<std::shared_ptr<const NameIndex>> {
                                     ENGRAM_ASSIGN_OR_RETURN(std::vector<PageNames> pages, store.AllPageNames(scope));
                                     return BuildIndex(std::move(pages));
                                   });
}

}  // namespace

Result<std::optional<PageNames>> PageNamed(PageStore& store, const ReadScope& scope, std::string_view slug) {
  ENGRAM_ASSIGN_OR_RETURN(std::shared_ptr<const NameIndex> index, IndexFor(store, scope));
  auto it = index->by_slug.find(std::string(slug));
  if (it == index->by_slug.end()) return std::optional<PageNames>();
  return std::optional<PageNames>(index->pages[it->second]);
}

Result<std::vector<NameInText>> NamesInText(PageStore& store, const ReadScope& scope, std::string_view text) {
  std::vector<NameInText> out;
  const std::string folded = FoldName(text);
  if (folded.empty()) return out;
  ENGRAM_ASSIGN_OR_RETURN(std::shared_ptr<const NameIndex> index, IndexFor(store, scope));
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  for (const auto& [name, pages] : index->findable) {
    for (size_t at = folded.find(name); at != std::string::npos; at = folded.find(name, at + 1)) {
      const size_t end = at + name.size();
      const bool starts = at == 0 || !word(folded[at - 1]) || !word(name.front());
      const bool ends = end == folded.size() || !word(folded[end]) || !word(name.back());
      if (!starts || !ends) continue;
      for (uint32_t p : pages) out.push_back({index->pages[p].slug, index->pages[p].type, at, name.size()});
      break;
    }
  }
  return out;
}

Result<std::vector<EntityCandidate>> ResolveEntity(PageStore& store, const ReadScope& scope, std::string_view name,
                                                   const GraphRules& rules) {
  name = common::TrimSpace(name);
  if (name.empty()) return Status::InvalidArgument("an entity name is empty");
  if (name.size() > 1024) return Status::InvalidArgument("an entity name is longer than 1,024 bytes");
  if (!common::IsValidUtf8(name)) return Status::InvalidArgument("an entity name is not valid UTF-8");
  ENGRAM_ASSIGN_OR_RETURN(std::shared_ptr<const NameIndex> index, IndexFor(store, scope));
  const std::string key = text::SlugFromPath(name);
  const std::string lower = common::ToLower(name);
  struct Match {
    const PageNames* page;
    std::string reason;
  };
  std::array<std::vector<Match>, 6> levels;
  const std::array<std::vector<std::string>, 6> wanted = {
      std::vector<std::string>{std::string(name), key}, {lower}, {lower}, {lower}, {FoldName(name)},
      {CompactName(name)}};
  for (size_t level = 0; level < levels.size(); ++level) {
    for (const std::string& w : wanted[level]) {
      if (w.empty()) continue;
      auto it = index->levels[level].find(w);
      if (it == index->levels[level].end()) continue;
      for (const auto& [page, reason] : it->second) {
        const PageNames* p = &index->pages[page];
        if (std::none_of(levels[level].begin(), levels[level].end(), [&](const Match& m) { return m.page == p; })) {
          levels[level].push_back({p, reason});
        }
      }
    }
    if (!levels[level].empty()) break;
  }
  std::vector<EntityCandidate> out;
  for (const auto& level : levels) {
    if (level.empty()) continue;
    for (const Match& m : level) {
      EntityCandidate c{m.page->slug, m.page->title, "", false, m.reason};
      auto page = store.GetPage(scope, m.page->slug);
      if (page.ok()) c.type = page->type;
      // A merged page (`entity merge`) is a redirect: the name means the page it was merged into.
      if (page.ok() && c.type == "redirect") {
        const std::string into = MergedInto(page->frontmatter_json);
        auto target = into.empty() ? Result<StoredPage>(Status::NotFound("")) : store.GetPage(scope, into);
        if (target.ok()) {
          c = {target->slug, target->title, target->type, false, m.reason + ", merged into " + target->slug};
        }
      }
      c.is_entity = rules.IsEntityType(c.type);
      if (std::none_of(out.begin(), out.end(), [&](const EntityCandidate& o) { return o.slug == c.slug; })) {
        out.push_back(std::move(c));
      }
    }
    break;
  }
  // Entities before other pages, then by slug.
  std::stable_sort(out.begin(), out.end(), [](const EntityCandidate& a, const EntityCandidate& b) {
    return a.is_entity != b.is_entity ? a.is_entity : a.slug < b.slug;
  });
  return out;
}

}  // namespace engram::graph
