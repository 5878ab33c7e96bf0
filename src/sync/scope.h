// Which files of a folder or repository are pages.
//
// Always excluded: files that are not .md / .markdown / .canvas (Obsidian
// canvases, read by text/canvas.h), hidden folders
// (".git", ".engram", ".obsidian", ".trash"…) and node_modules. Configurable
// ([scope] in config.toml): `include` folders (when non-empty, only files
// under one of them), `exclude` folders, and `skip_files`. Folders are paths
// from the root matched on whole components: excluding "04_Archive" excludes
// "04_Archive/x.md" but never "my04_Archive/x.md". A skip_files entry is a
// file path from the root, case-insensitive ("README.md" is the root's own,
// never "notes/README.md": in an Obsidian vault that is an ordinary note);
// "**/NAME" skips NAME in every folder.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::sync {

class Scope {
 public:
  // The default scope: everything, skipping the root's README.md, index.md,
  // log.md, RESOLVER.md and schema.md (files that describe the brain).
  Scope();
  // InvalidArgument for an absolute folder, "..", or an empty entry.
  static Result<Scope> Make(std::vector<std::string> include, std::vector<std::string> exclude,
                            std::vector<std::string> skip_files);

  // True when path (source-relative, '/'-separated) is a page; *why says why not.
  bool Contains(std::string_view path, std::string* why = nullptr) const;
  // Changes whenever the scope does: a sync that sees a new one walks everything.
  std::string Fingerprint() const;

 private:
  std::vector<std::vector<std::string>> include_, exclude_;
  std::vector<std::string> skip_files_;  // lower-case paths from the root, or "**/name"
};

// Folder names never descended into (hidden folders and node_modules).
bool IsIgnoredDirectory(std::string_view name);

// The default skipped files (at the root), as config.toml lists them.
const std::vector<std::string>& DefaultSkippedFiles();

// A short, stable name for why a file was skipped or failed, for counting
// ("skipped by name (scope.skip_files)", "not UTF-8", "over import.max_file_bytes"…).
std::string SkipKind(std::string_view reason);

}  // namespace engram::sync
