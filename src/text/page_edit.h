// Small edits of a page's Markdown that agents ask for (add a tag, a
// timeline entry, a link), made as text so that everything else in the file
// stays byte for byte as the author wrote it. Each returns the new content,
// or the content unchanged when the page already says it; InvalidArgument
// names a bad tag, date, summary or link type, or a canvas path (a canvas is
// JSON, not Markdown).
#pragma once

#include <functional>
#include <vector>

#include <string>
#include <string_view>

#include "engram/page.h"
#include "engram/status.h"

namespace engram::text {

// Adds tag to the frontmatter's `tags`: a flow list "tags: [a, b]" gets
// ", tag"; a block list gets one more "- tag" item at its indentation; a
// page without `tags` gets "tags: [tag]", one without frontmatter a new
// frontmatter. A tag is 1–64 bytes of letters, digits and - _ / . (any
// script); another form of `tags` (a scalar, a nested map) is refused.
Result<std::string> AddTag(std::string_view path, std::string_view content, std::string_view tag);

// Adds each name the page does not go by yet (title or alias, any case) to
// the frontmatter's `aliases`, as AddTag adds a tag (quoted when YAML needs it).
Result<std::string> AddAliases(std::string_view path, std::string_view content,
                               const std::vector<std::string>& names);

// Removes each of `names` from the frontmatter's `aliases` (or `alias`),
// compared case-insensitively; the list is written back as a flow list, the
// key dropped when none is left. InvalidArgument when a name is not one of
// them (a title or a file name is no alias to remove).
Result<std::string> RemoveAliases(std::string_view path, std::string_view content,
                                  const std::vector<std::string>& names);

// Rewrites every wiki link or embed that `reaches(target, shown)` picks —
// target in slug form, as the page's links store it; shown the text after
// "|", else the target as written — to point at `to`, keeping its heading
// and its shown text ("[[Old Name]]" -> "[[to|Old Name]]"); links in code
// are left alone. *rewritten counts them.
Result<std::string> RewriteLinks(std::string_view path, std::string_view content,
                                 const std::function<bool(const std::string&, const std::string&)>& reaches,
                                 std::string_view to, size_t* rewritten);

// Cuts out every section whose heading (level 2 to 6, its text trimmed) `picks`
// says: from the heading line to the next heading of the same or a higher
// level, outside code fences. Returns {the page without them, the sections
// as they were written, in order}.
Result<std::pair<std::string, std::string>> TakeSections(std::string_view path, std::string_view content,
                                                        const std::function<bool(std::string_view)>& picks);

// Appends a block of Markdown (a section) at the end of the compiled truth.
Result<std::string> AppendSection(std::string_view path, std::string_view content, std::string_view text);

// Appends "- **DATE** | SUMMARY [Source: SOURCE]" to the page's timeline,
// opening one with "<!-- timeline -->" when the page has none. date is any
// form ParseLeadingDate reads (written normalised); summary and source are
// one line each (summary 1–2,000 bytes, no "[Source:" of its own).
Result<std::string> AddTimelineEntry(std::string_view path, std::string_view content, std::string_view date,
                                     std::string_view summary, std::string_view source);

// Appends a line to the end of the compiled truth (before the timeline)
// that says the link's type the way the parser reads it: "- See [[target]]"
// for mentions, else the Dataview field "- works_at:: [[target]]" (and so
// for founded, invested_in, attended). A page that already links to target
// with that type is left as it is.
Result<std::string> AddLink(std::string_view path, std::string_view content, std::string_view target,
                            std::string_view type);

// Appends "- fact: PREDICATE: VALUE (since FROM)" (or "(FROM – UNTIL)",
// "(until UNTIL)") where AddLink puts its line. predicate is a field name
// (1–48 bytes, no markup or colon), value one line of 1–200 bytes (a
// [[link]] for an entity); the dates any form ParseLeadingDate reads,
// written normalised. Refused when the line would not read back as a fact
// (text/page_facts.h); left as it is when the page already states it.
// A non-empty `note` (one line, at most 120 bytes, no "--" or ">") is
// written after the line as "<!-- note -->": invisible when the Markdown is
// shown, no part of the value; one that starts "llm " becomes the fact's origin.
Result<std::string> AddFact(std::string_view path, std::string_view content, std::string_view predicate,
                            std::string_view value, std::string_view valid_from, std::string_view valid_until,
                            std::string_view note = {});

// The link types AddLink can write: "mentions, works_at, founded, invested_in, attended".
const char* WritableLinkTypes();

}  // namespace engram::text
