#include "graph/entities.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>

#include "common/utf8.h"
#include "text/analyzer.h"
#include "text/page_links.h"
#include "text/slug.h"

namespace engram::graph {

namespace {

constexpr std::array<std::string_view, 9> kEntityTypes = {
    "person", "company", "organization", "project", "concept", "place", "product", "event", "meeting"};

std::string_view FileStem(std::string_view path) {
  const size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (name.size() > 3 && name.substr(name.size() - 3) == ".md") name.remove_suffix(3);
  return name;
}

}  // namespace

bool IsEntityType(std::string_view type) {
  return std::find(kEntityTypes.begin(), kEntityTypes.end(), type) != kEntityTypes.end();
}

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

Result<std::vector<EntityCandidate>> ResolveEntity(PageStore& store, const ReadScope& scope, std::string_view name) {
  name = common::TrimSpace(name);
  if (name.empty()) return Status::InvalidArgument("an entity name is empty");
  if (name.size() > 1024) return Status::InvalidArgument("an entity name is longer than 1,024 bytes");
  if (!common::IsValidUtf8(name)) return Status::InvalidArgument("an entity name is not valid UTF-8");
  ENGRAM_ASSIGN_OR_RETURN(std::vector<PageNames> pages, store.AllPageNames(scope));
  const std::string key = text::SlugFromPath(name);
  const std::string lower = common::ToLower(name);
  const std::string folded = FoldName(name);
  const std::string compact = CompactName(name);
  struct Match {
    const PageNames* page;
    std::string reason;
  };
  // Levels: 0 slug/path, 1 file name, 2 title, 3 alias, 4 folded, 5 compact.
  std::array<std::vector<Match>, 6> levels;
  for (const PageNames& p : pages) {
    if (p.slug == name || p.slug == key || text::PathKey(p.path) == key) {
      levels[0].push_back({&p, "slug"});
      continue;
    }
    if (common::ToLower(FileStem(p.path)) == lower) {
      levels[1].push_back({&p, "file name"});
      continue;
    }
    if (common::ToLower(p.title) == lower) {
      levels[2].push_back({&p, "title"});
      continue;
    }
    auto alias = std::find_if(p.aliases.begin(), p.aliases.end(),
                              [&](const std::string& a) { return common::ToLower(a) == lower; });
    if (alias != p.aliases.end()) {
      levels[3].push_back({&p, "alias '" + *alias + "'"});
      continue;
    }
    std::vector<std::string> names = p.aliases;
    names.insert(names.begin(), p.title);
    const char* what = "title";
    bool found = false;
    for (const std::string& n : names) {
      if (FoldName(n) == folded) {
        levels[4].push_back({&p, std::string(what) + " '" + n + "' (case, width or Traditional/Simplified)"});
        found = true;
        break;
      }
      what = "alias";
    }
    if (found || compact.empty()) continue;
    what = "title";
    for (const std::string& n : names) {
      if (CompactName(n) == compact) {
        levels[5].push_back({&p, std::string(what) + " '" + n + "' (spelled without spaces or punctuation)"});
        break;
      }
      what = "alias";
    }
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
      c.is_entity = IsEntityType(c.type);
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
