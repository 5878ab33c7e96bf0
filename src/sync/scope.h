// Which files of a folder or repository are pages (the default scope).
// Configurable include/exclude folders will extend this.
#pragma once

#include <string>
#include <string_view>

namespace engram::sync {

// True when a source-relative path is a page: a .md / .markdown file, in no
// hidden folder (".git", ".engram", ".obsidian", ".trash"…) and no
// node_modules (whole path components), and not one of the files that
// describe a vault rather than hold knowledge (README.md, index.md, log.md,
// RESOLVER.md, schema.md). *why says why not.
bool InScope(std::string_view path, std::string* why = nullptr);

// Folder names never descended into (hidden folders and node_modules).
bool IsIgnoredDirectory(std::string_view name);

}  // namespace engram::sync
