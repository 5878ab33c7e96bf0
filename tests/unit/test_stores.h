// Helpers for the tests that write pages into a fresh SQLite store.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "engram/engine.h"
#include "test_support.h"

namespace engram::testing {

// The page the indexer would write for `content` at `path`; a parse failure fails the test.
PageWrite Prepare(const std::string& path, const std::string& content);

// A new store at `db` (or `dir`/engram.db); a failure to open fails the test and returns null.
std::unique_ptr<Engine> OpenFresh(const std::filesystem::path& db);
std::unique_ptr<Engine> OpenFresh(const TempDir& dir);

}  // namespace engram::testing
