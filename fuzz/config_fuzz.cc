// Fuzz target: config.toml parsing (bad input is an error, never a crash).
#include <cstdint>
#include <string>

#include "ops/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)engram::ops::ParseConfig(text, "config.toml");
  return 0;
}
