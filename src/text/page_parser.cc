#include "text/page_parser.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "common/utf8.h"
#include "text/canvas.h"
#include "text/note_date.h"
#include "text/page_facts.h"
#include "text/page_links.h"
#include "text/slug.h"

namespace engram::text {

namespace {

using Json = nlohmann::json;

struct Line {
  std::string_view text;  // without the line break (and without a trailing '\r')
  int number;             // 1-based
};

std::vector<Line> SplitLines(std::string_view s, int first_number) {
  std::vector<Line> lines;
  size_t start = 0;
  int n = first_number;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string_view::npos) end = s.size();
    std::string_view line = s.substr(start, end - start);
    // CRLF line ends, and stray carriage returns before them, are not text.
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({line, n++});
    start = end + 1;
  }
  return lines;
}

bool IsFence(std::string_view line) {
  std::string_view t = common::TrimSpace(line);
  return t.substr(0, 3) == "```" || t.substr(0, 3) == "~~~";
}

// True when text (after a UTF-8 BOM) starts with the frontmatter fence: a
// first line that is "---", optionally followed by spaces.
bool OpensFrontmatter(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  if (text.substr(0, 3) != "---") return false;
  std::string_view first = text.substr(0, text.find('\n'));
  return common::TrimSpace(first) == "---";
}

// Limits on a page's frontmatter, enforced before yaml-cpp (which recurses
// per nesting level) sees it: a hostile or damaged note costs a warning,
// never the stack. Aliases can make a small text expand exponentially
// ("billion laughs"), so the conversion also counts the nodes it visits.
constexpr size_t kMaxFrontmatterBytes = 256 * 1024;
constexpr int kMaxFrontmatterDepth = 32;
constexpr size_t kMaxFrontmatterNodes = 100000;

struct FrontmatterLimit {
  std::string what;
};

// The deepest flow nesting ([ and {) of a YAML text, quotes and comments
// skipped, stopping early once past limit.
int FlowDepth(std::string_view yaml, int limit) {
  int depth = 0, deepest = 0;
  for (size_t i = 0; i < yaml.size() && deepest <= limit; ++i) {
    const char c = yaml[i];
    if (c == '"' || c == '\'') {
      for (++i; i < yaml.size() && yaml[i] != c && yaml[i] != '\n'; ++i) {
        if (c == '"' && yaml[i] == '\\') ++i;
      }
    } else if (c == '#' && (i == 0 || yaml[i - 1] == ' ' || yaml[i - 1] == '\t' || yaml[i - 1] == '\n')) {
      while (i < yaml.size() && yaml[i] != '\n') ++i;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// A scalar as yaml-cpp decoded it, made UTF-8. yaml-cpp 0.7 decodes the YAML
// escapes "\N" (U+0085) and "\_" (U+00A0) to the single bytes 0x85 and 0xA0
// rather than their UTF-8 (its "\L", "\P", "\xNN" and "\uNNNN" are right).
// The frontmatter text was valid UTF-8, so a lone byte here can only come
// from one of those escapes; any other invalid byte becomes U+FFFD, so no
// later JSON dump of a page field can throw (the Obsidian Help vault's
// Romanian and Bengali pages use "\_").
std::string Utf8Scalar(const std::string& s) {
  if (common::IsValidUtf8(s)) return s;
  std::string out;
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size();) {
    const size_t at = i;
    const char32_t c = common::DecodeUtf8(s, &i);
    if (c == 0xFFFD && i - at == 1) {
      const unsigned char b = static_cast<unsigned char>(s[at]);
      common::AppendUtf8(b == 0x85 || b == 0xA0 ? static_cast<char32_t>(b) : 0xFFFD, &out);
    } else {
      out.append(s, at, i - at);
    }
  }
  return out;
}

Json YamlToJson(const YAML::Node& node, int depth, size_t* nodes) {
  if (++*nodes > kMaxFrontmatterNodes) {
    throw FrontmatterLimit{"more than " + std::to_string(kMaxFrontmatterNodes) + " values (aliases expanding?)"};
  }
  if (depth > kMaxFrontmatterDepth) {
    throw FrontmatterLimit{"nested deeper than " + std::to_string(kMaxFrontmatterDepth) + " levels"};
  }
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      Json obj = Json::object();
      for (const auto& kv : node) {
        obj[Utf8Scalar(kv.first.as<std::string>())] = YamlToJson(kv.second, depth + 1, nodes);
      }
      return obj;
    }
    case YAML::NodeType::Sequence: {
      Json arr = Json::array();
      for (const auto& item : node) arr.push_back(YamlToJson(item, depth + 1, nodes));
      return arr;
    }
    case YAML::NodeType::Scalar: {
      const std::string s = Utf8Scalar(node.Scalar());
      if (node.Tag() == "?") {  // plain (unquoted) scalar: keep YAML's typing
        if (s == "true" || s == "True" || s == "TRUE") return true;
        if (s == "false" || s == "False" || s == "FALSE") return false;
        if (s == "null" || s == "~") return nullptr;
        try {
          size_t used = 0;
          long long v = std::stoll(s, &used);
          if (used == s.size()) return v;
        } catch (...) {
        }
      }
      return s;
    }
    default:
      return nullptr;
  }
}

// A string or list of strings; a single string is split on commas.
std::vector<std::string> StringList(const Json& v, bool split_commas) {
  std::vector<std::string> out;
  auto add = [&](std::string_view s) {
    std::string_view t = common::TrimSpace(s);
    if (!t.empty() && std::find(out.begin(), out.end(), t) == out.end()) out.emplace_back(t);
  };
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (!split_commas) {
      add(s);
    } else {
      size_t start = 0;
      while (start <= s.size()) {
        // Both ',' and the full-width '，' (three bytes) separate items.
        size_t comma = s.find(',', start);
        size_t wide = s.find("，", start);
        size_t end = std::min(comma, wide);
        if (end == std::string::npos) end = s.size();
        add(std::string_view(s).substr(start, end - start));
        start = end + (end == wide && wide != std::string::npos ? 3 : 1);
      }
    }
  } else if (v.is_array()) {
    for (const auto& item : v) {
      if (item.is_string()) add(item.get_ref<const std::string&>());
      else if (item.is_number_integer()) add(std::to_string(item.get<long long>()));
    }
  } else if (v.is_number_integer()) {
    add(std::to_string(v.get<long long>()));
  }
  return out;
}

// "- **2026-04-07** | Met at the summit [Source: notes]" -> entry.
bool ParseTimelineLine(std::string_view line, int number, TimelineEntry* entry) {
  std::string_view t = common::TrimSpace(line);
  if (t.size() >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && t[1] == ' ') t = common::TrimSpace(t.substr(2));
  bool bold = false;
  if (t.substr(0, 2) == "**") {
    bold = true;
    t.remove_prefix(2);
  }
  size_t used = 0;
  std::string date = ParseLeadingDate(t, &used);
  if (date.empty()) return false;
  t.remove_prefix(used);
  if (bold) {
    if (t.substr(0, 2) != "**") return false;
    t.remove_prefix(2);
  }
  t = common::TrimSpace(t);
  static constexpr std::array<std::string_view, 7> kSeps = {"|", "：", ":", "—", "–", "-", "·"};
  for (std::string_view sep : kSeps) {
    if (t.substr(0, sep.size()) == sep) {
      t = common::TrimSpace(t.substr(sep.size()));
      break;
    }
  }
  std::string summary(t);
  std::string source;
  static constexpr std::array<std::string_view, 4> kSourceOpen = {"[Source:", "[source:", "[来源：", "[来源:"};
  for (std::string_view open : kSourceOpen) {
    size_t at = summary.rfind(open);
    if (at == std::string::npos) continue;
    // The bracket that closes this one: a source may itself be a wiki link,
    // "[Source: [[meetings/kickoff]]]".
    size_t close = std::string::npos;
    int depth = 0;
    for (size_t i = at; i < summary.size(); ++i) {
      if (summary[i] == '[') {
        ++depth;
      } else if (summary[i] == ']' && --depth == 0) {
        close = i;
        break;
      }
    }
    if (close == std::string::npos) continue;
    source = std::string(common::TrimSpace(std::string_view(summary).substr(at + open.size(), close - at - open.size())));
    std::string before(common::TrimSpace(std::string_view(summary).substr(0, at)));
    const std::string_view after = common::TrimSpace(std::string_view(summary).substr(close + 1));
    if (!before.empty() && !after.empty()) before.push_back(' ');
    summary = before.append(after);
    break;
  }
  summary = std::string(common::TrimSpace(summary));
  if (summary.empty()) return false;
  *entry = {std::move(date), std::move(summary), std::move(source), number};
  return true;
}

// Joins lines [begin, end) after trimming blank lines at both ends; sets
// *first_line to the first kept line's number.
std::string JoinTrimmed(const std::vector<Line>& lines, size_t begin, size_t end, int* first_line) {
  while (begin < end && common::TrimSpace(lines[begin].text).empty()) ++begin;
  while (end > begin && common::TrimSpace(lines[end - 1].text).empty()) --end;
  *first_line = begin < end ? lines[begin].number : 0;
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    out.append(lines[i].text);
    if (i + 1 < end) out.push_back('\n');
  }
  return out;
}

}  // namespace

std::string PlainTitle(std::string_view md) {
  std::string out;
  size_t i = 0;
  while (i < md.size()) {
    if (md.compare(i, 2, "[[") == 0) {
      size_t end = md.find("]]", i + 2);
      if (end != std::string_view::npos) {
        std::string_view inner = md.substr(i + 2, end - i - 2);
        if (size_t bar = inner.find('|'); bar != std::string_view::npos) {
          inner = inner.substr(bar + 1);
        } else if (size_t hash = inner.find('#'); hash != std::string_view::npos && hash > 0 &&
                                                   hash + 1 < inner.size()) {
          inner = inner.substr(0, hash);
        }
        out += PlainTitle(inner);
        i = end + 2;
        continue;
      }
    }
    const bool image = md[i] == '!' && i + 1 < md.size() && md[i + 1] == '[';
    if (md[i] == '[' || image) {
      const size_t open = image ? i + 1 : i;
      size_t close = md.find("](", open + 1);
      size_t end = close == std::string_view::npos ? close : md.find(')', close + 2);
      if (end != std::string_view::npos && md.substr(open + 1, close - open - 1).find(']') == std::string_view::npos) {
        out += PlainTitle(md.substr(open + 1, close - open - 1));
        i = end + 1;
        continue;
      }
    }
    if (md[i] == '`') {
      size_t run = md.find_first_not_of('`', i);
      if (run == std::string_view::npos) break;
      const std::string_view fence = md.substr(i, run - i);
      size_t end = md.find(fence, run);
      if (end != std::string_view::npos) {
        out.append(common::TrimSpace(md.substr(run, end - run)));
        i = end + fence.size();
        continue;
      }
      i = run;  // an unclosed run of backticks is no code span: drop it
      continue;
    }
    out.push_back(md[i]);
    ++i;
  }
  return std::string(common::TrimSpace(out));
}

namespace {

// The frontmatter's fields as JSON, from its YAML text; a damaged or hostile
// frontmatter costs a warning and yields no fields (or those read before it).
Json ParseFrontmatterYaml(const std::string& raw, std::vector<std::string>* warnings) {
  Json fm = Json::object();
  try {
    if (raw.size() > kMaxFrontmatterBytes) {
      throw FrontmatterLimit{std::to_string(raw.size()) + " bytes, over the limit of " +
                             std::to_string(kMaxFrontmatterBytes)};
    }
    if (FlowDepth(raw, kMaxFrontmatterDepth) > kMaxFrontmatterDepth) {
      throw FrontmatterLimit{"nested deeper than " + std::to_string(kMaxFrontmatterDepth) + " levels"};
    }
    YAML::Node node = YAML::Load(raw);
    size_t nodes = 0;
    if (node.IsMap()) {
      fm = YamlToJson(node, 0, &nodes);
    } else if (!node.IsNull()) {
      warnings->push_back("frontmatter: expected a mapping of fields, found a " +
                          std::string(node.IsSequence() ? "list" : "scalar") + "; fields ignored");
    }
  } catch (const YAML::Exception& e) {
    warnings->push_back("frontmatter: invalid YAML at line " + std::to_string(e.mark.line + 2) + ": " + e.msg +
                        "; page indexed from its body");
  } catch (const FrontmatterLimit& limit) {
    fm = Json::object();
    warnings->push_back("frontmatter: " + limit.what + "; fields ignored, page indexed from its body");
  }
  return fm;
}

// Takes the frontmatter off the front of *body (BOM already removed): sets
// page->frontmatter_raw and has_frontmatter, moves *body past the closing
// fence and *body_first_line to the body's first line, and returns the fields.
Json ReadFrontmatter(std::string_view* body, int* body_first_line, Page* page) {
  if (!OpensFrontmatter(*body)) return Json::object();
  std::vector<Line> head = SplitLines(*body, 1);
  size_t close = 0;
  for (size_t i = 1; i < head.size(); ++i) {
    std::string_view t = head[i].text;
    if (t == "---" || t == "...") {
      close = i;
      break;
    }
  }
  if (close == 0) {
    page->warnings.push_back("frontmatter: opening '---' on line 1 is never closed; read as body");
    return Json::object();
  }
  size_t fm_begin = static_cast<size_t>(head[1].text.data() - body->data());
  size_t fm_end = static_cast<size_t>(head[close].text.data() - body->data());
  page->frontmatter_raw = std::string(body->substr(fm_begin, fm_end - fm_begin));
  page->has_frontmatter = true;
  size_t after = fm_end + head[close].text.size();
  if (after < body->size() && (*body)[after] == '\r') ++after;
  if (after < body->size() && (*body)[after] == '\n') ++after;
  *body_first_line = head[close].number + 1;
  *body = body->substr(after);
  return ParseFrontmatterYaml(page->frontmatter_raw, &page->warnings);
}

// Splits the body into compiled truth and timeline at the first separator
// outside code; returns the separator's index in lines (lines.size() without one).
size_t SplitBody(const std::vector<Line>& lines, int body_first_line, Page* page) {
  size_t sep = lines.size();
  bool in_code = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsFence(lines[i].text)) in_code = !in_code;
    if (!in_code && IsTimelineSeparator(lines[i].text)) {
      sep = i;
      break;
    }
  }
  page->compiled_truth = JoinTrimmed(lines, 0, sep, &page->compiled_truth_line);
  if (page->compiled_truth_line == 0) page->compiled_truth_line = body_first_line;
  if (sep < lines.size()) {
    page->timeline_separator = std::string(common::TrimSpace(lines[sep].text));
    page->timeline_separator_line = lines[sep].number;
    page->timeline = JoinTrimmed(lines, sep + 1, lines.size(), &page->timeline_line);
  }
  return sep;
}

// The file name without folders and without ".md", trimmed.
std::string FileNameOf(std::string_view path) {
  std::string_view name = path;
  if (size_t slash = name.rfind('/'); slash != std::string_view::npos) name = name.substr(slash + 1);
  if (name.size() > 3 && common::AsciiLower(name.substr(name.size() - 3)) == ".md") name.remove_suffix(3);
  return std::string(common::TrimSpace(name));
}

// The plain text of the first "# " heading outside code, or "".
std::string FirstHeading(const std::vector<Line>& lines) {
  bool in_code = false;
  for (const Line& l : lines) {
    if (IsFence(l.text)) in_code = !in_code;
    if (!in_code && l.text.size() > 2 && l.text[0] == '#' && (l.text[1] == ' ' || l.text[1] == '\t')) {
      std::string_view h = common::TrimSpace(l.text.substr(2));
      // A closing sequence of '#' after a space is not part of the heading.
      size_t hashes = h.find_last_not_of('#');
      if (hashes != std::string_view::npos && hashes + 1 < h.size() && (h[hashes] == ' ' || h[hashes] == '\t')) {
        h = common::TrimSpace(h.substr(0, hashes));
      }
      return PlainTitle(h);
    }
  }
  return "";
}

// Slug, title, type and aliases, from the frontmatter, the path and the body.
void ReadNames(std::string_view path, const Json& fm, const std::vector<Line>& lines, const ParseOptions& options,
               Page* page) {
  std::string fm_slug = fm.contains("slug") && fm["slug"].is_string() ? fm["slug"].get<std::string>() : "";
  page->slug = fm_slug.empty() ? SlugFromPath(path) : SlugFromPath(fm_slug);
  if (page->slug.empty()) page->slug = SlugFromPath(path);

  const std::string file_name = FileNameOf(path);
  const std::string heading = FirstHeading(lines);
  if (fm.contains("title") && fm["title"].is_string()) page->title = PlainTitle(fm["title"].get<std::string>());
  if (page->title.empty() && options.title == TitleSource::kHeading) page->title = heading;
  if (page->title.empty()) page->title = file_name;
  if (fm.contains("type") && fm["type"].is_string() && !common::TrimSpace(fm["type"].get<std::string>()).empty()) {
    page->type = common::AsciiLower(common::TrimSpace(fm["type"].get<std::string>()));
  } else {
    page->type = TypeFromSlug(page->slug);
    if (page->type.empty()) page->type = "note";
  }
  if (fm.contains("aliases")) page->aliases = StringList(fm["aliases"], false);
  if (fm.contains("alias")) {
    for (auto& a : StringList(fm["alias"], false)) page->aliases.push_back(std::move(a));
  }
  // The file name and the first heading are names of the page too.
  for (const std::string* name : {&file_name, &heading}) {
    if (!name->empty() && *name != page->title &&
        std::find(page->aliases.begin(), page->aliases.end(), *name) == page->aliases.end()) {
      page->aliases.push_back(*name);
    }
  }
}

void ReadVisibility(const Json& fm, Page* page) {
  if (fm.contains("visibility") && fm["visibility"].is_string()) {
    page->is_private = common::AsciiLower(common::TrimSpace(fm["visibility"].get<std::string>())) == "private";
  }
  if (fm.contains("private") && fm["private"].is_boolean() && fm["private"].get<bool>()) {
    page->is_private = true;
  }
}

// Links and tags: frontmatter tags, body lines outside code, then
// frontmatter fields whose values are links.
void ReadLinksAndTags(std::string_view path, const Json& fm, const std::vector<Line>& lines, Page* page) {
  PageRefCollector refs(path);
  if (fm.contains("tags")) {
    for (const std::string& tag : StringList(fm["tags"], true)) refs.AddFrontmatterTag(tag);
  }
  bool in_code = false;
  for (const Line& l : lines) {
    if (IsFence(l.text)) {
      in_code = !in_code;
      continue;
    }
    if (!in_code) refs.ScanLine(l.text);
  }
  for (const auto& [key, value] : fm.items()) {
    if (value.is_string()) {
      refs.AddFieldValue(key, value.get_ref<const std::string&>());
    } else if (value.is_array()) {
      for (const auto& item : value) {
        if (item.is_string()) refs.AddFieldValue(key, item.get_ref<const std::string&>());
        // Unquoted, "key: [[X]]" is YAML for a list in a list: still the link it looks like.
        if (item.is_array() && item.size() == 1 && item[0].is_string()) {
          refs.AddFieldValue(key, "[[" + item[0].get<std::string>() + "]]");
        }
      }
    }
  }
  page->links = refs.TakeLinks();
  page->tags = refs.TakeTags();
}

// The dated entries of the timeline: lines after the separator, outside code.
void ReadTimelineEntries(const std::vector<Line>& lines, size_t sep, Page* page) {
  if (sep >= lines.size()) return;
  bool in_code = false;
  for (size_t i = sep + 1; i < lines.size(); ++i) {
    if (IsFence(lines[i].text)) {
      in_code = !in_code;
      continue;
    }
    TimelineEntry entry;
    if (!in_code && ParseTimelineLine(lines[i].text, lines[i].number, &entry)) {
      page->timeline_entries.push_back(std::move(entry));
    }
  }
}

}  // namespace

Result<Page> ParsePage(std::string_view path, std::string_view content, const ParseOptions& options) {
  if (IsCanvasPath(path)) return ParseCanvasPage(path, content);
  if (size_t bad = common::FindInvalidUtf8(content); bad != std::string_view::npos) {
    return Status::InvalidArgument(std::string(path) + ": not valid UTF-8 at byte " + std::to_string(bad));
  }
  if (size_t nul = content.find('\0'); nul != std::string_view::npos) {
    return Status::InvalidArgument(std::string(path) + ": binary content (NUL byte at " +
                                   std::to_string(nul) + ")");
  }
  Page page;
  page.path = std::string(path);
  std::string_view body = content;
  if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);  // UTF-8 BOM
  int body_first_line = 1;
  const Json fm = ReadFrontmatter(&body, &body_first_line, &page);
  // yaml-cpp may decode escapes into bytes that are not UTF-8: never let them throw.
  page.frontmatter_json = fm.dump(-1, ' ', false, Json::error_handler_t::replace);

  std::vector<Line> lines = SplitLines(body, body_first_line);
  const size_t sep = SplitBody(lines, body_first_line, &page);
  ReadNames(path, fm, lines, options, &page);
  ReadVisibility(fm, &page);
  ReadNoteDates(fm, &page);
  ReadLinksAndTags(path, fm, lines, &page);
  ReadTimelineEntries(lines, sep, &page);
  ReadPageFacts(fm, &page);
  return page;
}

std::string SerializePage(const Page& page) {
  std::string out;
  if (page.has_frontmatter) {
    out += "---\n";
    out += page.frontmatter_raw;
    if (!page.frontmatter_raw.empty() && page.frontmatter_raw.back() != '\n') out.push_back('\n');
    out += "---\n\n";
  }
  if (!page.compiled_truth.empty()) {
    out += page.compiled_truth;
    out.push_back('\n');
  }
  // Without frontmatter, text that starts with a "---" rule would read back
  // as frontmatter, and a leading byte-order mark would be dropped as one: a
  // leading blank line keeps both as body text.
  if (!page.has_frontmatter && (OpensFrontmatter(out) || out.compare(0, 3, "\xEF\xBB\xBF") == 0)) {
    out.insert(0, "\n");
  }
  if (!page.timeline_separator.empty()) {
    if (!page.compiled_truth.empty()) out.push_back('\n');
    out += page.timeline_separator;
    out += "\n";
    if (!page.timeline.empty()) {
      out.push_back('\n');
      out += page.timeline;
      out.push_back('\n');
    }
  }
  return out;
}

// "<!-- timeline -->", "--- timeline ---", "## Timeline", "## History", "## 时间线"…
bool IsTimelineSeparator(std::string_view line) {
  std::string_view trimmed = common::TrimSpace(line);
  if (trimmed.empty() || (trimmed[0] != '<' && trimmed[0] != '-' && trimmed[0] != '#')) return false;
  std::string t = common::AsciiLower(trimmed);
  auto squash = [](std::string s) {
    s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
    return s;
  };
  std::string sq = squash(t);
  if (sq == "<!--timeline-->" || sq == "---timeline---") return true;
  if (t.size() > 2 && t[0] == '#') {
    size_t level = t.find_first_not_of('#');
    if (level == std::string::npos || level > 3 || t[level] != ' ') return false;
    std::string_view heading = common::TrimSpace(std::string_view(t).substr(level));
    static constexpr std::array<std::string_view, 6> kHeadings = {
        "timeline", "history", "时间线", "时间轴", "历史", "大事记"};
    return std::find(kHeadings.begin(), kHeadings.end(), heading) != kHeadings.end();
  }
  return false;
}

std::vector<std::string> FrontmatterStrings(std::string_view frontmatter_json,
                                            std::initializer_list<std::string_view> keys) {
  std::vector<std::string> out;
  const Json fm = Json::parse(frontmatter_json, nullptr, false);
  if (!fm.is_object()) return out;
  for (std::string_view key : keys) {
    auto it = fm.find(std::string(key));
    if (it == fm.end()) continue;
    if (it->is_string()) out.push_back(it->get<std::string>());
    for (const Json& x : it->is_array() ? *it : Json::array()) {
      if (x.is_string()) out.push_back(x.get<std::string>());
    }
  }
  return out;
}

}  // namespace engram::text
