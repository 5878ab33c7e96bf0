// Bearer tokens for the HTTP API and MCP over HTTP, in
// <brain>/.engram/tokens.json (mode 0600). A token is shown once when
// created ("engram_<id>_<48 hex>"); the file keeps its id, name, scope,
// creation time and SHA-256 only. Verification looks the id up and compares
// the hashes in constant time. Managing tokens is a local-only operation.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engram/brain.h"
#include "engram/status.h"

namespace engram::ops {

struct TokenInfo {
  std::string id;
  std::string name;
  Scope scope = Scope::kRead;
  std::string created_at;
};

struct NewToken {
  TokenInfo info;
  std::string token;  // the secret: shown once
};

class TokenStore {
 public:
  explicit TokenStore(std::filesystem::path file) : file_(std::move(file)) {}
  static std::filesystem::path FileOf(const std::filesystem::path& brain_root) {
    return brain_root / ".engram" / "tokens.json";
  }

  Result<NewToken> Create(Scope scope, const std::string& name);
  Result<std::vector<TokenInfo>> List() const;
  Status Revoke(const std::string& id);  // NotFound for an unknown id
  // The token's entry when it is valid; nothing otherwise (also for a
  // malformed token). Reads the file (callers cache by modification time).
  Result<std::optional<TokenInfo>> Verify(const std::string& token) const;

 private:
  struct Entry {
    TokenInfo info;
    std::string sha256;
  };
  Result<std::vector<Entry>> Load() const;
  Status Save(const std::vector<Entry>& entries) const;

  std::filesystem::path file_;
};

}  // namespace engram::ops
