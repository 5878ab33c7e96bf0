// The trust boundary (MISSION.md §1): what a remote caller (an agent over
// MCP or HTTP) may name. Local callers own the filesystem and skip these
// checks; remote ones go through them before anything touches a file.
#pragma once

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

}  // namespace engram::ops
