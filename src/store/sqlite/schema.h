// Schema of the SQLite brain database as numbered migrations.
#pragma once

#include <sqlite3.h>

#include "engram/status.h"
#include "store/sql/statement.h"

namespace engram::store::sqlite {

// PRAGMA application_id of an engram database ("ENGR").
constexpr int kApplicationId = 0x454E4752;

// Highest migration number this build knows.
int LatestSchemaVersion();

// Applies every migration above the database's user_version up to
// up_to (tests build older databases with it), each in its own
// transaction. A database newer than this build is FailedPrecondition.
Status Migrate(sqlite3* db, int up_to = LatestSchemaVersion());

}  // namespace engram::store::sqlite
