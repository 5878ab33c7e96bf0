#include "sync/scope.h"

#include <algorithm>
#include <array>

namespace engram::sync {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

bool IsIgnoredDirectory(std::string_view name) {
  return name.empty() || name.front() == '.' || name == "node_modules";
}

bool InScope(std::string_view path, std::string* why) {
  auto no = [&](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return false;
  };
  std::string lower = Lower(path);
  bool markdown = (lower.size() > 3 && lower.compare(lower.size() - 3, 3, ".md") == 0) ||
                  (lower.size() > 9 && lower.compare(lower.size() - 9, 9, ".markdown") == 0);
  if (!markdown) return no("not a Markdown file");
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) break;
    std::string_view dir = path.substr(start, slash - start);
    if (IsIgnoredDirectory(dir)) return no("in an excluded folder (" + std::string(dir) + ")");
    start = slash + 1;
  }
  std::string name = Lower(path.substr(start));
  if (!name.empty() && name.front() == '.') return no("a hidden file");
  static constexpr std::array<std::string_view, 5> kSkipped = {"readme.md", "index.md", "log.md", "resolver.md",
                                                               "schema.md"};
  if (std::find(kSkipped.begin(), kSkipped.end(), name) != kSkipped.end()) {
    return no("describes the vault rather than holding a page (skipped by default)");
  }
  return true;
}

}  // namespace engram::sync
