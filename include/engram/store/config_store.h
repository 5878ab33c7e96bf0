// The config-store contract: small named values kept with the data (the
// scope a source was synced with, the note-date format version), read and
// written in the caller's transaction when there is one. Not config.toml:
// that file is the user's (ops/config.h).
//
// Errors: IOError / Unavailable when the store cannot be read or written.
#pragma once

#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram {

class ConfigStore {
 public:
  virtual ~ConfigStore() = default;

  // Small named values kept with the data (e.g. the scope a source was synced with).
  virtual Result<std::string> GetConfigValue(std::string_view key) = 0;  // "" when unset
  virtual Status SetConfigValue(std::string_view key, std::string_view value) = 0;

 protected:
  ConfigStore() = default;
};

}  // namespace engram
