// Schema of a PostgreSQL brain as numbered migrations. Migration 1 is the
// SQLite schema at its version 14 in PostgreSQL's types; later ones follow
// the SQLite migrations one for one from there.
#pragma once

#include "engram/status.h"

namespace engram::store::postgres {

class PgConnection;

// Highest migration number this build knows.
int LatestPgSchemaVersion();

// Applies the migrations the database lacks, each in its own transaction
// under a transaction-level advisory lock (two processes opening a new
// database at once migrate it once). A database that holds tables but no
// engram marker is another program's, and one newer than this build is
// refused; neither is modified.
Status MigratePg(PgConnection* conn, const std::string& where);

}  // namespace engram::store::postgres
