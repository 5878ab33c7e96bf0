#include "text/slug.h"

#include <array>
#include <utility>

#include "common/hash.h"
#include "common/utf8.h"
#include "text/canvas.h"

namespace engram::text {

using common::DecodeUtf8;

namespace {

bool IsNameSeparator(char32_t cp) { return cp == ' ' || cp == '\t' || cp == '-' || cp == 0x3000; }

// One path component. The readable part keeps letters, digits, '.' and '_'
// (lower-cased, NFC) and writes every run of separators between words as one
// '-'. That loses nothing a name's identity rests on: names with the same
// words, whatever their case, Unicode form and separators, are one name (as
// Obsidian links and case-insensitive file systems treat them). Anything
// else the readable part drops — punctuation ("C++", "C#", "Q&A"), symbols,
// a leading or trailing dot — is kept by a disambiguator: "--" and 8 hex
// digits of the SHA-256 of the component's skeleton (its folded text with
// separator runs as one space). A readable part never holds "--", so a
// suffixed slug never equals a plain one.
std::string SlugComponent(std::string_view comp) {
  std::string nfc = common::ToLower(common::NormalizeNfc(comp));
  std::string out;
  std::string skeleton;
  bool pending_dash = false;   // a separator since the last kept character
  bool pending_space = false;  // a separator since the last character of any kind
  bool lossy = false;
  size_t i = 0;
  while (i < nfc.size()) {
    size_t start = i;
    char32_t cp = DecodeUtf8(nfc, &i);
    if (IsNameSeparator(cp)) {
      pending_dash = pending_space = true;
      continue;
    }
    if (pending_space && !skeleton.empty()) skeleton.push_back(' ');
    pending_space = false;
    skeleton.append(nfc, start, i - start);
    if (common::IsWordChar(cp) || cp == '.' || cp == '_') {
      if (pending_dash && !out.empty()) out.push_back('-');
      pending_dash = false;
      out.append(nfc, start, i - start);
    } else {
      lossy = true;  // dropped without separating words: "Q&A" -> "qa"
    }
  }
  // Leading/trailing dots would make "." / ".." or hidden names; strip them.
  size_t b = out.find_first_not_of('.');
  if (b == std::string::npos) {
    out.clear();
  } else {
    size_t e = out.find_last_not_of('.');
    if (b != 0 || e + 1 != out.size()) lossy = true;
    out = out.substr(b, e - b + 1);
  }
  // "." and ".." are no names at all (and never reach here from a file).
  if (skeleton.find_first_not_of('.') == std::string::npos) return "";
  if (lossy) out += "--" + common::Sha256Hex(skeleton).substr(0, 8);
  return out;
}

}  // namespace

std::string SlugFromPath(std::string_view path) {
  std::string_view p = path;
  const bool canvas = IsCanvasPath(p);
  if (canvas) {
    p.remove_suffix(std::string_view(".canvas").size());
  } else if (p.size() >= 3) {
    std::string_view ext = p.substr(p.size() - 3);
    if ((ext[0] == '.') && (ext[1] == 'm' || ext[1] == 'M') && (ext[2] == 'd' || ext[2] == 'D')) {
      p.remove_suffix(3);
    }
  }
  std::string slug;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find_first_of("/\\", start);
    if (end == std::string_view::npos) end = p.size();
    std::string comp = SlugComponent(p.substr(start, end - start));
    if (!comp.empty()) {
      if (!slug.empty()) slug.push_back('/');
      slug += comp;
    } else if (canvas && end == p.size()) {
      return "";  // "a/ .canvas": the suffix alone would name no canvas, the folder a note
    }
    start = end + 1;
  }
  // The suffix keeps canvases apart from notes: a note's readable part never
  // holds "--", and its disambiguator is "--" and 8 hex digits, which
  // "canvas" is not.
  if (canvas) slug += kCanvasSlugSuffix;
  return slug;
}

Status ValidateSlugInput(std::string_view slug) {
  if (slug.empty()) return Status::InvalidArgument("slug is empty");
  if (slug.size() > 255) {
    return Status::InvalidArgument("slug is " + std::to_string(slug.size()) +
                                   " bytes, over the limit of 255");
  }
  if (!common::IsValidUtf8(slug)) return Status::InvalidArgument("slug is not valid UTF-8");
  if (slug.front() == '/') return Status::InvalidArgument("slug '" + std::string(slug) + "' is an absolute path");
  for (unsigned char c : slug) {
    if (c < 0x20 || c == 0x7F) return Status::InvalidArgument("slug contains a control or NUL character");
    if (c == '\\') return Status::InvalidArgument("slug '" + std::string(slug) + "' contains a backslash");
  }
  size_t start = 0;
  while (start <= slug.size()) {
    size_t end = slug.find('/', start);
    if (end == std::string_view::npos) end = slug.size();
    std::string_view comp = slug.substr(start, end - start);
    if (comp == "..") return Status::InvalidArgument("slug '" + std::string(slug) + "' contains '..'");
    if (comp.empty() || comp == ".") {
      return Status::InvalidArgument("slug '" + std::string(slug) + "' has an empty path component");
    }
    start = end + 1;
  }
  return Status::Ok();
}

std::string TypeFromSlug(std::string_view slug) {
  static const std::array<std::pair<std::string_view, std::string_view>, 18> kDirs = {{
      {"people", "person"}, {"person", "person"}, {"companies", "company"}, {"company", "company"},
      {"meetings", "meeting"}, {"meeting", "meeting"}, {"concepts", "concept"}, {"concept", "concept"},
      {"projects", "project"}, {"project", "project"}, {"ideas", "idea"}, {"idea", "idea"},
      {"sources", "source"}, {"media", "media"}, {"notes", "note"}, {"daily", "daily"},
      {"places", "place"}, {"events", "event"},
  }};
  size_t slash = slug.find('/');
  if (slash == std::string_view::npos) return "";
  std::string_view dir = slug.substr(0, slash);
  for (const auto& [d, t] : kDirs) {
    if (dir == d) return std::string(t);
  }
  return "";
}

}  // namespace engram::text
