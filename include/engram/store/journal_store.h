// The write-journal contract: a write of Markdown files (one page put, or a
// merge that rewrites three hundred) recorded whole before its first file
// changes, so that a process killed halfway leaves a state that says what
// it was doing and how far it got. The journal holds, per file, the bytes
// before and the bytes after; finishing an interrupted write brings every
// file not yet done to its "after" bytes, which makes the result of a
// resumed write byte-identical to one that ran through.
//
// The store keeps the journal; the files and their commits are the page
// module's (ops/write_journal.h). Each call here is its own transaction
// (never part of a caller's), so what it records is durable when it returns.
//
// Errors: IOError / Unavailable when the store cannot be read or written;
// NotFound for a journal id that is not open.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engram/status.h"

namespace engram {

// One file of a journaled write.
struct JournalFile {
  std::string path;                   // relative to the pages' folder
  std::optional<std::string> before;  // its bytes when the write was planned; nullopt: it did not exist
  std::optional<std::string> after;   // its bytes when the write is done; nullopt: it is removed
  bool done = false;                  // written, committed (a git brain) and indexed
};

struct JournalEntry {
  int64_t id = 0;
  std::string operation;   // "put", "merge", "split", ... (what the caller ran)
  std::string args;        // JSON: the request, to recognise a re-run of the same write
  std::string report;      // JSON: what the write reports once done
  std::string started_at;  // ISO 8601
  std::string owner;       // the brain folder (and host) whose files it writes
  std::vector<JournalFile> files;  // in the order they are written
};

class JournalStore {
 public:
  virtual ~JournalStore() = default;

  // Records entry (its id is assigned and returned) with every file not done.
  virtual Result<int64_t> BeginJournal(const JournalEntry& entry) = 0;
  // File number index (0-based, in entry.files order) of journal id is done.
  virtual Status MarkJournalFileDone(int64_t id, size_t index) = 0;
  // The write is complete (or abandoned): its records are removed.
  virtual Status EndJournal(int64_t id) = 0;
  // Every journal still open, oldest first, with its files.
  virtual Result<std::vector<JournalEntry>> OpenJournals() = 0;

 protected:
  JournalStore() = default;
};

}  // namespace engram
