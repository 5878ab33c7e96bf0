// The log-store contract: the audit log (files quarantined, by rule, never
// their content) and the ingest log (what each import or sync did to each
// file). Both are append-only and read newest first; entries are written in
// the caller's transaction when there is one.
//
// Errors: IOError / Unavailable when the store cannot be read or written.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram {

struct IngestLogEntry {
  std::string at;
  std::string path;
  std::string action;   // "add", "update", "delete", "skip", "warn", "error"
  std::string message;
};

// A quarantined file: which rule kept it out, never its content.
struct AuditEntry {
  std::string at;
  std::string path;
  std::string rule;
  int line = 0;  // 1-based line of the hit in the file; 0 when its path or name hit
};

class LogStore {
 public:
  virtual ~LogStore() = default;

  virtual Status AppendAudit(std::string_view source, const AuditEntry& entry) = 0;
  virtual Result<std::vector<AuditEntry>> Audit(size_t limit) = 0;  // newest first
  virtual Status AppendIngestLog(const IngestLogEntry& entry) = 0;
  virtual Result<std::vector<IngestLogEntry>> RecentIngestLog(size_t limit) = 0;

 protected:
  LogStore() = default;
};

}  // namespace engram
