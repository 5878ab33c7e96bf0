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
// With ENGRAM_TEST_STORE=postgres it is a fresh schema of the test cluster instead (the
// conformance run of the store tests against PostgreSQL; see tests/CMakeLists.txt).
std::unique_ptr<Engine> OpenFresh(const std::filesystem::path& db);
std::unique_ptr<Engine> OpenFresh(const TempDir& dir);

// The URL of the test run's PostgreSQL database (ENGRAM_TEST_PG_URL, or the
// file ENGRAM_TEST_PG_URL_FILE names); "" when there is none.
std::string TestPgUrl();
// A URL of the same database whose search_path is a new, empty schema: a
// store of its own for one test. "" when there is no cluster.
std::string FreshPgStoreUrl();
// True when the store tests run against PostgreSQL (ENGRAM_TEST_STORE=postgres).
bool TestingPostgres();

}  // namespace engram::testing
