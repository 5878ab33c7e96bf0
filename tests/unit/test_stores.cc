#include "test_stores.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>

#include "engram/store/open_store.h"
#include "sync/page_indexer.h"

namespace engram::testing {

PageWrite Prepare(const std::string& path, const std::string& content) {
  auto w = sync::PreparePage(path, content, {});
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  return std::move(w).value();
}

std::string TestPgUrl() {
  if (const char* url = std::getenv("ENGRAM_TEST_PG_URL"); url && *url) return url;
  const char* file = std::getenv("ENGRAM_TEST_PG_URL_FILE");
  if (!file || !*file) return "";
  std::ifstream in(file);
  std::string url;
  std::getline(in, url);
  return url;
}

bool TestingPostgres() {
  const char* kind = std::getenv("ENGRAM_TEST_STORE");
  return kind && std::string(kind) == "postgres";
}

std::string FreshPgStoreUrl() {
  const std::string url = TestPgUrl();
  if (url.empty()) return "";
  static std::atomic<int> next{0};
  std::string schema = "t";
  schema.append(std::to_string(::getpid())).append("_").append(std::to_string(next++));
  PGconn* c = PQconnectdb(url.c_str());
  EXPECT_EQ(PQstatus(c), CONNECTION_OK) << PQerrorMessage(c);
  PGresult* r = PQexec(c, ("SET client_min_messages = warning; DROP SCHEMA IF EXISTS " + schema + " CASCADE; CREATE SCHEMA " + schema).c_str());
  EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQresultErrorMessage(r);
  PQclear(r);
  PQfinish(c);
  return url + (url.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + schema;
}

std::unique_ptr<Engine> OpenFresh(const std::filesystem::path& db) {
  EngineOptions o;
  o.create_if_missing = true;
  if (!TestingPostgres()) {
    auto e = OpenSqliteStore(db, o);
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? std::move(e).value() : nullptr;
  }
  // The path holds the URL of its schema: opening it again opens the same
  // store, as with SQLite (tests that open a second connection), and a new
  // path is a new, empty store.
  std::string url;
  if (std::ifstream in(db); in) {
    std::getline(in, url);
  } else {
    url = FreshPgStoreUrl();
    WriteFile(db, url + "\n");
  }
  auto e = OpenStore(url, o);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? std::move(e).value() : nullptr;
}

std::unique_ptr<Engine> OpenFresh(const TempDir& dir) { return OpenFresh(dir.path() / "engram.db"); }

}  // namespace engram::testing
