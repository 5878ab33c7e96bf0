#include "ops/page_names.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

#include "common/utf8.h"
#include "text/page_links.h"
#include "text/slug.h"

namespace engram::ops {

namespace {

// The form names are compared in: NFKC with case folding, trimmed.
std::string Fold(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t");
  if (b == std::string_view::npos) return "";
  return common::NfkcCasefold(s.substr(b, e - b + 1));
}

// A path's file name without ".md".
std::string_view FileName(std::string_view path) {
  if (size_t slash = path.rfind('/'); slash != std::string_view::npos) path.remove_prefix(slash + 1);
  if (path.size() > 3 && common::AsciiLower(path.substr(path.size() - 3)) == ".md") path.remove_suffix(3);
  return path;
}

std::string_view WithoutMd(std::string_view path) {
  if (path.size() > 3 && common::AsciiLower(path.substr(path.size() - 3)) == ".md") path.remove_suffix(3);
  return path;
}

std::u32string CodePoints(std::string_view s) {
  std::u32string out;
  size_t i = 0;
  while (i < s.size()) out.push_back(common::DecodeUtf8(s, &i));
  return out;
}

// Levenshtein distance over code points, giving up (returning cap) past cap.
size_t EditDistance(const std::u32string& a, const std::u32string& b, size_t cap) {
  if (a.size() > b.size() + cap || b.size() > a.size() + cap) return cap;
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    size_t best = row[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
      best = std::min(best, row[j]);
    }
    if (best >= cap) return cap;
  }
  return std::min(row[b.size()], cap);
}

}  // namespace

Status ValidatePageName(std::string_view name) {
  if (name.empty()) return Status::InvalidArgument("page name is empty");
  if (name.size() > 1024) {
    return Status::InvalidArgument("page name is " + std::to_string(name.size()) + " bytes, over the limit of 1024");
  }
  if (!common::IsValidUtf8(name)) return Status::InvalidArgument("page name is not valid UTF-8");
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7F) return Status::InvalidArgument("page name contains a control or NUL character");
  }
  return Status::Ok();
}

std::string VaultLinkText(const std::vector<PageNames>& pages, const PageNames& target, std::string_view from_path) {
  std::vector<text::LinkCandidate> candidates;
  for (size_t i = 0; i < pages.size(); ++i) {
    candidates.push_back({static_cast<int64_t>(i), text::PathKey(pages[i].path)});
  }
  const std::string from_folder = text::FolderKey(from_path);
  // Which page a link written `link` reaches: the engine's order (exact
  // path, slug, path from the linking folder, then by file name).
  auto reaches_target = [&](const std::string& link) {
    const std::string key = text::SlugFromPath(link);
    auto first = [&](auto&& matches) -> std::optional<std::string> {
      const PageNames* best = nullptr;
      for (const PageNames& p : pages) {
        if (matches(p) && (best == nullptr || p.path < best->path)) best = &p;
      }
      if (best == nullptr) return std::nullopt;
      return best->path;
    };
    if (auto p = first([&](const PageNames& c) { return text::PathKey(c.path) == key; })) return *p == target.path;
    if (auto p = first([&](const PageNames& c) { return c.slug == key; })) return *p == target.path;
    if (!from_folder.empty()) {
      const std::string relative = from_folder + "/" + key;
      if (auto p = first([&](const PageNames& c) { return text::PathKey(c.path) == relative; })) {
        return *p == target.path;
      }
    }
    auto chosen = text::ChooseByName(key, from_folder, candidates);
    return chosen && pages[static_cast<size_t>(*chosen)].path == target.path;
  };
  const std::string stem(WithoutMd(target.path));
  for (size_t start = stem.size();;) {
    const size_t slash = start == 0 ? std::string::npos : stem.rfind('/', start - 1);
    const std::string link = slash == std::string::npos ? stem : stem.substr(slash + 1);
    if (reaches_target(link) || slash == std::string::npos) return link;
    start = slash;
  }
}

std::vector<std::string> ClosestNames(const std::vector<PageNames>& names, std::string_view typed, size_t limit) {
  const std::string want = Fold(typed);
  const std::u32string want_cp = CodePoints(want);
  const size_t cap = std::max<size_t>(3, want_cp.size() / 2 + 1);
  struct Scored {
    size_t score;
    std::string shown;
  };
  std::vector<Scored> scored;
  for (const PageNames& p : names) {
    size_t best = std::numeric_limits<size_t>::max();
    std::string best_name;
    auto consider = [&](std::string_view name) {
      const std::string folded = Fold(name);
      if (folded.empty()) return;
      size_t score;
      if (folded.rfind(want, 0) == 0 || want.rfind(folded, 0) == 0) {
        score = 0;  // one is a prefix of the other
      } else if (folded.find(want) != std::string::npos) {
        score = 1;
      } else {
        size_t d = EditDistance(CodePoints(folded), want_cp, cap);
        if (d >= cap) return;
        score = 1 + d;
      }
      if (score < best) {
        best = score;
        best_name = std::string(name);
      }
    };
    consider(FileName(p.path));
    consider(p.title);
    for (const std::string& a : p.aliases) consider(a);
    consider(p.slug);
    if (best_name.empty()) continue;
    std::string shown = "'" + best_name + "'";
    if (best_name != p.slug) shown += " (" + p.slug + ")";
    scored.push_back({best, std::move(shown)});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) { return a.score < b.score; });
  std::vector<std::string> out;
  for (const Scored& s : scored) {
    if (out.size() == limit) break;
    if (std::find(out.begin(), out.end(), s.shown) == out.end()) out.push_back(s.shown);
  }
  return out;
}

Result<StoredPage> ResolvePage(PageStore& engine, const ReadScope& scope, std::string_view name) {
  ENGRAM_RETURN_IF_ERROR(ValidatePageName(name));
  const std::string_view source = scope.source;
  auto by_slug = [&](std::string_view slug) -> std::optional<Result<StoredPage>> {
    if (slug.empty()) return std::nullopt;
    auto page = engine.GetPage(scope, slug);
    if (page.ok() || page.status().code() != StatusCode::kNotFound) return page;
    return std::nullopt;
  };
  // The slug, then the path as written.
  if (auto page = by_slug(name)) return std::move(*page);
  for (const std::string& path : {std::string(name), std::string(name) + ".md"}) {
    ENGRAM_ASSIGN_OR_RETURN(std::optional<SourceFile> file, engine.FindSourceFile(source, path));
    if (file) {
      if (auto page = by_slug(file->slug)) return std::move(*page);
    }
  }
  // The name read as a path, as a wiki link's target is.
  const std::string key = text::SlugFromPath(name);
  if (key != name) {
    if (auto page = by_slug(key)) return std::move(*page);
  }
  // Names: file name (path suffix), title, alias.
  ENGRAM_ASSIGN_OR_RETURN(std::vector<PageNames> names, engine.AllPageNames(scope));
  const std::string folded = Fold(WithoutMd(name));
  const PageNames* best = nullptr;
  int best_rank = 4;
  for (const PageNames& p : names) {
    int rank = 4;
    const std::string path_key = text::SlugFromPath(p.path);
    const bool ends_with_key = !key.empty() && path_key.size() >= key.size() &&
                               path_key.compare(path_key.size() - key.size(), key.size(), key) == 0 &&
                               (path_key.size() == key.size() || path_key[path_key.size() - key.size() - 1] == '/');
    if (ends_with_key) {
      rank = 0;  // ".../C++.md" for "C++", ".../People/Zhang San.md" for "people/zhang san"
    } else if (Fold(p.title) == folded) {
      rank = 1;
    } else {
      for (const std::string& a : p.aliases) {
        if (Fold(a) == folded) rank = 2;
      }
    }
    if (rank > 2) continue;
    if (best == nullptr || rank < best_rank ||
        (rank == best_rank && (p.path.size() < best->path.size() ||
                               (p.path.size() == best->path.size() && p.path < best->path)))) {
      best = &p;
      best_rank = rank;
    }
  }
  if (best != nullptr) {
    if (auto page = by_slug(best->slug)) return std::move(*page);
  }
  std::string message = "no page '" + std::string(name) + "'";
  std::vector<std::string> closest = ClosestNames(names, WithoutMd(name), 3);
  if (!closest.empty()) {
    message += "; did you mean ";
    for (size_t i = 0; i < closest.size(); ++i) {
      if (i > 0) message += i + 1 == closest.size() ? " or " : ", ";
      message += closest[i];
    }
    message += "?";
  }
  return Status::NotFound(std::move(message));
}

std::string PageFileName(std::string_view slug) {
  std::string rel(slug);
  const std::string lower = common::AsciiLower(rel);
  auto ends = [&](std::string_view suffix) {
    return lower.size() >= suffix.size() && lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (!ends(".md") && !ends(".markdown")) rel += ".md";
  return rel;
}

}  // namespace engram::ops
