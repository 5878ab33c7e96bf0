// Fuzz target: JoySafety MySQL dumps (kb/mysql_dump.h) and the dialog
// check's reply parser (kb/dialog.h), the two readers of outside text the
// red-line knowledge service adds.
// Invariants: no crash or exception; reading is deterministic; a dump's
// error names a line within the input; every row has one value per column
// and a line within the input; every governed entry read has a question,
// valid UTF-8 fields, a version >= 1 and status online or offline; a reply
// either gives label 0 or 1 or says why not.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/utf8.h"
#include "kb/dialog.h"
#include "kb/mysql_dump.h"

namespace {

int LineNumber(const std::string& message) { return std::atoi(message.c_str() + 5); }

void CheckDump(std::string_view input) {
  int lines = 1;
  for (char c : input) lines += c == '\n';
  auto table = engram::kb::ReadMysqlInserts(input, "red_line_knowledge");
  if (!table.ok()) {
    const std::string& m = table.status().message();
    if (m.rfind("line ", 0) != 0 || LineNumber(m) < 1 || LineNumber(m) > lines) std::abort();
  } else {
    for (const auto& row : table->rows) {
      if (row.values.size() != table->columns.size() || row.line < 1 || row.line > lines) std::abort();
    }
  }
  auto a = engram::kb::ReadRedLineDump(input);
  auto b = engram::kb::ReadRedLineDump(input);
  if (a.ok() != b.ok()) std::abort();
  if (!a.ok()) {
    if (a.status().message() != b.status().message() || a.status().message().rfind("line ", 0) != 0) std::abort();
    return;
  }
  if (!table.ok() || a->size() != b->size() || a->size() != table->rows.size()) std::abort();
  for (const engram::GovernedEntry& g : *a) {
    if (g.question.empty() || g.uniq_id.empty() || g.version < 1) std::abort();
    if (g.status != "online" && g.status != "offline") std::abort();
    if (!engram::common::IsValidUtf8(g.question) || !engram::common::IsValidUtf8(g.answer)) std::abort();
  }
}

void CheckReply(std::string_view input) {
  auto a = engram::kb::ParseDialogReply(input);
  auto b = engram::kb::ParseDialogReply(input);
  if (a.ok() != b.ok()) std::abort();
  if (a.ok() && (a->label != b->label || a->reason != b->reason || (a->label != 0 && a->label != 1))) std::abort();
  if (!a.ok() && a.status().message().empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  CheckDump(input);
  CheckReply(input);
  return 0;
}
