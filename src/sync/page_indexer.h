// Turns a Markdown file into the rows the engine stores: the parsed page,
// its chunks with analysed terms, and the analysed title and aliases.
#pragma once

#include <string_view>

#include "engram/engine.h"
#include "engram/status.h"
#include "text/chunker.h"

namespace engram::sync {

// path is source-relative ("people/zhang-san.md"). Fails only when the
// content is not text (invalid UTF-8, NUL bytes); frontmatter problems are
// warnings in the returned page.
Result<PageWrite> PreparePage(std::string_view path, std::string_view content,
                              const text::ChunkerOptions& chunker);

// Analysed term frequencies of text (used for chunks and titles).
TermVector BuildTermVector(std::string_view text);

}  // namespace engram::sync
