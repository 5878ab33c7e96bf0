// Schema of the SQLite brain database as numbered migrations.
#pragma once

#include <sqlite3.h>

#include "engram/status.h"

namespace engram::store::sqlite {

// PRAGMA application_id of an engram database ("ENGR").
constexpr int kApplicationId = 0x454E4752;

// The SQL that logs one change (engram/store/change_log.h) of stream (an
// integer literal) for key (an SQL expression), as the vector triggers run
// it: advance the one generation row — which a concurrent writer would have
// to wait for — and record the entry with the new generation.
#define ENGRAM_LOG_CHANGE_SQL(stream, key)            \
  "UPDATE store_generation SET value = value + 1; " \
  "INSERT INTO change_log(generation, stream, key) SELECT value, " stream ", " key " FROM store_generation;"

// Highest migration number this build knows.
int LatestSchemaVersion();

// Applies every migration above the database's user_version up to
// up_to (tests build older databases with it), each in its own
// transaction. A database newer than this build is FailedPrecondition.
Status Migrate(sqlite3* db, int up_to = LatestSchemaVersion());

}  // namespace engram::store::sqlite
