// `engram migrate`: the brain's database copied whole into another engine's
// (store/copy_store.h), verified, and the brain pointed at it.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "engram/brain.h"
#include "engram/store/copy_store.h"

namespace engram::ops {

struct MigrateReport {
  std::string from, to;   // as messages show them (never a password)
  CopyReport copy;
  bool switched = false;  // config.toml now names the target
  double seconds = 0;
};

// Copies brain's database into target — "sqlite" (the brain's own
// .engram/engram.db), "sqlite:PATH", or a postgres:// URL — under the
// brain's write lock, then (switch_config) rewrites [store] so the brain
// uses the copy; the source is only read, so switching back is an edit of
// [store]. An interrupted migrate resumes when run again.
Result<MigrateReport> MigrateBrain(Brain& brain, const std::string& target, bool switch_config,
                                   const std::function<void(const CopyProgress&)>& progress);

}  // namespace engram::ops
