// Small filesystem helpers that report failures as Status values.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "engram/status.h"

namespace engram::common {

// Reads a whole file. Files larger than max_bytes fail with InvalidArgument
// naming the size, so a caller can skip them with a reason.
Result<std::string> ReadFile(const std::filesystem::path& path,
                             uint64_t max_bytes = UINT64_MAX);

// Writes data to a temporary file beside path, flushes it, then renames it over
// path: readers see the old or the new content, never a mix.
Status WriteFileAtomic(const std::filesystem::path& path, const std::string& data);

// Current UTC time as "2026-04-07T09:30:00Z".
std::string NowIso8601();

// A time in seconds since the Unix epoch as UTC ISO 8601, like NowIso8601.
std::string Iso8601FromUnix(int64_t seconds);

// The file's last modification time in seconds since the Unix epoch
// (symbolic links followed). NotFound or IOError when it cannot be had.
Result<int64_t> ModifiedTime(const std::filesystem::path& path);

}  // namespace engram::common
