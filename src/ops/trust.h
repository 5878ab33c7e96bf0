// The trust boundary (MISSION.md §1): what a remote caller (an agent over
// MCP or HTTP) may name. Local callers own the filesystem and skip these
// checks; remote ones go through them before anything touches a file.
#pragma once

#include <filesystem>
#include <string_view>

#include "engram/status.h"

namespace engram::ops {

// A slug or page path from a remote caller. Besides text::ValidateSlugInput
// (not empty, at most 255 bytes, valid UTF-8, relative, no backslash, no
// control or NUL character, no empty, "." or ".." component) every
// character must be a letter or digit of any script, or one of "-_./", and
// no component may start with "." (.git, .engram and other hidden folders
// are not pages). So look-alikes of "." and "/" (fullwidth, one-dot leader,
// division slash…), zero-width and bidirectional controls, "%" (an encoded
// path) and spaces are refused. InvalidArgument naming the problem.
Status CheckRemoteSlug(std::string_view slug);

// root / relative for a remote caller, after checking it stays inside the
// brain: root is resolved with realpath; a symlinked parent must resolve
// inside it; the final component must not be a symlink (even one pointing
// inside). relative must already have passed CheckRemoteSlug.
// PermissionDenied naming the component.
Result<std::filesystem::path> ResolveInsideRoot(const std::filesystem::path& root, std::string_view relative);

}  // namespace engram::ops
