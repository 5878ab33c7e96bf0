// Slugs: stable page identifiers derived from paths.
#pragma once

#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram::text {

// "People/Zhang San.md" -> "people/zhang-san". Strips a trailing ".md"
// (any case), applies NFC and lower-casing, keeps letters and digits of every
// script, turns whitespace, '-' and '_' runs into a single '-', drops other
// punctuation, and removes empty, "." and ".." components. May return "".
std::string SlugFromPath(std::string_view path);

// Checks a slug or relative file name given by a user or an agent: non-empty,
// valid UTF-8, at most 255 bytes, no "..", no absolute path, no backslash,
// no control or NUL characters. InvalidArgument names the problem.
Status ValidateSlugInput(std::string_view slug);

// Type from the first directory: "people/x" -> "person", "companies/x" ->
// "company", ... Returns "" when the directory implies nothing.
std::string TypeFromSlug(std::string_view slug);

}  // namespace engram::text
