// Slugs: stable page identifiers derived from paths.
#pragma once

#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram::text {

// "People/Zhang San.md" -> "people/zhang-san". Strips a trailing ".md"
// (any case), applies NFC and lower-casing, keeps letters and digits of every
// script, '.' and '_', turns runs of whitespace and '-' into a single '-', and
// removes empty, "." and ".." components. A component that loses anything
// else (punctuation, symbols, a leading or trailing dot) gets a stable
// disambiguator: "C++.md" -> "c--" + 8 hex digits, "C#.md" -> "c--" + 8 others.
// Injective on names up to letter case, Unicode normalisation and the choice
// of word separators (those are one name, like Obsidian's links): "C.md",
// "C++.md", "C#.md", "Note A.md" and "Note_A.md" have five slugs; "Note A.md"
// and "note-a.md" share one. Slugs hold only letters, digits, - _ . and /.
// May return "".
//
// A canvas (".canvas", any case) has its own slugs: its name's slug with
// "--canvas" appended ("Board.canvas" -> "board--canvas"), which no note's
// slug can be (a note's file name never yields "--" but before its 8-hex
// disambiguator), so "Board.md" and "Board.canvas" are two pages. A canvas
// whose file name has no name ("a/ .canvas") has the slug "".
inline constexpr std::string_view kCanvasSlugSuffix = "--canvas";
std::string SlugFromPath(std::string_view path);

// Checks a slug or relative file name given by a user or an agent: non-empty,
// valid UTF-8, at most 255 bytes, no "..", no absolute path, no backslash,
// no control or NUL characters. InvalidArgument names the problem.
Status ValidateSlugInput(std::string_view slug);

// Type from the first directory: "people/x" -> "person", "companies/x" ->
// "company", ... Returns "" when the directory implies nothing.
std::string TypeFromSlug(std::string_view slug);

}  // namespace engram::text
