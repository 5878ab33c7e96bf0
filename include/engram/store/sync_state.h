// The sync-state contract: per source, where its Markdown lives, the last
// commit synced, and the files a sync could not index (retried by the next
// one). Set the anchor and the failures inside the Transaction that applies
// that commit's changes, so that all of it commits together.
//
// Errors: IOError / Unavailable when the store cannot be read or written.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram {

// A file that a sync could not index; retried by the next sync.
struct SyncFailure {
  std::string path;
  std::string reason;
  std::string at;
};

class SyncStateStore {
 public:
  virtual ~SyncStateStore() = default;

  // The folder a source's Markdown lives in ("" = the brain root).
  virtual Result<std::string> SourceRoot(std::string_view source) = 0;
  virtual Status SetSourceRoot(std::string_view source, std::string_view root) = 0;

  // The last synced commit of a source ("" before the first sync). Set it
  // inside the Transaction that applies that commit's changes, so both commit together.
  virtual Result<std::string> SyncAnchor(std::string_view source) = 0;
  virtual Status SetSyncAnchor(std::string_view source, std::string_view anchor) = 0;
  // A file the last sync could not index, kept until a sync indexes or
  // deletes it (ClearSyncFailure); SyncFailures lists them in path order.
  virtual Status RecordSyncFailure(std::string_view source, const SyncFailure& failure) = 0;
  virtual Status ClearSyncFailure(std::string_view source, std::string_view path) = 0;
  virtual Result<std::vector<SyncFailure>> SyncFailures(std::string_view source) = 0;

 protected:
  SyncStateStore() = default;
};

}  // namespace engram
