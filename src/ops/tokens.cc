#include "ops/tokens.h"

#include <openssl/crypto.h>
#include <sys/stat.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/files.h"
#include "common/hash.h"
#include "common/utf8.h"

namespace engram::ops {

using Json = nlohmann::json;

namespace {

constexpr const char* kPrefix = "engram_";
constexpr size_t kIdHex = 8;
constexpr size_t kSecretHex = 48;

bool IsHex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

Result<std::vector<TokenStore::Entry>> TokenStore::Load() const {
  std::error_code ec;
  if (!std::filesystem::exists(file_, ec)) return std::vector<Entry>{};
  ENGRAM_ASSIGN_OR_RETURN(std::string text, common::ReadFile(file_, 16u << 20));
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("tokens") || !j["tokens"].is_array()) {
    return Status::Corruption(file_.string() + ": not a token file (expected {\"tokens\": [...]})");
  }
  std::vector<Entry> out;
  for (const Json& t : j["tokens"]) {
    Entry e;
    if (!t.is_object() || !t.contains("id") || !t["id"].is_string() || !t.contains("sha256") ||
        !t["sha256"].is_string() || !t.contains("scope") || !t["scope"].is_string() ||
        !ParseScope(t["scope"].get<std::string>(), &e.info.scope)) {
      return Status::Corruption(file_.string() + ": a token entry lacks id, sha256 or a valid scope");
    }
    e.info.id = t["id"].get<std::string>();
    e.info.name = t.value("name", "");
    e.info.created_at = t.value("created_at", "");
    e.sha256 = t["sha256"].get<std::string>();
    out.push_back(std::move(e));
  }
  return out;
}

Status TokenStore::Save(const std::vector<Entry>& entries) const {
  Json list = Json::array();
  for (const Entry& e : entries) {
    list.push_back({{"id", e.info.id}, {"name", e.info.name}, {"scope", ScopeName(e.info.scope)},
                    {"created_at", e.info.created_at}, {"sha256", e.sha256}});
  }
  ENGRAM_RETURN_IF_ERROR(common::WriteFileAtomic(file_, Json{{"tokens", list}}.dump(2, ' ', false, Json::error_handler_t::replace) + "\n"));
  ::chmod(file_.c_str(), 0600);
  return Status::Ok();
}

Result<NewToken> TokenStore::Create(Scope scope, const std::string& name) {
  if (name.size() > 100 || !common::IsValidUtf8(name) ||
      std::any_of(name.begin(), name.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; })) {
    return Status::InvalidArgument("token name must be one line of at most 100 bytes");
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<Entry> entries, Load());
  NewToken t;
  do {
    ENGRAM_ASSIGN_OR_RETURN(t.info.id, common::RandomHex(kIdHex / 2));
  } while (std::any_of(entries.begin(), entries.end(), [&](const Entry& e) { return e.info.id == t.info.id; }));
  ENGRAM_ASSIGN_OR_RETURN(std::string secret, common::RandomHex(kSecretHex / 2));
  t.token = kPrefix + t.info.id + "_" + secret;
  t.info.name = name;
  t.info.scope = scope;
  t.info.created_at = common::NowIso8601();
  entries.push_back({t.info, common::Sha256Hex(t.token)});
  ENGRAM_RETURN_IF_ERROR(Save(entries));
  return t;
}

Result<std::vector<TokenInfo>> TokenStore::List() const {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<Entry> entries, Load());
  std::vector<TokenInfo> out;
  for (Entry& e : entries) out.push_back(std::move(e.info));
  return out;
}

Status TokenStore::Revoke(const std::string& id) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<Entry> entries, Load());
  auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.info.id == id; });
  if (it == entries.end()) return Status::NotFound("no token with id '" + id + "'");
  entries.erase(it);
  return Save(entries);
}

Result<std::optional<TokenInfo>> TokenStore::Verify(const std::string& token) const {
  const size_t prefix = std::char_traits<char>::length(kPrefix);
  if (token.size() != prefix + kIdHex + 1 + kSecretHex || token.compare(0, prefix, kPrefix) != 0 ||
      token[prefix + kIdHex] != '_' || !IsHex(std::string_view(token).substr(prefix, kIdHex)) ||
      !IsHex(std::string_view(token).substr(prefix + kIdHex + 1))) {
    return std::optional<TokenInfo>();
  }
  const std::string id = token.substr(prefix, kIdHex);
  ENGRAM_ASSIGN_OR_RETURN(std::vector<Entry> entries, Load());
  const std::string presented = common::Sha256Hex(token);
  for (const Entry& e : entries) {
    if (e.info.id != id || e.sha256.size() != presented.size()) continue;
    if (CRYPTO_memcmp(e.sha256.data(), presented.data(), presented.size()) == 0) return std::optional<TokenInfo>(e.info);
  }
  return std::optional<TokenInfo>();
}

}  // namespace engram::ops
