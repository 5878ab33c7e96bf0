// The brain's single-writer lock: <brain>/.engram/write.lock, held with
// flock(2) for the whole of a write (import, put, delete, sync). Readers
// never take it (SQLite WAL lets them read while a writer writes).
//
// The holder writes its PID, what it does and since when into the file, so
// a writer that gives up can say who holds the lock. A holder that dies
// loses the lock with its process: the next writer takes it over.
#pragma once

#include <filesystem>
#include <memory>
#include <string_view>

#include "engram/status.h"

namespace engram::sync {

class WriteLock {
 public:
  ~WriteLock();
  WriteLock(const WriteLock&) = delete;
  WriteLock& operator=(const WriteLock&) = delete;

  // Waits up to timeout_ms for the lock. Unavailable, naming the holder,
  // when the wait runs out; IOError when the file cannot be opened.
  static Result<std::unique_ptr<WriteLock>> Acquire(const std::filesystem::path& file, std::string_view what,
                                                    int timeout_ms);

 private:
  explicit WriteLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace engram::sync
