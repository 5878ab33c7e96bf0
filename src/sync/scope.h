// Which files of a folder or repository are pages.
//
// Always excluded: files that are not .md / .markdown, hidden folders
// (".git", ".engram", ".obsidian", ".trash"…) and node_modules. Configurable
// ([scope] in config.toml): `include` folders (when non-empty, only files
// under one of them), `exclude` folders, and `skip_files` names. Folders are
// paths from the root matched on whole components: excluding "04_Archive"
// excludes "04_Archive/x.md" but never "my04_Archive/x.md".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::sync {

class Scope {
 public:
  // The default scope: everything, skipping README.md, index.md, log.md,
  // RESOLVER.md and schema.md (files that describe a vault).
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
  std::vector<std::string> skip_files_;  // lower-case
};

// Folder names never descended into (hidden folders and node_modules).
bool IsIgnoredDirectory(std::string_view name);

// The default skipped file names, as config.toml lists them.
const std::vector<std::string>& DefaultSkippedFiles();

}  // namespace engram::sync
