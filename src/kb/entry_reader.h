// Knowledge entries read from files people export and hand over: JSON Lines
// and CSV. Everything is read and checked before anything is written, so a
// bad line stops an import with its line number and nothing half-imported.
//
//   JSONL  one object per line: {"id"?, "text", "source"?, "meta"?: {flat}};
//          blank lines are skipped.
//   CSV    RFC 4180 (quoted fields may hold commas, "" and line breaks), a
//          header row naming the columns: `text` is required, `id` and
//          `source` are optional, every other column becomes a meta string
//          (an empty cell is left out). A UTF-8 byte-order mark is skipped.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::kb {

struct ReadEntry {
  std::string id;  // "" = the md5 of the text, as upsert gives it
  std::string text;
  std::string source;
  nlohmann::json meta = nlohmann::json::object();
  int line = 0;  // 1-based line where it starts
};

// InvalidArgument "line N: …" for the first line that is not an entry.
Result<std::vector<ReadEntry>> ReadJsonl(std::string_view data);
Result<std::vector<ReadEntry>> ReadCsv(std::string_view data);

}  // namespace engram::kb
