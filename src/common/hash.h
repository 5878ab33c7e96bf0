// Content hashes and random ids (OpenSSL libcrypto).
#pragma once

#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram::common {

// The bytes as lower-case hex, two characters each.
std::string HexEncode(std::string_view bytes);

// Lower-case hex SHA-256 of the bytes.
std::string Sha256Hex(std::string_view data);

// SHA-256 over data given in pieces: Update() as often as needed, then
// HexDigest() once.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void Update(std::string_view data);
  std::string HexDigest();

 private:
  void* ctx_;  // EVP_MD_CTX
};

// Lower-case hex MD5 of the bytes (ids compatible with the knowledge API).
std::string Md5Hex(std::string_view data);

// `bytes` bytes from OpenSSL's CSPRNG as lower-case hex (2 × bytes
// characters): tokens, session ids.
Result<std::string> RandomHex(size_t bytes);

}  // namespace engram::common
