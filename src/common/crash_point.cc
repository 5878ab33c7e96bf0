#include "common/crash_point.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace engram::common {

namespace {

enum class Mode { kOff, kKill, kCount };

struct Settings {
  Mode mode = Mode::kOff;
  long long at = 0;
};

std::atomic<long long> g_reached{0};

void ReportCount() { std::fprintf(stderr, "engram: crash points reached: %lld\n", g_reached.load()); }

const Settings& Read() {
  static const Settings settings = [] {
    Settings s;
    const char* v = std::getenv("ENGRAM_CRASH_AT");
    if (v == nullptr || *v == '\0') return s;
    if (std::strcmp(v, "count") == 0) {
      s.mode = Mode::kCount;
      std::atexit(ReportCount);
      return s;
    }
    char* end = nullptr;
    const long long n = std::strtoll(v, &end, 10);
    if (end != nullptr && *end == '\0' && n > 0) {
      s.mode = Mode::kKill;
      s.at = n;
    }
    return s;
  }();
  return settings;
}

}  // namespace

void CrashPoint(std::string_view name) {
  const Settings& s = Read();
  if (s.mode == Mode::kOff) return;
  const long long n = g_reached.fetch_add(1) + 1;
  if (s.mode != Mode::kKill || n != s.at) return;
  // On a line of its own: a progress bar may have left the cursor mid-line.
  const std::string line = "\nengram: crash point " + std::string(name) + " (#" + std::to_string(n) + ")\n";
  (void)!::write(STDERR_FILENO, line.data(), line.size());
  ::kill(::getpid(), SIGKILL);
  ::pause();
}

}  // namespace engram::common
