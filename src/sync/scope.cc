#include "sync/scope.h"

#include <algorithm>

#include "common/utf8.h"
#include "text/canvas.h"

namespace engram::sync {

namespace {

std::vector<std::string> Components(std::string_view path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) out.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// True when folder's components are the leading components of the path's folders.
bool Under(const std::vector<std::string>& folder, const std::vector<std::string>& path_parts) {
  if (folder.size() >= path_parts.size()) return false;  // the last part is the file name
  return std::equal(folder.begin(), folder.end(), path_parts.begin());
}

}  // namespace

const std::vector<std::string>& DefaultSkippedFiles() {
  static const std::vector<std::string> kFiles = {"README.md", "index.md", "log.md", "RESOLVER.md", "schema.md"};
  return kFiles;
}

std::string SkipKind(std::string_view reason) {
  auto has = [&](std::string_view what) { return reason.find(what) != std::string_view::npos; };
  if (has("(scope.")) return std::string(reason.substr(0, reason.find(')') + 1));
  if (has("not valid UTF-8")) return "not UTF-8";
  if (has("binary content")) return "binary (NUL bytes)";
  if (has("over the limit")) return "over import.max_file_bytes";
  if (has("symbolic link")) return "symbolic link";
  if (has("submodule")) return "submodule";
  if (has("is already used by")) return "slug used by another file";
  if (has("could not be prepared")) return "internal error";
  if (has("cannot be read") || has("could not be read")) return "unreadable";
  if (has("not a valid JSON Canvas file")) return "invalid canvas";
  return "other";
}

bool IsIgnoredDirectory(std::string_view name) {
  return name.empty() || name.front() == '.' || name == "node_modules";
}

Scope::Scope() {
  for (const auto& f : DefaultSkippedFiles()) skip_files_.push_back(common::AsciiLower(f));
}

Result<Scope> Scope::Make(std::vector<std::string> include, std::vector<std::string> exclude,
                          std::vector<std::string> skip_files) {
  Scope s;
  s.skip_files_.clear();
  auto folders = [](const std::vector<std::string>& in, const char* key,
                    std::vector<std::vector<std::string>>* out) -> Status {
    for (const std::string& f : in) {
      std::vector<std::string> parts = Components(f);
      if (parts.empty() || f.front() == '/' ||
          std::any_of(parts.begin(), parts.end(), [](const std::string& p) { return p == ".." || p == "."; })) {
        return Status::InvalidArgument(std::string("scope.") + key + ": '" + f +
                                       "' must be a folder path relative to the brain root");
      }
      out->push_back(std::move(parts));
    }
    return Status::Ok();
  };
  ENGRAM_RETURN_IF_ERROR(folders(include, "include", &s.include_));
  ENGRAM_RETURN_IF_ERROR(folders(exclude, "exclude", &s.exclude_));
  for (const std::string& f : skip_files) s.skip_files_.push_back(common::AsciiLower(f));
  return s;
}

bool Scope::Contains(std::string_view path, std::string* why) const {
  auto no = [&](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return false;
  };
  std::string lower = common::AsciiLower(path);
  bool markdown = (lower.size() > 3 && lower.compare(lower.size() - 3, 3, ".md") == 0) ||
                  (lower.size() > 9 && lower.compare(lower.size() - 9, 9, ".markdown") == 0);
  // Callers match this reason to leave non-notes out of their counts.
  if (!markdown && !text::IsCanvasPath(path)) return no("not a Markdown file");
  std::vector<std::string> parts = Components(path);
  if (parts.empty()) return no("empty path");
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (IsIgnoredDirectory(parts[i])) return no("in an excluded folder (" + parts[i] + ")");
  }
  if (parts.back().front() == '.') return no("a hidden file");
  for (const auto& folder : exclude_) {
    if (Under(folder, parts)) return no("in an excluded folder (scope.exclude)");
  }
  if (!include_.empty() && std::none_of(include_.begin(), include_.end(),
                                        [&](const auto& folder) { return Under(folder, parts); })) {
    return no("outside the included folders (scope.include)");
  }
  const std::string name = "**/" + common::AsciiLower(parts.back());
  for (const std::string& skip : skip_files_) {
    if (skip == lower || skip == name) return no("skipped by name (scope.skip_files)");
  }
  return true;
}

std::string Scope::Fingerprint() const {
  // Which kinds of file are pages is part of the scope: a brain synced
  // before canvases were pages walks every file once to find them.
  std::string fp = "pages:md,markdown,canvas;include:";
  for (const auto& f : include_) {
    for (const auto& p : f) fp += p + "/";
    fp += ";";
  }
  fp += "exclude:";
  for (const auto& f : exclude_) {
    for (const auto& p : f) fp += p + "/";
    fp += ";";
  }
  fp += "skip@root:";  // skip_files were names matched in every folder before
  for (const auto& f : skip_files_) fp += f + ";";
  return fp;
}

}  // namespace engram::sync
