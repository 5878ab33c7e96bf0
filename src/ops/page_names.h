// Look-ups by what a user types: every operation that takes a page (get,
// backlinks, tags, timeline, the edits, delete) names it the way a wiki link
// [[Name]] does — by slug, path, file name, title or alias.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engram/store/page_store.h"
#include "engram/status.h"

namespace engram::ops {

// The page `name` names in scope.source, tried in this order (the first that finds
// a page wins): the slug as given; the path as given, or with ".md"; the slug
// of the name read as a path ("People/Zhang San" -> "people/zhang-san", "C++"
// -> its slug); a page whose file name is the name (with a folder part, whose
// path ends with it), the shortest path first as Obsidian picks; a page whose
// title, then whose alias, is the name (Unicode case and width ignored).
// Pages the scope cannot see are absent (the store leaves them out). NotFound
// names the closest names of pages the scope sees ("did you mean …").
Result<StoredPage> ResolvePage(PageStore& engine, const ReadScope& scope, std::string_view name);

// How a note links to `target` the way the vault writes links: its file
// name ("Zhang San") when that reaches it from `from_path`, else the shortest
// trailing part of its path that does ("people/Zhang San"), else its whole
// path — each checked with the link resolution the brain itself uses
// (pages: every page of the source, private ones included).
std::string VaultLinkText(const std::vector<PageNames>& pages, const PageNames& target, std::string_view from_path);

// Up to limit names of pages in names closest to what the user typed (edit
// distance on folded text, prefixes and containment first), each as
// "name (slug)" when the slug differs from the name.
std::vector<std::string> ClosestNames(const std::vector<PageNames>& names, std::string_view typed, size_t limit);

// The file a page slug names: "notes/a" -> "notes/a.md"; a name that already
// ends in .md or .markdown is kept.
std::string PageFileName(std::string_view slug);

// Checks a page name typed by a caller: non-empty, at most 1,024 bytes,
// valid UTF-8, no control characters. Names are only compared with the
// index, never used as file names, so spaces and punctuation are fine.
Status ValidatePageName(std::string_view name);

}  // namespace engram::ops
