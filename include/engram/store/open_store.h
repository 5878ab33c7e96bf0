// Opening a store. The factory lives here, outside the contracts, so that
// engram/engine.h names no engine and adding one touches only this file's
// implementation (src/store/open_store.cc) and the engine's own folder.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "engram/engine.h"
#include "engram/status.h"

namespace engram {

// Opens (with options.create_if_missing, creates) the store a URI names:
//   sqlite:PATH   an SQLite database file; sqlite::memory: a private
//                 in-memory store that is gone when closed
//   postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?options] (or postgresql://)
//                 a PostgreSQL database (libpq's URL; options=-csearch_path=S
//                 keeps the brain in schema S)
// InvalidArgument for a URI without a known scheme (the message lists the
// known ones); NotFound for a missing database without create_if_missing;
// Corruption when the file is not a database or is another program's (such
// a file is never modified).
Result<std::unique_ptr<Engine>> OpenStore(std::string_view uri, const EngineOptions& options);

// What a message may show of a store URI: an SQLite file's path, or
// PostgreSQL's host:port/database (never a password).
std::string DescribeStore(std::string_view uri);

// OpenStore("sqlite:" + path).
Result<std::unique_ptr<Engine>> OpenSqliteStore(const std::filesystem::path& path, const EngineOptions& options);

}  // namespace engram
