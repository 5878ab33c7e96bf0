#include "text/page_links.h"

#include <algorithm>
#include <array>
#include <tuple>
#include <utility>

#include "common/utf8.h"
#include "text/canvas.h"
#include "text/slug.h"

namespace engram::text {

namespace {

bool StartsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Frontmatter keys and inline fields whose names say an established edge
// type; any other key types its links by its own name.
constexpr std::array<std::pair<std::string_view, std::string_view>, 44> kLinkFields = {{
    {"company", "works_at"}, {"companies", "works_at"}, {"employer", "works_at"},
    {"founder", "founded_by"}, {"founders", "founded_by"}, {"founded", "founded"},
    {"investors", "invested_by"}, {"investor", "invested_by"}, {"invested_in", "invested_in"},
    {"attendees", "attended_by"}, {"attended", "attended"}, {"people", "mentions"},
    {"related", "related"}, {"project", "part_of"}, {"projects", "part_of"},
    {"author", "authored_by"}, {"authors", "authored_by"}, {"see_also", "related"},
    // Names of fact fields (text/page_facts.h), in English and Chinese.
    {"position", "role"}, {"job_title", "role"}, {"职位", "role"}, {"职务", "role"}, {"角色", "role"},
    {"city", "location"}, {"based_in", "location"}, {"hq", "location"}, {"headquarters", "location"},
    {"地点", "location"}, {"所在地", "location"}, {"城市", "location"}, {"总部", "location"},
    {"birthday", "born"}, {"date_of_birth", "born"}, {"出生", "born"}, {"生日", "born"},
    {"manager", "reports_to"}, {"上级", "reports_to"}, {"公司", "works_at"}, {"雇主", "works_at"},
    {"创始人", "founded_by"}, {"投资方", "invested_by"}, {"投资人", "invested_by"}, {"状态", "status"},
    {"项目", "part_of"},
}};

// Frontmatter keys that are never links, whatever they hold.
constexpr std::array<std::string_view, 9> kNotLinkFields = {"tags",  "tag",  "aliases", "alias",     "cssclasses",
                                                            "title", "slug", "type",    "cssclass"};

}  // namespace

std::string FieldType(std::string_view key) {
  key = common::TrimSpace(key);
  while (key.size() >= 2 && (key.front() == '*' || key.front() == '_') && key.back() == key.front()) {
    key = common::TrimSpace(key.substr(1, key.size() - 2));
  }
  std::string type;
  for (char c : common::AsciiLower(key)) type.push_back(c == ' ' || c == '-' ? '_' : c);
  for (const auto& [field, mapped] : kLinkFields) {
    if (type == field) return std::string(mapped);
  }
  return type;
}

namespace {

// A Dataview field name: a few words, nothing that is markup.
bool IsFieldKey(std::string_view key) {
  key = common::TrimSpace(key);
  if (key.empty() || key.size() > 64) return false;
  return key.find_first_of("[]()`#|:<>!\"") == std::string_view::npos;
}

// Files Obsidian shows or embeds rather than reads as notes.
bool IsAttachment(std::string_view target) {
  std::string_view name = target.substr(target.rfind('/') == std::string_view::npos ? 0 : target.rfind('/') + 1);
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos) return false;
  // Not "canvas": a canvas is a page (text/canvas.h).
  static constexpr std::array<std::string_view, 45> kExtensions = {
      "png",  "jpg",  "jpeg", "gif",  "bmp",  "svg",  "webp", "avif", "heic", "tif",  "tiff", "ico",
      "mp3",  "wav",  "m4a",  "ogg",  "3gp",  "flac", "aac",  "opus", "mp4",  "webm", "ogv",  "mov",
      "mkv",  "avi",  "pdf",  "base", "excalidraw", "doc", "docx", "xls", "xlsx", "ppt", "pptx",
      "odt",  "ods",  "odp",  "csv",  "zip",  "epub", "txt",  "json", "html", "drawio"};
  const std::string ext = common::AsciiLower(name.substr(dot + 1));
  return std::find(kExtensions.begin(), kExtensions.end(), ext) != kExtensions.end();
}

// "https:", "mailto:", "obsidian:"…: a URL, not a file.
bool HasScheme(std::string_view t) {
  size_t colon = t.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  for (size_t i = 0; i < colon; ++i) {
    char c = t[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && ((c >= '0' && c <= '9') || c == '+' ||
                                                                             c == '.' || c == '-'));
    if (!ok) return false;
  }
  return true;
}

// Joins a link target to the page's folder and resolves "." / "..".
// Returns "" when the target climbs above the source root.
std::string ResolveRelative(std::string_view page_path, std::string_view target) {
  std::vector<std::string> parts;
  size_t slash = page_path.rfind('/');
  if (slash != std::string_view::npos) {
    std::string_view dir = page_path.substr(0, slash);
    size_t s = 0;
    while (s <= dir.size()) {
      size_t e = dir.find('/', s);
      if (e == std::string_view::npos) e = dir.size();
      if (e > s) parts.emplace_back(dir.substr(s, e - s));
      s = e + 1;
    }
  }
  size_t s = 0;
  while (s <= target.size()) {
    size_t e = target.find('/', s);
    if (e == std::string_view::npos) e = target.size();
    std::string_view comp = target.substr(s, e - s);
    if (comp == "..") {
      if (parts.empty()) return "";
      parts.pop_back();
    } else if (!comp.empty() && comp != ".") {
      parts.emplace_back(comp);
    }
    s = e + 1;
  }
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out.push_back('/');
    out += p;
  }
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 && HexValue(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  // A decoded byte sequence that is not UTF-8 is kept as written.
  return common::IsValidUtf8(out) ? out : std::string(s);
}

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

// The end of the bracket opened at text[open] ('[' or '('), nested brackets
// and backslash escapes respected; npos when it is never closed.
size_t MatchingClose(std::string_view text, size_t open) {
  const char o = text[open], c = o == '[' ? ']' : ')';
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == o) {
      ++depth;
    } else if (text[i] == c && --depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

// Dataview wants a space after "::" ("std::vector" is no field).
bool FieldValueFollows(std::string_view text, size_t sep) {
  return sep + 2 == text.size() || IsSpace(text[sep + 2]);
}

// "[key:: value]" or "(key:: value)" at text[i]: sets key, value and *end.
bool InlineField(std::string_view text, size_t i, std::string_view* key, std::string_view* value, size_t* end) {
  size_t close = MatchingClose(text, i);
  if (close == std::string_view::npos) return false;
  std::string_view inner = text.substr(i + 1, close - i - 1);
  size_t sep = inner.find("::");
  if (sep == std::string_view::npos || !IsFieldKey(inner.substr(0, sep)) || !FieldValueFollows(inner, sep)) {
    return false;
  }
  *key = inner.substr(0, sep);
  *value = inner.substr(sep + 2);
  *end = close + 1;
  return true;
}

}  // namespace

void PageRefCollector::AddLink(std::string target, bool markdown, std::string label, std::string type,
                               std::string_view context) {
  if (size_t hash = target.find('#'); hash != std::string::npos) target.resize(hash);
  std::string_view t = common::TrimSpace(target);
  if (t.empty() || HasScheme(t)) return;
  const bool attachment = IsAttachment(t);
  // A Markdown link reaches a page only through its file name.
  if (markdown && !attachment && !(t.size() > 3 && common::AsciiLower(t.substr(t.size() - 3)) == ".md") &&
      !IsCanvasPath(t)) {
    return;
  }
  std::string path(t);
  if (StartsWith(path, "./") || StartsWith(path, "../")) {
    path = ResolveRelative(page_path_, path);
    if (path.empty()) return;
  }
  while (!path.empty() && path.front() == '/') path.erase(0, 1);
  std::string stored = attachment ? path : SlugFromPath(path);
  if (stored.empty()) return;
  if (attachment) type = std::string(kAttachmentLinkType);
  if (!seen_links_.insert(stored + '\n' + type).second) return;
  std::string ctx(common::TrimSpace(context));
  if (ctx.size() > 240) {
    size_t cut = 240;
    while (cut > 0 && (static_cast<unsigned char>(ctx[cut]) & 0xC0) == 0x80) --cut;
    ctx.resize(cut);
  }
  links_.push_back({std::move(stored), std::string(common::TrimSpace(label)), std::move(type), std::move(ctx)});
}

void PageRefCollector::AddFile(std::string_view path, std::string_view context) {
  AddLink(std::string(path), true, "", std::string(kMentionsLinkType), context);
}

void PageRefCollector::AddTag(std::string tag) {
  if (tag.empty()) return;
  if (seen_tags_.insert(TagKey(tag)).second) tags_.push_back(std::move(tag));
}

void PageRefCollector::AddFrontmatterTag(std::string_view tag) {
  tag = common::TrimSpace(tag);
  while (!tag.empty() && tag.front() == '#') tag.remove_prefix(1);
  AddTag(std::string(common::TrimSpace(tag)));
}

void PageRefCollector::AddFieldValue(std::string_view key, std::string_view value) {
  const std::string lower = common::AsciiLower(common::TrimSpace(key));
  if (std::find(kNotLinkFields.begin(), kNotLinkFields.end(), lower) != kNotLinkFields.end()) return;
  if (value.find("[[") == std::string_view::npos) return;  // plain text names no page
  const std::string context = std::string(common::TrimSpace(key)) + ": " + std::string(value);
  const std::string type = FieldType(key);
  size_t i = 0;
  while ((i = value.find("[[", i)) != std::string_view::npos) {
    size_t end = value.find("]]", i + 2);
    if (end == std::string_view::npos) break;
    std::string_view inner = value.substr(i + 2, end - i - 2);
    size_t bar = inner.find('|');
    AddLink(std::string(inner.substr(0, bar)), false,
            bar == std::string_view::npos ? "" : std::string(inner.substr(bar + 1)), type, context);
    i = end + 2;
  }
}

void PageRefCollector::ScanLine(std::string_view line) {
  if (line.find_first_of("[#(:") == std::string_view::npos) return;  // nothing can start here
  // A whole-line Dataview field, "key:: value", after quote and list markers.
  std::string_view rest = line;
  for (bool more = true; more;) {
    more = false;
    std::string_view t = rest.substr(std::min(rest.size(), rest.find_first_not_of(" \t")));
    if (StartsWith(t, ">") || StartsWith(t, "- ") || StartsWith(t, "* ") || StartsWith(t, "+ ")) {
      t.remove_prefix(StartsWith(t, ">") ? 1 : 2);
      more = true;
    } else if (StartsWith(t, "[ ] ") || StartsWith(t, "[x] ") || StartsWith(t, "[X] ")) {
      t.remove_prefix(4);
      more = true;
    } else {
      size_t digits = t.find_first_not_of("0123456789");
      if (digits != std::string_view::npos && digits > 0 && t.substr(digits, 2) == ". ") {
        t.remove_prefix(digits + 2);
        more = true;
      }
    }
    rest = t;
  }
  if (size_t sep = rest.find("::");
      sep != std::string_view::npos && IsFieldKey(rest.substr(0, sep)) && FieldValueFollows(rest, sep)) {
    ScanText(rest.substr(sep + 2), FieldType(rest.substr(0, sep)), true, line);
    return;
  }
  ScanText(line, kMentionsLinkType, true, line);
}

void PageRefCollector::ScanText(std::string_view text, std::string_view type, bool tags, std::string_view context) {
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\\') {  // an escaped character is text
      i += 2;
      continue;
    }
    if (c == '`') {  // inline code: skip to the closing run of as many backticks
      size_t run = text.find_first_not_of('`', i);
      if (run == std::string_view::npos) break;
      const size_t n = run - i;
      size_t close = run;
      while ((close = text.find(std::string(n, '`'), close)) != std::string_view::npos) {
        if (close + n >= text.size() || text[close + n] != '`') break;
        close = text.find_first_not_of('`', close);
      }
      i = close == std::string_view::npos ? run : close + n;
      continue;
    }
    if (c == '[' && text.compare(i, 2, "[[") == 0) {
      size_t end = text.find("]]", i + 2);
      if (end == std::string_view::npos) {
        i += 2;
        continue;
      }
      std::string_view inner = text.substr(i + 2, end - i - 2);
      size_t bar = inner.find('|');
      AddLink(std::string(inner.substr(0, bar)), false,
              bar == std::string_view::npos ? "" : std::string(inner.substr(bar + 1)), std::string(type), context);
      i = end + 2;
      continue;
    }
    if (c == '[' || c == '(') {
      std::string_view key, value;
      size_t end = 0;
      if (InlineField(text, i, &key, &value, &end)) {
        ScanText(value, FieldType(key), tags, context);
        i = end;
        continue;
      }
    }
    if (c == '[') {
      // A Markdown link: the label's own closing bracket, then "(destination)".
      size_t close = MatchingClose(text, i);
      if (close != std::string_view::npos && close + 1 < text.size() && text[close + 1] == '(') {
        size_t open = close + 1;
        size_t k = text.find_first_not_of(" \t", open + 1);
        std::string_view dest;
        size_t end = std::string_view::npos;
        if (k != std::string_view::npos && text[k] == '<') {  // [t](<Note name.md>)
          size_t gt = text.find('>', k + 1);
          if (gt != std::string_view::npos) {
            dest = text.substr(k + 1, gt - k - 1);
            end = text.find(')', gt);
          }
        } else {
          end = MatchingClose(text, open);
          if (end != std::string_view::npos) {
            dest = common::TrimSpace(text.substr(open + 1, end - open - 1));
            // A title after the destination: [t](x.md "title").
            if (size_t sp = dest.find_first_of(" \t"); sp != std::string_view::npos) {
              std::string_view after = common::TrimSpace(dest.substr(sp));
              if (!after.empty() && (after.front() == '"' || after.front() == '\'' || after.front() == '(')) {
                dest = dest.substr(0, sp);
              }
            }
          }
        }
        if (end != std::string_view::npos) {
          AddLink(PercentDecode(dest), true, std::string(text.substr(i + 1, close - i - 1)), std::string(type),
                  context);
          i = end + 1;
          continue;
        }
      }
      ++i;  // not a link: "[ ] task", "[!tip]" — what follows is scanned on
      continue;
    }
    if (c == '#' && tags && (i == 0 || IsSpace(text[i - 1]))) {
      size_t j = i + 1;
      while (j < text.size()) {
        size_t next = j;
        char32_t cp = common::DecodeUtf8(text, &next);
        bool ok = cp < 0x80 ? (common::IsWordChar(cp) || cp == '_' || cp == '-' || cp == '/')
                            : common::IsWordChar(cp);
        if (!ok) break;
        j = next;
      }
      AddTag(NormalizeTag(text.substr(i, j - i)));
      i = std::max(j, i + 1);
      continue;
    }
    ++i;
  }
}

std::string NormalizeTag(std::string_view written) {
  std::string_view t = common::TrimSpace(written);
  if (!t.empty() && t.front() == '#') t.remove_prefix(1);
  while (!t.empty() && t.back() == '/') t.remove_suffix(1);
  if (t.empty() || t.front() == '/') return "";
  bool has_non_digit = false;
  size_t i = 0;
  while (i < t.size()) {
    char32_t cp = common::DecodeUtf8(t, &i);
    bool ascii_extra = cp == '_' || cp == '-' || cp == '/';
    if (!common::IsWordChar(cp) && !ascii_extra) return "";
    if (common::IsWordChar(cp) && !(cp >= '0' && cp <= '9')) has_non_digit = true;
  }
  return has_non_digit ? std::string(t) : "";
}

std::string TagKey(std::string_view tag) {
  std::string_view t = common::TrimSpace(tag);
  while (!t.empty() && t.front() == '#') t.remove_prefix(1);
  return common::ToLower(common::NormalizeNfc(t));
}

bool TagMatches(std::string_view tag, std::string_view wanted) {
  const std::string k = TagKey(tag), w = TagKey(wanted);
  return !w.empty() && (k == w || (k.size() > w.size() && StartsWith(k, w) && k[w.size()] == '/'));
}

std::string PathKey(std::string_view path) { return SlugFromPath(path); }

std::string FolderKey(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? "" : SlugFromPath(path.substr(0, slash));
}

std::string LinkName(std::string_view key) {
  size_t slash = key.rfind('/');
  return std::string(slash == std::string_view::npos ? key : key.substr(slash + 1));
}

std::optional<int64_t> ChooseByName(std::string_view target, std::string_view from_folder,
                                    const std::vector<LinkCandidate>& candidates) {
  const std::string name = LinkName(target);
  std::string suffix = "/";  // built by append: GCC 12 warns (-Wrestrict) on "/" + std::string(...)
  suffix.append(target);
  const LinkCandidate* best = nullptr;
  auto rank = [&](const LinkCandidate& c) {
    size_t slash = c.path_key.rfind('/');
    std::string_view folder = slash == std::string::npos ? "" : std::string_view(c.path_key).substr(0, slash);
    return std::make_tuple(folder == from_folder ? 0 : 1, c.path_key.size(), std::string_view(c.path_key));
  };
  for (const LinkCandidate& c : candidates) {
    if (LinkName(c.path_key) != name) continue;
    if (c.path_key != target && !EndsWith(c.path_key, suffix)) continue;
    if (best == nullptr || rank(c) < rank(*best)) best = &c;
  }
  if (best == nullptr) return std::nullopt;
  return best->id;
}

Result<std::optional<int64_t>> ResolveLinkTarget(const std::string& target, const std::string& from_folder,
                                                 const LinkLookup& lookup) {
  ENGRAM_ASSIGN_OR_RETURN(std::optional<int64_t> exact, lookup.by_path_key(target));
  if (exact) return exact;
  ENGRAM_ASSIGN_OR_RETURN(std::optional<int64_t> by_slug, lookup.by_slug(target));
  if (by_slug) return by_slug;
  if (!from_folder.empty()) {
    std::string relative = from_folder;  // built by append: GCC 12 warns (-Wrestrict) on a + "/" + b
    relative.append("/").append(target);
    ENGRAM_ASSIGN_OR_RETURN(std::optional<int64_t> found, lookup.by_path_key(relative));
    if (found) return found;
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<LinkCandidate> candidates, lookup.by_name(LinkName(target)));
  return ChooseByName(target, from_folder, candidates);
}

}  // namespace engram::text
