#include "common/hash.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

namespace engram::common {
namespace {

std::string Digest(const EVP_MD* md, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, md, nullptr);
  return HexEncode(std::string_view(reinterpret_cast<const char*>(out), len));
}

}  // namespace

std::string HexEncode(std::string_view bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (const unsigned char b : bytes) {
    hex.push_back(kHex[b >> 4]);
    hex.push_back(kHex[b & 15]);
  }
  return hex;
}

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr); }
Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }
void Sha256::Update(std::string_view data) { EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), data.data(), data.size()); }
std::string Sha256::HexDigest() {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), out, &len);
  return HexEncode(std::string_view(reinterpret_cast<const char*>(out), len));
}

std::string Sha256Hex(std::string_view data) { return Digest(EVP_sha256(), data); }
std::string Md5Hex(std::string_view data) { return Digest(EVP_md5(), data); }

Result<std::string> RandomHex(size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(raw.size())) != 1) {
    return Status::Internal("no secure randomness (OpenSSL RAND_bytes failed)");
  }
  return HexEncode(raw);
}

}  // namespace engram::common
