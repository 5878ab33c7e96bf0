// Crash points: named places in a multi-step write where a test may kill the
// process, so that a kill test proves its kill landed inside the write (the
// process says which point it died at) instead of hoping a timer did.
//
// Off unless the environment says otherwise (one getenv, read once):
//   ENGRAM_CRASH_AT=N      the Nth crash point reached (1-based, counted over
//                          the whole process) prints "engram: crash point
//                          NAME (#N)" to stderr and the process SIGKILLs
//                          itself, as `kill -9` would: no destructor, no
//                          flush, no atexit handler runs.
//   ENGRAM_CRASH_AT=count  nothing is killed; at exit the process prints
//                          "engram: crash points reached: N" to stderr, so a
//                          test can pick N at random among the real points.
// A point costs one relaxed atomic load when off.
//
// Thread safety: any thread; the count is shared by the whole process.
#pragma once

#include <string_view>

namespace engram::common {

void CrashPoint(std::string_view name);

}  // namespace engram::common
