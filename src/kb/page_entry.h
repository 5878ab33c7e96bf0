// A knowledge entry kept as a Markdown page (a collection declared over a
// folder, KbCollection::folder): what a page says as a red-line entry.
//
//   frontmatter   question, answer (or safeChat), class (or className,
//                 class_name), type, status (online / offline)
//   body          a "## Q" section (also "Question", "问题", "问") and a
//                 "## A" section ("Answer", "回答", "答"), any heading level;
//                 used for what the frontmatter does not give
//
// A page with no question is not an entry (a README in the folder); an
// offline page is one that is not searchable.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace engram::kb {

struct PageEntry {
  std::string question;
  std::string answer;
  std::string class_name;
  std::string type;
  bool online = true;
};

// frontmatter_json: the page's frontmatter as a JSON object ("" or "{}" for
// none); content: the Markdown file.
std::optional<PageEntry> ReadPageEntry(std::string_view frontmatter_json, std::string_view content);

// Whether path (source-relative) lies in folder ("redline" or "redline/":
// whole components; "" = nowhere).
bool InFolder(std::string_view path, std::string_view folder);

}  // namespace engram::kb
