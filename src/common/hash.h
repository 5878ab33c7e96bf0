// Content hashes (OpenSSL libcrypto).
#pragma once

#include <string>
#include <string_view>

namespace engram::common {

// Lower-case hex SHA-256 of the bytes.
std::string Sha256Hex(std::string_view data);

// Lower-case hex MD5 of the bytes (ids compatible with the knowledge API).
std::string Md5Hex(std::string_view data);

}  // namespace engram::common
