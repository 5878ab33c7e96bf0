// Opening an SQLite brain: foreign files refused, pragmas, migrations.
#include "store/sql/sql_engine.h"
#include "store/sqlite/db.h"
#include "store/sqlite/schema.h"

namespace engram::store::sqlite {

Result<std::unique_ptr<Engine>> OpenSqliteEngine(const std::filesystem::path& path, const EngineOptions& options) {
  std::error_code ec;
  bool exists = std::filesystem::exists(path, ec);
  if (!exists && !options.create_if_missing) {
    return Status::NotFound("no brain database at " + path.string() + " (run `engram init`)");
  }

  sqlite3* raw = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (exists ? 0 : SQLITE_OPEN_CREATE);
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  DbHandle db(raw);
  if (rc != SQLITE_OK) return SqliteError(raw, rc, "opening " + path.string());
  sqlite3_busy_timeout(db.get(), options.busy_timeout_ms);
  sqlite3_extended_result_codes(db.get(), 1);

  if (exists) {
    // Reading the header pages detects corruption and foreign files. The
    // file is never opened behind SQLite's back: closing any descriptor of
    // it would drop the POSIX locks of this process's other connections (a
    // server's), and another process could then take the database as
    // unused and reset its WAL under their feet.
    const std::string foreign = path.string() + " is not an SQLite database (corrupt or foreign file); refusing to "
                                "open or overwrite it: ";
    auto app = Prepare(db.get(), "PRAGMA application_id");
    if (!app.ok()) return Status::Corruption(foreign + app.status().message());
    int64_t app_id = app->Step() ? app->Int(0) : 0;
    if (!app->status().ok()) return Status::Corruption(foreign + app->status().message());
    auto tables = Prepare(db.get(), "SELECT count(*) FROM sqlite_master");
    if (!tables.ok()) return Status::Corruption(path.string() + ": " + tables.status().message());
    int64_t ntables = tables->Step() ? tables->Int(0) : 0;
    if (!tables->status().ok()) return Status::Corruption(path.string() + ": " + tables->status().message());
    if (app_id != kApplicationId && ntables > 0) {
      return Status::Corruption(path.string() + " is an SQLite database of another program "
                                "(application_id " + std::to_string(app_id) + "); refusing to modify it");
    }
  }
  ENGRAM_RETURN_IF_ERROR(Exec(db.get(), "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; "
                                        "PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY; "
                                        "PRAGMA cache_size = -65536; PRAGMA mmap_size = 1073741824;"));
  ENGRAM_RETURN_IF_ERROR(Migrate(db.get()).WithContext(path.string()));
  return std::unique_ptr<Engine>(new sql::SqlEngine(std::make_unique<SqliteConnection>(std::move(db), path)));
}

}  // namespace engram::store::sqlite
