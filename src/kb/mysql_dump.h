// JoySafety's governance table read from a MySQL dump (mysqldump's output,
// or any file of INSERT statements): the rows of `red_line_knowledge`, so an
// existing deployment moves over in one command (`engram kb import --format
// mysql`).
//
// Read: `INSERT [IGNORE] INTO` and `REPLACE INTO` statements of the table
// (also `db`.`table`), with or without a column list, one or many rows
// each; without a column list the columns are those of the dump's `CREATE
// TABLE` for it. Values: NULL, numbers, '...' and "..." strings with
// MySQL's escapes (\0 \' \" \b \n \r \t \Z \\, and '' for a quote; \% and
// \_ keep their backslash) and charset introducers (_utf8mb4'...'), hex
// literals (0x..., X'...'), bare words (CURRENT_TIMESTAMP). Comments
// (-- , #, /* */ and /*! */) and every other statement are skipped.
//
// Everything is read and checked before anything is returned: the first
// problem is InvalidArgument "line N: ..." (an unterminated string or
// statement, a row whose value count differs from the columns, a status
// that is neither online nor offline, text that is not UTF-8), so a bad
// dump imports nothing.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "engram/store/kb_store.h"

namespace engram::kb {

// The table's rows as the dump holds them: column names, and each row's
// values in that order (nullopt = NULL) with the line its row starts on.
struct DumpTable {
  std::vector<std::string> columns;
  struct Row {
    std::vector<std::optional<std::string>> values;
    int line = 0;
  };
  std::vector<Row> rows;
};

// The INSERTed rows of `table` (case-sensitive, as MySQL on Linux). A dump
// with no INSERT for it is an empty table, not an error.
Result<DumpTable> ReadMysqlInserts(std::string_view dump, std::string_view table);

// A governed entry of each row of red_line_knowledge (the KNOWLEDGE-API.md
// model): question and business_scene are required; uniq_id defaults to
// md5(question), version to 1, status to online (1/0 are read as
// online/offline), metadata to {}; the original's numeric id is not kept
// (engram numbers its rows itself).
Result<std::vector<GovernedEntry>> ReadRedLineDump(std::string_view dump);

}  // namespace engram::kb
