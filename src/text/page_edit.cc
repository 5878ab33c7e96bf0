#include "text/page_edit.h"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/utf8.h"
#include "text/canvas.h"
#include "text/page_links.h"
#include "text/page_parser.h"
#include "text/slug.h"

namespace engram::text {

namespace {

using Json = nlohmann::json;

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
  // Unicode's own line breaks: an editor or a parser may start a new line at them.
  for (size_t i = 0; i < text.size();) {
    const char32_t c = common::DecodeUtf8(text, &i);
    if (c == 0x85 || c == 0x2028 || c == 0x2029) {
      return Status::InvalidArgument(std::string(what) + " must be one line (it holds a Unicode line or paragraph "
                                     "separator)");
    }
  }
  return Status::Ok();
}

// Whether the one line `line` a write is about to add to a page reads back as
// exactly what the write reports: parsed alone, its facts, links and tags are
// compared with the ones expected (a text value with link syntax, a Dataview
// field or a tag inside would add facts or links nobody asked for). The
// refusal says what the line would have said instead.
Status ReadsBackAs(std::string_view path, const std::string& line, const std::vector<PageFact>& facts,
                   const std::vector<std::pair<std::string, std::string>>& links) {
  ENGRAM_ASSIGN_OR_RETURN(Page probe, ParsePage(path, line + "\n"));
  auto describe = [&] {
    std::string s;
    for (const PageFact& f : probe.facts) {
      s += (s.empty() ? "" : "; ") + std::string("fact ") + f.predicate + ": " +
           (f.value_is_link ? "[[" + f.value + "]]" : f.value);
    }
    for (const PageLink& l : probe.links) s += (s.empty() ? "" : "; ") + std::string("link ") + l.type + " [[" + l.target + "]]";
    for (const std::string& t : probe.tags) s += (s.empty() ? "" : "; ") + std::string("tag #") + t;
    return s.empty() ? std::string("nothing") : s;
  };
  bool same = probe.facts.size() == facts.size() && probe.links.size() == links.size() && probe.tags.empty();
  for (size_t i = 0; same && i < facts.size(); ++i) {
    const PageFact& got = probe.facts[i];
    const PageFact& want = facts[i];
    same = got.subject == want.subject && got.predicate == want.predicate && got.value == want.value &&
           got.value_is_link == want.value_is_link && got.valid_from == want.valid_from &&
           got.valid_until == want.valid_until;
  }
  for (size_t i = 0; same && i < links.size(); ++i) {
    same = SlugFromPath(probe.links[i].target) == SlugFromPath(links[i].first) && probe.links[i].type == links[i].second;
  }
  if (same) return Status::Ok();
  return Status::InvalidArgument("the line '" + line + "' would read back as " + describe() +
                                 ", not as what was asked; a text value is plain text (no [[links]], no "
                                 "'key:: value' fields, no #tags)");
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

namespace {

// Appends item (already YAML) to the frontmatter list `key`: a flow list
// "key: [a, b]" gets ", item"; a block list one more "- item" at its
// indentation; a page without `key` gets "key: [item]", one without
// frontmatter a new frontmatter. Another form of `key` is refused.
Result<std::string> AppendToFrontmatterList(std::string_view path, std::string_view content, const Page& page,
                                            std::string_view key, const std::string& item) {
  if (!page.has_frontmatter) return "---\n" + std::string(key) + ": [" + item + "]\n---\n\n" + std::string(content);
  // The frontmatter's text: from the line after the opening fence.
  const size_t fm_at = content.find(page.frontmatter_raw);
  if (fm_at == std::string_view::npos) return Status::Internal("frontmatter not found in the page text");
  const std::string_view fm = content.substr(fm_at, page.frontmatter_raw.size());
  const std::vector<size_t> starts = LineStarts(fm);
  std::string edited;
  bool done = false;
  for (size_t li = 0; li + 1 < starts.size() && !done; ++li) {
    std::string_view line = fm.substr(starts[li], starts[li + 1] - starts[li]);
    if (line.substr(0, key.size()) != key) continue;
    std::string_view rest = TrimView(line.substr(key.size()));
    if (rest.empty() || rest.front() != ':') continue;
    rest = TrimView(rest.substr(1));
    if (!rest.empty() && rest.back() == '\n') rest = TrimView(rest.substr(0, rest.size() - 1));
    const size_t line_at = starts[li];
    if (!rest.empty() && rest.front() == '[' && rest.back() == ']') {
      // Flow list: before the closing bracket.
      const size_t close = line_at + line.rfind(']');
      const bool empty = TrimView(rest.substr(1, rest.size() - 2)).empty();
      edited = std::string(fm.substr(0, close)) + (empty ? "" : ", ") + item + std::string(fm.substr(close));
      done = true;
    } else if (rest.empty()) {
      // Block list: after its last "- item" line, at the items' indentation.
      size_t end = li + 1;
      std::string indent = "  ";
      for (size_t k = li + 1; k + 1 < starts.size(); ++k) {
        std::string_view it = fm.substr(starts[k], starts[k + 1] - starts[k]);
        const size_t dash = it.find_first_not_of(" \t");
        if (dash == std::string_view::npos || it[dash] != '-') break;
        if (k == li + 1) indent = std::string(it.substr(0, dash));
        end = k + 1;
      }
      const size_t at = end < starts.size() ? starts[end] : fm.size();
      std::string before(fm.substr(0, at));
      if (!before.empty() && before.back() != '\n') before.push_back('\n');
      edited = before + indent + "- " + item + "\n" + std::string(fm.substr(at));
      done = true;
    } else {
      return Status::InvalidArgument(std::string(path) + ": frontmatter '" + std::string(key) + "' is written as '" +
                                     std::string(rest) + "', not as a list; edit the file to add to it");
    }
  }
  if (!done) edited = WithFinalNewline(fm) + std::string(key) + ": [" + item + "]\n";
  return std::string(content.substr(0, fm_at)) + edited + std::string(content.substr(fm_at + fm.size()));
}

// A YAML scalar for a name: as it is when that reads back the same inside a
// flow list, else double-quoted with JSON escapes.
std::string YamlScalar(std::string_view name) {
  const bool plain = !name.empty() && name.find_first_of(",:[]{}#&*!|>'\"%@`\\") == std::string_view::npos &&
                     name.front() != ' ' && name.back() != ' ' && name.front() != '-' && name.front() != '?';
  if (plain) return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

}  // namespace

Result<std::string> AddTag(std::string_view path, std::string_view content, std::string_view tag) {
  ENGRAM_RETURN_IF_ERROR(CheckMarkdown(path));
  ENGRAM_RETURN_IF_ERROR(CheckTag(tag));
  ENGRAM_ASSIGN_OR_RETURN(Page page, ParsePage(path, content));
  for (const std::string& has : page.tags) {
    if (TagKey(has) == TagKey(tag)) return std::string(content);  // tags match whatever their case
  }
  ENGRAM_ASSIGN_OR_RETURN(std::string out, AppendToFrontmatterList(path, content, page, "tags", std::string(tag)));
  ENGRAM_ASSIGN_OR_RETURN(Page check, ParsePage(path, out));
  if (std::find(check.tags.begin(), check.tags.end(), tag) == check.tags.end()) {
    return Status::InvalidArgument(std::string(path) + ": the frontmatter's 'tags' has a form engram does not edit");
  }
  return out;
}

Result<std::string> AddAliases(std::string_view path, std::string_view content,
                               const std::vector<std::string>& names) {
  ENGRAM_RETURN_IF_ERROR(CheckMarkdown(path));
  std::string out(content);
  for (const std::string& name : names) {
    const std::string_view n = TrimView(name);
    if (n.empty()) continue;
    ENGRAM_RETURN_IF_ERROR(CheckOneLine("alias", n, 200));
    ENGRAM_ASSIGN_OR_RETURN(Page page, ParsePage(path, out));
    const std::string key = common::ToLower(n);
    bool known = common::ToLower(page.title) == key;
    for (const std::string& a : page.aliases) known = known || common::ToLower(a) == key;
    if (known) continue;
    ENGRAM_ASSIGN_OR_RETURN(out, AppendToFrontmatterList(path, out, page, "aliases", YamlScalar(n)));
    ENGRAM_ASSIGN_OR_RETURN(Page check, ParsePage(path, out));
    if (std::find(check.aliases.begin(), check.aliases.end(), std::string(n)) == check.aliases.end()) {
      return Status::InvalidArgument(std::string(path) + ": the frontmatter's 'aliases' has a form engram does not edit");
    }
  }
  return out;
}

Result<std::string> RemoveAliases(std::string_view path, std::string_view content,
                                  const std::vector<std::string>& names) {
  ENGRAM_RETURN_IF_ERROR(CheckMarkdown(path));
  ENGRAM_ASSIGN_OR_RETURN(Page page, ParsePage(path, content));
  if (names.empty()) return std::string(content);
  if (!page.has_frontmatter) return Status::InvalidArgument(std::string(path) + " has no frontmatter aliases");
  const size_t fm_at = content.find(page.frontmatter_raw);
  if (fm_at == std::string_view::npos) return Status::Internal("frontmatter not found in the page text");
  const std::string_view fm = content.substr(fm_at, page.frontmatter_raw.size());
  const std::vector<size_t> starts = LineStarts(fm);
  // The frontmatter without the lines that write the aliases.
  std::string kept_fm;
  bool found_key = false;
  for (size_t li = 0; li + 1 < starts.size(); ++li) {
    const std::string_view line = fm.substr(starts[li], starts[li + 1] - starts[li]);
    std::string_view key;
    for (std::string_view k : {std::string_view("aliases"), std::string_view("alias")}) {
      if (line.substr(0, k.size()) == k && TrimView(line.substr(k.size())).substr(0, 1) == ":") key = k;
    }
    if (key.empty()) {
      kept_fm.append(line);
      continue;
    }
    found_key = true;
    std::string_view rest = TrimView(line.substr(key.size()));
    rest = TrimView(rest.substr(1));
    if (!rest.empty() && rest.back() == '\n') rest = TrimView(rest.substr(0, rest.size() - 1));
    if (rest.empty()) {  // a block list: its "- item" lines go with it
      while (li + 2 < starts.size()) {
        const std::string_view it = fm.substr(starts[li + 1], starts[li + 2] - starts[li + 1]);
        const size_t dash = it.find_first_not_of(" \t");
        if (dash == std::string_view::npos || it[dash] != '-') break;
        ++li;
      }
    }
  }
  if (!found_key) return Status::InvalidArgument(std::string(path) + " has no 'aliases' in its frontmatter");
  // What the page's own parse says the frontmatter's aliases are: the title
  // and the file name are added by the parser, never written under `aliases`.
  std::vector<std::string> keep = FrontmatterStrings(page.frontmatter_json, {"aliases", "alias"});
  for (const std::string& name : names) {
    const std::string key = common::ToLower(TrimView(name));
    const size_t before = keep.size();
    std::erase_if(keep, [&](const std::string& a) { return common::ToLower(a) == key; });
    if (keep.size() == before) {
      return Status::InvalidArgument("'" + name + "' is not an alias in the frontmatter of " + std::string(path));
    }
  }
  if (!keep.empty()) {
    std::string list = "aliases: [";
    for (size_t i = 0; i < keep.size(); ++i) list += (i ? ", " : "") + YamlScalar(keep[i]);
    kept_fm = WithFinalNewline(kept_fm) + list + "]\n";
  }
  std::string out = std::string(content.substr(0, fm_at)) + kept_fm + std::string(content.substr(fm_at + fm.size()));
  ENGRAM_ASSIGN_OR_RETURN(Page check, ParsePage(path, out));
  Json check_json = Json::parse(check.frontmatter_json, nullptr, false);
  const Json left = check_json.is_object() && check_json.contains("aliases") ? check_json["aliases"] : Json::array();
  if (left != Json(keep)) {
    return Status::InvalidArgument(std::string(path) + ": the frontmatter's 'aliases' has a form engram does not edit");
  }
  return out;
}

Result<std::pair<std::string, std::string>> TakeSections(std::string_view path, std::string_view content,
                                                        const std::function<bool(std::string_view)>& picks) {
  ENGRAM_RETURN_IF_ERROR(CheckMarkdown(path));
  ENGRAM_ASSIGN_OR_RETURN(Page page, ParsePage(path, content));
  // The body starts after the frontmatter: a heading-like line in it is no heading.
  size_t body_at = 0;
  if (page.has_frontmatter) {
    const size_t fm_at = content.find(page.frontmatter_raw);
    if (fm_at != std::string_view::npos) {
      body_at = content.find('\n', fm_at + page.frontmatter_raw.size());
      body_at = body_at == std::string_view::npos ? content.size() : body_at + 1;
    }
  }
  std::string rest(content.substr(0, body_at)), taken;
  bool in_code = false;
  int taking = 0;  // the level of the section being cut, 0 when none
  const std::vector<size_t> starts = LineStarts(content.substr(body_at));
  for (size_t li = 0; li + 1 < starts.size(); ++li) {
    const std::string_view line = content.substr(body_at + starts[li], starts[li + 1] - starts[li]);
    const std::string_view t = TrimView(line);
    if (t.substr(0, 3) == "```" || t.substr(0, 3) == "~~~") in_code = !in_code;
    int level = 0;
    if (!in_code && line.front() == '#') {
      while (level < static_cast<int>(line.size()) && line[level] == '#') ++level;
      if (level > 6 || level >= static_cast<int>(line.size()) || line[level] != ' ') level = 0;
    }
    if (taking > 0 && !in_code && ((level > 0 && level <= taking) || IsTimelineSeparator(line))) taking = 0;
    if (level >= 2 && taking == 0) {
      std::string_view heading = TrimView(line.substr(level));
      if (!heading.empty() && heading.back() == '\n') heading = TrimView(heading.substr(0, heading.size() - 1));
      if (picks(heading)) taking = level;
    }
    (taking > 0 ? taken : rest).append(line);
  }
  return std::make_pair(std::move(rest), std::move(taken));
}

Result<std::string> RewriteLinks(std::string_view path, std::string_view content,
                                 const std::function<bool(const std::string&, const std::string&)>& reaches,
                                 std::string_view to, size_t* rewritten) {
  ENGRAM_RETURN_IF_ERROR(CheckMarkdown(path));
  std::string out;
  out.reserve(content.size() + 64);
  bool in_code = false;
  size_t i = 0;
  while (i < content.size()) {
    size_t nl = content.find('\n', i);
    nl = nl == std::string_view::npos ? content.size() : nl + 1;
    const std::string_view line = content.substr(i, nl - i);
    const std::string_view t = TrimView(line);
    if (t.substr(0, 3) == "```" || t.substr(0, 3) == "~~~") in_code = !in_code;
    if (in_code || line.find("[[") == std::string_view::npos) {
      out.append(line);
      i = nl;
      continue;
    }
    size_t k = 0;
    while (k < line.size()) {
      if (line[k] == '`') {  // inline code is left as written
        const size_t close = line.find('`', k + 1);
        const size_t end = close == std::string_view::npos ? line.size() : close + 1;
        out.append(line.substr(k, end - k));
        k = end;
        continue;
      }
      if (line.compare(k, 2, "[[") != 0) {
        out.push_back(line[k++]);
        continue;
      }
      const size_t close = line.find("]]", k + 2);
      if (close == std::string_view::npos) {
        out.append(line.substr(k));
        break;
      }
      const std::string_view inner = line.substr(k + 2, close - k - 2);
      const size_t bar = inner.find('|');
      const std::string_view written = inner.substr(0, bar);
      const size_t hash = written.find('#');
      const std::string_view target = written.substr(0, hash);
      PageRefCollector refs(path);
      refs.AddFieldValue("link", "[[" + std::string(target) + "]]");
      std::vector<PageLink> links = refs.TakeLinks();
      const std::string label =
          bar == std::string_view::npos ? std::string(TrimView(target)) : std::string(inner.substr(bar + 1));
      if (links.size() == 1 && reaches(links[0].target, label)) {
        out += "[[" + std::string(to) + (hash == std::string_view::npos ? "" : std::string(written.substr(hash))) +
               "|" + label + "]]";
        ++*rewritten;
      } else {
        out.append(line.substr(k, close + 2 - k));
      }
      k = close + 2;
    }
    i = nl;
  }
  return out;
}

Result<std::string> AppendSection(std::string_view path, std::string_view content, std::string_view text) {
  ENGRAM_RETURN_IF_ERROR(CheckMarkdown(path));
  ENGRAM_ASSIGN_OR_RETURN(Page page, ParsePage(path, content));
  std::string block(TrimView(text));
  if (block.empty()) return std::string(content);
  return AppendToCompiledTruth(content, page, "\n" + block + "\n");
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
  out += line + "\n";
  // The entry must read back as the one reported: its date, its summary, its source — on the line written.
  ENGRAM_ASSIGN_OR_RETURN(Page after, ParsePage(path, out));
  const int written_line = static_cast<int>(std::count(out.begin(), out.end(), '\n'));
  const bool reads_back = std::any_of(after.timeline_entries.begin(), after.timeline_entries.end(),
                                      [&](const TimelineEntry& e) {
                                        return e.line == written_line && e.date == normalised && e.summary == text &&
                                               e.source == TrimView(source);
                                      });
  if (!reads_back) {
    return Status::InvalidArgument("the timeline line '" + line + "' would not read back as the entry " + normalised +
                                   " | " + std::string(text) + " (markup in the summary changes what it says)");
  }
  return out;
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
  const std::string line = "- " + std::string(cue->second) + "[[" + std::string(target) + "]]";
  ENGRAM_ASSIGN_OR_RETURN(Page probe, ParsePage(path, line + "\n"));
  // A typed link line is also read as a fact of its type; the link itself must be the one asked for, alone.
  std::vector<PageFact> facts = probe.facts;
  if (facts.size() > 1) facts.resize(1);
  ENGRAM_RETURN_IF_ERROR(ReadsBackAs(path, line, facts, {{std::string(target), std::string(type)}}));
  return AppendToCompiledTruth(content, page, line + "\n");
}

Result<std::string> AddFact(std::string_view path, std::string_view content, std::string_view predicate,
                            std::string_view value, std::string_view valid_from, std::string_view valid_until,
                            std::string_view note) {
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
  if (!note.empty()) {
    ENGRAM_RETURN_IF_ERROR(CheckOneLine("fact note", note, 120));
    if (note.find("--") != std::string_view::npos || note.find('>') != std::string_view::npos) {
      return Status::InvalidArgument("a fact note cannot hold '--' or '>'");
    }
    line += " <!-- " + std::string(note) + " -->";
  }
  ENGRAM_ASSIGN_OR_RETURN(Page page, ParsePage(path, content));
  // The line must read back as the fact asked for (a value ending in "(…)" would not), and as nothing more.
  ENGRAM_ASSIGN_OR_RETURN(Page probe, ParsePage(path, line + "\n"));
  if (probe.facts.empty()) {
    return Status::InvalidArgument("'" + std::string(predicate) + ": " + std::string(value) +
                                   "' does not read back as a fact (a text value is read only for predicates "
                                   "such as role, works_at, location, status, born; any predicate takes a [[link]])");
  }
  {
    // What was asked: the predicate as the parser names it, the value as written (a whole [[link]] is an entity).
    PageFact want = probe.facts.front();
    const bool link = value.size() > 4 && value.substr(0, 2) == "[[" && value.substr(value.size() - 2) == "]]" &&
                      value.find("[[", 2) == std::string_view::npos;
    std::vector<std::pair<std::string, std::string>> links;
    if (link) {
      std::string target(value.substr(2, value.size() - 4));
      if (const size_t bar = target.find('|'); bar != std::string::npos) target.resize(bar);
      if (const size_t hash = target.find('#'); hash != std::string::npos) target.resize(hash);
      if (!want.value_is_link || SlugFromPath(want.value) != SlugFromPath(target)) {
        return Status::InvalidArgument("the fact value '" + std::string(value) + "' does not read back as a link to " +
                                       target);
      }
      if (!probe.links.empty()) links.emplace_back(target, probe.links.front().type);
    } else {
      want.value = std::string(value);
      want.value_is_link = false;
    }
    want.subject.clear();
    want.valid_from = from;
    want.valid_until = until;
    ENGRAM_RETURN_IF_ERROR(ReadsBackAs(path, line, {want}, links));
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
