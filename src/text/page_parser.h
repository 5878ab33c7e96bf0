// Markdown page parsing and serialisation (MISSION.md section 1, "Pages").
#pragma once

#include <initializer_list>

#include <string>
#include <string_view>

#include "engram/page.h"
#include "engram/status.h"

namespace engram::text {

// Which name a page shows as its title when its frontmatter has no `title`.
// Every other name stays an alias, so it is searched and resolved the same.
enum class TitleSource {
  kFileName,  // the file name without ".md" (the default: how a vault names notes)
  kHeading,   // the first "# " heading, else the file name
};

struct ParseOptions {
  TitleSource title = TitleSource::kFileName;
};

// The plain text of a name written in Markdown: wiki links become their label
// (else their target without "#heading"), [text](url) and ![alt](src) their
// text, and code spans lose their backticks; whitespace is trimmed.
std::string PlainTitle(std::string_view markdown);

// Parses a page from its source-relative path and file content.
//
// Names: the title is the frontmatter `title`, else (options.title) the file
// name or the first H1. The file name is always a name of the page: when it
// is not the title it is an alias, and so is an H1 that differs from the
// title. Titles and these aliases are plain text (PlainTitle).
//
// Fails (InvalidArgument) only for content that is not UTF-8 text: invalid
// UTF-8 or NUL bytes, with the byte offset named. Invalid frontmatter is not
// an error: the page is parsed from its body and Page::warnings says why.
//
// A canvas path (IsCanvasPath: "Board.canvas") is read as JSON Canvas by
// ParseCanvasPage (text/canvas.h) instead, options aside.
Result<Page> ParsePage(std::string_view path, std::string_view content, const ParseOptions& options = {});

// Writes a page back as Markdown: frontmatter (verbatim), compiled truth, the
// separator, the timeline. ParsePage(SerializePage(p)) yields the same fields,
// and serialising that again gives the same bytes.
std::string SerializePage(const Page& page);

// Normalises a date written at the start of a timeline line: "2026-04-07",
// "2026/4/7", "2026.04.07", "2026年4月7日", "2026年4月", "April 7, 2026",
// "7 April 2026", "Apr 2026", "2026-04". On success returns the normalised date
// ("2026-04-07", "2026-04" or "2026") and sets *consumed to the bytes used.
std::string ParseLeadingDate(std::string_view s, size_t* consumed);

// True for a line that opens a page's timeline: "<!-- timeline -->",
// "--- timeline ---", "## Timeline", "## History", "## 时间线"…
bool IsTimelineSeparator(std::string_view line);

// The strings a frontmatter (Page::frontmatter_json) gives under each of
// `keys`, in order: a string value, or the strings of a list.
// FrontmatterStrings(json, {"aliases", "alias"}) are the names a page writes.
std::vector<std::string> FrontmatterStrings(std::string_view frontmatter_json,
                                            std::initializer_list<std::string_view> keys);

}  // namespace engram::text
