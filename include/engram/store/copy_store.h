// Copying a whole store into another, of the same or another engine
// (`engram migrate`): every table the schema holds, ids kept, verified.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/status.h"

namespace engram {

struct CopyProgress {
  std::string table;
  int64_t rows_done = 0;   // over all tables
  int64_t rows_total = 0;  // over all tables, as counted at the start
};

struct CopiedTable {
  std::string name;
  int64_t rows = 0;     // in the source (and, verified, in the target)
  std::string sha256;   // of the rows in key order, equal on both sides
  int64_t resumed_after = 0;  // rows a previous, interrupted copy had already written
};

struct CopyReport {
  std::vector<CopiedTable> tables;
  int64_t rows = 0;
};

// Copies every row of from into to, which must be empty or hold an
// interrupted copy of the same source (its config value `migrated_from`
// names it, given as source_name). Big tables go in key order, ~2,000 rows
// per transaction, so a copy that was interrupted resumes after the last
// batch that committed; small ones and the change log are rewritten whole.
// Then every table is read back on both sides and compared by row count and
// a SHA-256 of its rows in key order: Corruption naming the table when they
// differ. from is only read. FailedPrecondition when to holds another brain.
Result<CopyReport> CopyStore(Engine& from, Engine& to, const std::string& source_name,
                             const std::function<void(const CopyProgress&)>& progress);

// The tables CopyStore copies, and their columns (a test holds this list to
// both schemas, so that a migration adding a table or a column must add it here).
std::vector<std::pair<std::string, std::vector<std::string>>> CopiedColumns();

}  // namespace engram
