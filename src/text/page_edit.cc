#include "text/page_edit.h"

#include <algorithm>
#include <array>
#include <vector>

#include "common/utf8.h"
#include "text/canvas.h"
#include "text/page_links.h"
#include "text/page_parser.h"
#include "text/slug.h"

namespace engram::text {

namespace {

std::string_view TrimView(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Byte offsets of the starts of each line (and one past the end).
std::vector<size_t> LineStarts(std::string_view s) {
  std::vector<size_t> starts{0};
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n') starts.push_back(i + 1);
  }
  if (starts.back() != s.size()) starts.push_back(s.size());
  return starts;
}

Status CheckOneLine(std::string_view what, std::string_view text, size_t max_bytes) {
  if (!common::IsValidUtf8(text)) return Status::InvalidArgument(std::string(what) + " is not valid UTF-8");
  if (text.size() > max_bytes) {
    return Status::InvalidArgument(std::string(what) + " is " + std::to_string(text.size()) + " bytes, over " +
                                   std::to_string(max_bytes));
  }
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7F) return Status::InvalidArgument(std::string(what) + " must be one line without control characters");
  }
  return Status::Ok();
}

Status CheckTag(std::string_view tag) {
  if (tag.empty()) return Status::InvalidArgument("tag is empty");
  ENGRAM_RETURN_IF_ERROR(CheckOneLine("tag", tag, 64));
  size_t i = 0;
  while (i < tag.size()) {
    const char32_t c = common::DecodeUtf8(tag, &i);
    if (c == U'-' || c == U'_' || c == U'/' || c == U'.') continue;
    if (c < 0x80 ? std::isalnum(static_cast<int>(c)) != 0 : common::IsWordChar(c)) continue;
    return Status::InvalidArgument("tag '" + std::string(tag) + "': tags are letters, digits and - _ / .");
  }
  return Status::Ok();
}

// The edits write Markdown; a canvas is JSON (text/canvas.h), edited in Obsidian.
Status CheckMarkdown(std::string_view path) {
  if (!IsCanvasPath(path)) return Status::Ok();
  std::string why = "'";
  why.append(path).append("' is a canvas (JSON Canvas); engram edits only Markdown pages. Edit it in Obsidian");
  return Status::InvalidArgument(std::move(why));
}

std::string AppendToCompiledTruth(std::string_view content, const Page& page, const std::string& line);

// The end of the text with exactly one line break.
std::string WithFinalNewline(std::string_view s) {
  std::string out(s);
  if (!out.empty() && out.back() != '\n') out.push_back('\n');
  return out;
}

}  // namespace

Result<std::string> AddTag(std::string_view path, std::string_view content, std::string_view tag) {
  ENGRAM_RETURN_IF_ERROR(CheckMarkdown(path));
  ENGRAM_RETURN_IF_ERROR(CheckTag(tag));
  ENGRAM_ASSIGN_OR_RETURN(Page page, ParsePage(path, content));
  for (const std::string& has : page.tags) {
    if (TagKey(has) == TagKey(tag)) return std::string(content);  // tags match whatever their case
  }
  const std::string t(tag);
  if (!page.has_frontmatter) return "---\ntags: [" + t + "]\n---\n\n" + std::string(content);
  // The frontmatter's text: from the line after the opening fence.
  const size_t fm_at = content.find(page.frontmatter_raw);
  if (fm_at == std::string_view::npos) return Status::Internal("frontmatter not found in the page text");
  const std::string_view fm = content.substr(fm_at, page.frontmatter_raw.size());
  const std::vector<size_t> starts = LineStarts(fm);
  std::string edited;
  bool done = false;
  for (size_t li = 0; li + 1 < starts.size() && !done; ++li) {
    std::string_view line = fm.substr(starts[li], starts[li + 1] - starts[li]);
    if (line.substr(0, 4) != "tags") continue;
    std::string_view rest = TrimView(line.substr(4));
    if (rest.empty() || rest.front() != ':') continue;
    rest = TrimView(rest.substr(1));
    if (!rest.empty() && rest.back() == '\n') rest = TrimView(rest.substr(0, rest.size() - 1));
    const size_t line_at = starts[li];
    if (!rest.empty() && rest.front() == '[' && rest.back() == ']') {
      // Flow list: before the closing bracket.
      const size_t close = line_at + line.rfind(']');
      const bool empty = TrimView(rest.substr(1, rest.size() - 2)).empty();
      edited = std::string(fm.substr(0, close)) + (empty ? "" : ", ") + t + std::string(fm.substr(close));
      done = true;
    } else if (rest.empty()) {
      // Block list: after its last "- item" line, at the items' indentation.
      size_t end = li + 1;
      std::string indent = "  ";
      for (size_t k = li + 1; k + 1 < starts.size(); ++k) {
        std::string_view item = fm.substr(starts[k], starts[k + 1] - starts[k]);
        const size_t dash = item.find_first_not_of(" \t");
        if (dash == std::string_view::npos || item[dash] != '-') break;
        if (k == li + 1) indent = std::string(item.substr(0, dash));
        end = k + 1;
      }
      const size_t at = end < starts.size() ? starts[end] : fm.size();
      std::string before(fm.substr(0, at));
      if (!before.empty() && before.back() != '\n') before.push_back('\n');
      edited = before + indent + "- " + t + "\n" + std::string(fm.substr(at));
      done = true;
    } else {
      return Status::InvalidArgument(std::string(path) + ": frontmatter 'tags' is written as '" + std::string(rest) +
                                     "', not as a list; edit the file to add a tag");
    }
  }
  if (!done) edited = WithFinalNewline(fm) + "tags: [" + t + "]\n";
  std::string out = std::string(content.substr(0, fm_at)) + edited + std::string(content.substr(fm_at + fm.size()));
  ENGRAM_ASSIGN_OR_RETURN(Page check, ParsePage(path, out));
  if (std::find(check.tags.begin(), check.tags.end(), tag) == check.tags.end()) {
    return Status::InvalidArgument(std::string(path) + ": the frontmatter's 'tags' has a form engram does not edit");
  }
  return out;
}

Result<std::string> AddTimelineEntry(std::string_view path, std::string_view content, std::string_view date,
                                     std::string_view summary, std::string_view source) {
  ENGRAM_RETURN_IF_ERROR(CheckMarkdown(path));
  size_t used = 0;
  const std::string normalised = ParseLeadingDate(TrimView(date), &used);
  if (normalised.empty() || used != TrimView(date).size()) {
    return Status::InvalidArgument("date '" + std::string(date) + "' is not a date (e.g. 2026-04-07, 2026-04, 2026年4月7日)");
  }
  const std::string_view text = TrimView(summary);
  if (text.empty()) return Status::InvalidArgument("summary is empty");
  ENGRAM_RETURN_IF_ERROR(CheckOneLine("summary", text, 2000));
  ENGRAM_RETURN_IF_ERROR(CheckOneLine("source", source, 500));
  for (std::string_view open : {"[Source:", "[source:", "[来源"}) {
    if (text.find(open) != std::string_view::npos) return Status::InvalidArgument("summary holds its own source note; pass it as source");
  }
  if (source.find(']') != std::string_view::npos && source.find("[[") == std::string_view::npos) {
    return Status::InvalidArgument("source must not contain ']' outside a [[wiki link]]");
  }
  ENGRAM_ASSIGN_OR_RETURN(Page page, ParsePage(path, content));
  std::string line = "- **" + normalised + "** | " + std::string(text);
  if (!TrimView(source).empty()) line += " [Source: " + std::string(TrimView(source)) + "]";
  std::string out = WithFinalNewline(content);
  if (page.timeline_separator.empty()) out += (out.empty() ? "" : "\n") + std::string("<!-- timeline -->\n\n");
  return out + line + "\n";
}

namespace {

// A plain link is a mention; a typed one is written as the Dataview field
// the parser types it by ("works_at:: [[x]]").
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kLinkCues = {{
    {"mentions", "See "}, {"works_at", "works_at:: "}, {"founded", "founded:: "}, {"invested_in", "invested_in:: "},
    {"attended", "attended:: "},
}};

}  // namespace

const char* WritableLinkTypes() { return "mentions, works_at, founded, invested_in, attended"; }

Result<std::string> AddLink(std::string_view path, std::string_view content, std::string_view target,
                            std::string_view type) {
  ENGRAM_RETURN_IF_ERROR(CheckMarkdown(path));
  if (type.empty()) type = "mentions";
  auto cue = std::find_if(kLinkCues.begin(), kLinkCues.end(), [&](const auto& c) { return c.first == type; });
  if (cue == kLinkCues.end()) {
    return Status::InvalidArgument("link type '" + std::string(type) + "' cannot be written; use one of " +
                                   WritableLinkTypes());
  }
  ENGRAM_RETURN_IF_ERROR(ValidateSlugInput(target).WithContext("link target"));
  if (target.find_first_of("[]|#") != std::string_view::npos) {
    return Status::InvalidArgument("link target '" + std::string(target) + "' contains [ ] | or #");
  }
  ENGRAM_ASSIGN_OR_RETURN(Page page, ParsePage(path, content));
  const std::string slug = SlugFromPath(target);
  for (const PageLink& l : page.links) {
    if (SlugFromPath(l.target) == slug && l.type == type) return std::string(content);
  }
  const std::string line = "- " + std::string(cue->second) + "[[" + std::string(target) + "]]\n";
  return AppendToCompiledTruth(content, page, line);
}

Result<std::string> AddFact(std::string_view path, std::string_view content, std::string_view predicate,
                            std::string_view value, std::string_view valid_from, std::string_view valid_until) {
  ENGRAM_RETURN_IF_ERROR(CheckMarkdown(path));
  predicate = TrimView(predicate);
  value = TrimView(value);
  if (predicate.empty()) return Status::InvalidArgument("fact predicate is empty");
  if (value.empty()) return Status::InvalidArgument("fact value is empty");
  ENGRAM_RETURN_IF_ERROR(CheckOneLine("fact predicate", predicate, 48));
  ENGRAM_RETURN_IF_ERROR(CheckOneLine("fact value", value, 200));
  if (predicate.find_first_of("[]()`#|<>!\"*:") != std::string_view::npos ||
      predicate.find("：") != std::string_view::npos) {
    return Status::InvalidArgument("fact predicate '" + std::string(predicate) +
                                   "' holds markup or a colon; write a name such as role or works_at");
  }
  auto date = [](std::string_view what, std::string_view d) -> Result<std::string> {
    if (d.empty()) return std::string();
    size_t used = 0;
    std::string n = ParseLeadingDate(TrimView(d), &used);
    if (n.empty() || used != TrimView(d).size()) {
      return Status::InvalidArgument(std::string(what) + " '" + std::string(d) +
                                     "' is not a date (2026-03-12, 2026-03, 2026 or 2026年3月)");
    }
    return n;
  };
  ENGRAM_ASSIGN_OR_RETURN(const std::string from, date("valid_from", valid_from));
  ENGRAM_ASSIGN_OR_RETURN(const std::string until, date("valid_until", valid_until));
  if (!from.empty() && !until.empty() && until < from) {
    return Status::InvalidArgument("valid_until " + until + " is before valid_from " + from);
  }
  std::string line = "- fact: " + std::string(predicate) + ": " + std::string(value);
  if (!from.empty() && !until.empty()) line += " (" + from + " – " + until + ")";
  else if (!from.empty()) line += " (since " + from + ")";
  else if (!until.empty()) line += " (until " + until + ")";
  ENGRAM_ASSIGN_OR_RETURN(Page page, ParsePage(path, content));
  // The line must read back as the fact asked for (a value ending in "(…)" would not).
  ENGRAM_ASSIGN_OR_RETURN(Page probe, ParsePage(path, line + "\n"));
  if (probe.facts.empty()) {
    return Status::InvalidArgument("'" + std::string(predicate) + ": " + std::string(value) +
                                   "' does not read back as a fact (a text value is read only for predicates "
                                   "such as role, works_at, location, status, born; any predicate takes a [[link]])");
  }
  for (const PageFact& f : page.facts) {
    for (const PageFact& want : probe.facts) {
      if (f.predicate == want.predicate && f.value == want.value && f.valid_from == want.valid_from &&
          f.valid_until == want.valid_until) {
        return std::string(content);  // the page already says it
      }
    }
  }
  return AppendToCompiledTruth(content, page, line + "\n");
}

namespace {
// line (ending in a line break) after the compiled truth's last non-blank
// line: before the timeline separator, or at the end of a page without one.
std::string AppendToCompiledTruth(std::string_view content, const Page& page, const std::string& line) {
  if (page.timeline_separator_line == 0) {
    std::string out = WithFinalNewline(content);
    return out + line;
  }
  // Before the separator, after the compiled truth's last non-blank line.
  const std::vector<size_t> starts = LineStarts(content);
  size_t sep = static_cast<size_t>(page.timeline_separator_line - 1);
  size_t at = sep;
  while (at > 0 && TrimView(content.substr(starts[at - 1], starts[at] - starts[at - 1])).find_first_not_of("\n") ==
                       std::string_view::npos) {
    --at;
  }
  std::string before(content.substr(0, starts[at]));
  if (!before.empty() && before.back() != '\n') before.push_back('\n');
  return before + line + std::string(content.substr(starts[at]));
}
}  // namespace

}  // namespace engram::text
