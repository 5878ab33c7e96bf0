#include "test_stores.h"

#include <gtest/gtest.h>

#include "engram/store/open_store.h"
#include "sync/page_indexer.h"

namespace engram::testing {

PageWrite Prepare(const std::string& path, const std::string& content) {
  auto w = sync::PreparePage(path, content, {});
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  return std::move(w).value();
}

std::unique_ptr<Engine> OpenFresh(const std::filesystem::path& db) {
  EngineOptions o;
  o.create_if_missing = true;
  auto e = OpenSqliteStore(db, o);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? std::move(e).value() : nullptr;
}

std::unique_ptr<Engine> OpenFresh(const TempDir& dir) { return OpenFresh(dir.path() / "engram.db"); }

}  // namespace engram::testing
