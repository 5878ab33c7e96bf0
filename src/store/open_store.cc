#include "engram/store/open_store.h"

#include <string>

#include "store/postgres/pg_connection.h"
#include "store/sqlite/db.h"

namespace engram {

Result<std::unique_ptr<Engine>> OpenStore(std::string_view uri, const EngineOptions& options) {
  constexpr std::string_view kSqlite = "sqlite:";
  if (uri.substr(0, kSqlite.size()) == kSqlite) {
    const std::string_view path = uri.substr(kSqlite.size());
    if (path.empty()) return Status::InvalidArgument("store URI \"sqlite:\" names no database file");
    return store::sqlite::OpenSqliteEngine(std::filesystem::path(path), options);
  }
  if (uri.substr(0, 11) == "postgres://" || uri.substr(0, 13) == "postgresql://") {
    return store::postgres::OpenPostgresEngine(uri, options);
  }
  // Only the scheme is shown: the rest may carry a password.
  const size_t colon = uri.find(':');
  const std::string shown(uri.substr(0, std::min<size_t>(colon == std::string_view::npos ? uri.size() : colon, 40)));
  return Status::InvalidArgument("store URI of scheme \"" + shown + "\" is not known (known: sqlite:PATH, "
                                 "postgres://USER@HOST:PORT/DB)");
}

std::string DescribeStore(std::string_view uri) {
  if (uri.substr(0, 7) == "sqlite:") return std::string(uri.substr(7));
  return store::postgres::DescribeUrl(uri);
}

Result<std::unique_ptr<Engine>> OpenSqliteStore(const std::filesystem::path& path, const EngineOptions& options) {
  return store::sqlite::OpenSqliteEngine(path, options);
}

}  // namespace engram
