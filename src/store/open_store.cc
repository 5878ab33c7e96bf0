#include "engram/store/open_store.h"

#include <string>

#include "store/sqlite/sqlite_engine.h"

namespace engram {

Result<std::unique_ptr<Engine>> OpenStore(std::string_view uri, const EngineOptions& options) {
  constexpr std::string_view kSqlite = "sqlite:";
  if (uri.substr(0, kSqlite.size()) == kSqlite) {
    const std::string_view path = uri.substr(kSqlite.size());
    if (path.empty()) return Status::InvalidArgument("store URI \"sqlite:\" names no database file");
    return store::sqlite::SqliteEngine::Open(std::filesystem::path(path), options);
  }
  std::string shown(uri.substr(0, 200));
  return Status::InvalidArgument("store URI \"" + shown + "\" has no known scheme (known: sqlite:PATH)");
}

Result<std::unique_ptr<Engine>> OpenSqliteStore(const std::filesystem::path& path, const EngineOptions& options) {
  return store::sqlite::SqliteEngine::Open(path, options);
}

}  // namespace engram
