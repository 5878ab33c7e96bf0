// The quarantine's rule table and entry point: the path and file-name rules,
// the order the content rules run in, the line a hit begins on, and
// FindSensitive (sync/sensitive.h). The content rules themselves are in
// sensitive_tokens.cc, sensitive_assignments.cc and sensitive_numbers.cc,
// reading what sensitive_scan.cc prepares.
#include "sync/sensitive.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "common/utf8.h"
#include "sync/sensitive_scan.h"
#include "text/canvas.h"

namespace engram::sync {

namespace {

using sensitive::MakeScan;
using sensitive::Normalise;
using sensitive::Scan;
using sensitive::StartsWith;

struct ContentRule {
  const char* id;
  bool (*found)(const Scan&);
};

// In the order they are tried: the first hit names the file's rule.
constexpr std::array<ContentRule, 19> kContentRules = {{
    {"pem_private_key", sensitive::PemPrivateKey},
    {"api_key_sk", sensitive::ApiKey},
    {"aws_access_key", sensitive::AwsKey},
    {"github_token", sensitive::GithubToken},
    {"slack_token", sensitive::SlackToken},
    {"jwt", sensitive::Jwt},
    {"secret_assignment", sensitive::SecretAssignment},
    {"url_credentials", sensitive::UrlCredentials},
    {"cn_resident_id", sensitive::ChineseResidentId},
    {"cn_mobile", sensitive::ChineseMobile},
    {"card_number", sensitive::CardNumber},
    {"cli_password", sensitive::CommandLinePassword},
    {"markup_password", sensitive::MarkupPassword},
    {"table_secret", sensitive::TableSecret},
    {"private_key_body", sensitive::PrivateKeyBody},
    {"vendor_token", sensitive::VendorToken},
    {"personal_label", sensitive::PersonalLabel},
    {"credential_pair", sensitive::CredentialPair},
    {"labelled_secret", sensitive::LabelledSecret},
}};

// Words of a folded name: runs of ASCII letters and digits; other
// characters separate them, Chinese text is kept whole between them.
std::vector<std::string_view> NameWords(std::string_view name) {
  std::vector<std::string_view> words;
  for (size_t i = 0; i < name.size();) {
    const bool ascii = static_cast<unsigned char>(name[i]) < 0x80;
    if (ascii && !sensitive::IsAlnum(name[i])) {
      ++i;
      continue;
    }
    size_t e = i;
    while (e < name.size() && (ascii ? sensitive::IsAlnum(name[e]) : static_cast<unsigned char>(name[e]) >= 0x80)) ++e;
    words.push_back(name.substr(i, e - i));
    i = e;
  }
  return words;
}

// Whether a folded name holds keyword: as whole words for an ASCII keyword
// ("my-secrets", "Secrets-2024", "password list"; never "secretary"), as a
// part of the text for a Chinese one ("账号密码", "密码本") — unless the name is
// about the topic rather than a record of one: "密码学笔记", "password-policy",
// "忘记密码", "密钥交换算法", "password-audit" hold no secret.
// With an empty keyword: whether the name is not about a topic.
bool NameHasKeyword(std::string_view name, std::string_view keyword) {
  static constexpr std::array<std::string_view, 46> kTopicsZh = {
      "学", "策略", "政策", "规则", "算法", "校验", "验证", "强度", "管理器", "生成器", "机制", "原理", "格式", "识别",
      "修改", "忘记", "忘了", "重置", "找回", "设置", "交换", "破解", "弱", "安全", "教程", "入门", "加密", "共享",
      "泄露", "审计", "暗号", "军训", "读取", "选购", "密码锁", "丢了", "怎么办", "补办", "读书", "达芬奇", "概念", "轮换", "流程", "过期", "提醒", "脱敏"};
  static constexpr std::array<std::string_view, 55> kTopicsEn = {
      "policy", "policies", "manager", "generator", "strength", "rules",   "hashing", "hash",    "reset",
      "validation", "validator", "checksum", "audit", "auditor", "scanning", "scanner", "sharing", "exchange",
      "forgot", "forgotten", "weak", "strong",  "cracking", "crack",   "guide",   "tutorial", "tips",
      "practices", "garden", "santa", "secretary", "management", "rotation", "hygiene", "simple", "random",
      "secure", "plugin", "meter", "checker", "check", "field", "input", "talk", "talks", "cmd", "command",
      "changed", "notice", "bin", "expired", "expiry", "handbook", "comparison", "review"};
  const std::vector<std::string_view> words = NameWords(name);
  for (std::string_view w : words) {
    if (std::find(kTopicsEn.begin(), kTopicsEn.end(), w) != kTopicsEn.end()) return false;
    if (static_cast<unsigned char>(w[0]) >= 0x80) {
      for (std::string_view t : kTopicsZh) {
        if (w.find(t) != std::string_view::npos) return false;
      }
    }
  }
  if (keyword.empty()) return true;  // no keyword asked for: the name is no topic
  if (static_cast<unsigned char>(keyword[0]) >= 0x80) return name.find(keyword) != std::string_view::npos;
  const std::vector<std::string_view> want = NameWords(keyword);
  for (size_t i = 0; i + want.size() <= words.size(); ++i) {
    if (std::equal(want.begin(), want.end(), words.begin() + static_cast<std::ptrdiff_t>(i))) return true;
  }
  return false;
}

}  // namespace

SensitiveRules SensitiveRules::Defaults() {
  SensitiveRules r;
  // Folders by their words: a folder of secrets is a secret whatever its notes say.
  r.path_components = {"secrets", "secret",   "credentials", "creds", "passwords", "private keys", "密码",
                       "机密",    "凭据",     "凭证",        "密钥",  "私密",   "口令", "敏感信息", "logins", "机敏", "敏感资料"};
  // File names that are records of secrets (a name alone is weak: "secret", "token" and a singular English
  // "password" name plugins, books and topics far more often than records).
  r.name_keywords = {"password", "passwords", "passwd", "credentials", "id_rsa", "id_ed25519", "private key",
                     "密码",     "口令",      "密钥",   "身份证",      "银行卡"};
  return r;
}

const std::vector<std::string>& ContentRuleIds() {
  static const std::vector<std::string> kIds = [] {
    std::vector<std::string> ids;
    for (const auto& r : kContentRules) ids.emplace_back(r.id);
    return ids;
  }();
  return kIds;
}

namespace {

// Text as the rules read it: its scan, and the scan of it with the line
// breaks that cut a number or a key in two removed (when there are any).
struct Scans {
  Scan scan;
  std::optional<Scan> joined;
  std::optional<Scan> unescaped;  // URL-encoded text decoded: a form post or an SSO link with JSON in it
  Scans(std::string_view text, bool with_zones) : scan(MakeScan(text, with_zones)) {
    std::string j = sensitive::JoinBrokenLines(scan.text);
    if (!j.empty()) joined = sensitive::ScanOf(std::move(j), with_zones);
    std::string u = sensitive::PercentDecoded(scan.text);
    if (!u.empty()) unescaped = sensitive::ScanOf(std::move(u), with_zones);
  }
  bool Hit(const ContentRule& r) const {
    return r.found(scan) || (joined && r.found(*joined)) || (unescaped && r.found(*unescaped));
  }
};

// The first content rule hit in text (the path's lines when is_path).
const ContentRule* FirstContentHit(std::string_view text, bool is_path, const SensitiveRules& rules) {
  const Scans scans(text, /*with_zones=*/!is_path);
  for (const ContentRule& r : kContentRules) {
    if (std::find(rules.disabled.begin(), rules.disabled.end(), r.id) != rules.disabled.end()) continue;
    if (scans.Hit(r)) return &r;
  }
  return nullptr;
}

// The line where rule's hit in content begins, found without touching the
// rules: the shortest run of leading lines that still hits ends on the hit's
// last line, and the latest first line from which that run still hits is
// where it begins (a PEM block or a wrapped key spans lines). The rules read
// only nearby context, so the run is first looked for in windows of about
// 32 KB overlapping by half (twice the text is scanned, then a few scans of
// one window), and in the whole text only when no window hits. Paid only
// for a file that is quarantined anyway.
int HitLine(std::string_view content, const ContentRule& rule) {
  std::vector<size_t> starts = {0};  // byte offset of each line
  for (size_t i = 0; i < content.size(); ++i) {
    if (content[i] == '\n' && i + 1 < content.size()) starts.push_back(i + 1);
  }
  const size_t n = starts.size();
  auto hits = [&](size_t first, size_t last) {  // lines [first, last), 0-based
    size_t begin = starts[first];
    size_t end = last < n ? starts[last] : content.size();
    return Scans(content.substr(begin, end - begin), /*with_zones=*/true).Hit(rule);
  };
  auto narrow = [&](size_t first, size_t last) {  // hits(first, last) holds
    size_t lo = first + 1, hi = last;             // hits(first, hi) holds
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (hits(first, mid)) hi = mid;
      else lo = mid + 1;
    }
    size_t begin = first, top = hi - 1;  // hits(begin, hi) holds
    while (begin < top) {
      size_t mid = begin + (top - begin + 1) / 2;
      if (hits(mid, hi)) begin = mid;
      else top = mid - 1;
    }
    return static_cast<int>(begin) + 1;
  };
  constexpr size_t kChunkBytes = 16 * 1024;
  std::vector<size_t> chunk = {0};  // first line of each chunk, then n
  for (size_t l = 1; l < n; ++l) {
    if (starts[l] - starts[chunk.back()] >= kChunkBytes) chunk.push_back(l);
  }
  chunk.push_back(n);
  const size_t chunks = chunk.size() - 1;
  for (size_t c = 0; c < chunks; ++c) {
    const size_t last = chunk[std::min(c + 2, chunks)];
    if (hits(chunk[c], last)) return narrow(chunk[c], last);
    if (c + 2 >= chunks) break;
  }
  return hits(0, n) ? narrow(0, n) : 0;
}

std::optional<SensitiveHit> FindSensitiveOrThrow(std::string_view path, std::string_view content,
                                                 const SensitiveRules& rules) {
  if (std::find(rules.allow.begin(), rules.allow.end(), path) != rules.allow.end()) return std::nullopt;
  auto disabled = [&](const std::string& id) {
    return std::find(rules.disabled.begin(), rules.disabled.end(), id) != rules.disabled.end();
  };
  // Names are compared folded, like the index compares titles: "ｐａｓｓｗｏｒｄ.md",
  // "pass\u200bword.md" and "我的密碼.md" are the names they look like.
  auto fold = [](std::string_view s) { return common::AsciiLower(Normalise(s)); };
  std::string lower = fold(path);
  // Folders: by their words, unless the note's own name says it is about the topic ("密钥/概念笔记.md").
  const size_t last_slash = lower.rfind('/');
  const bool topic_note = last_slash != std::string::npos && !NameHasKeyword(lower.substr(last_slash + 1), "");
  size_t start = 0;
  while (!topic_note) {
    size_t slash = lower.find('/', start);
    if (slash == std::string::npos) break;
    std::string dir = lower.substr(start, slash - start);
    for (const std::string& c : rules.path_components) {
      std::string id = "path:" + c;
      if (NameHasKeyword(dir, fold(c)) && !disabled(id)) return SensitiveHit{id, 0};
    }
    start = slash + 1;
  }
  std::string name = lower.substr(last_slash == std::string::npos ? 0 : last_slash + 1);
  // A note in a folder about a topic ("军训/口令.md", "学习/密码学.md") is about it too.
  const size_t parent = last_slash == std::string::npos || last_slash == 0 ? std::string::npos : lower.rfind('/', last_slash - 1);
  const bool topic_folder =
      last_slash != std::string::npos && last_slash > 0 &&
      !NameHasKeyword(lower.substr(parent == std::string::npos ? 0 : parent + 1,
                                   last_slash - (parent == std::string::npos ? 0 : parent + 1)),
                      "");
  for (const std::string& k : rules.name_keywords) {
    if (topic_folder) break;
    std::string id = "name:" + k;
    if (!disabled(id) && NameHasKeyword(name, fold(k))) return SensitiveHit{id, 0};
  }
  // Content signatures on the content, then on the path itself: a phone
  // number, a key or an ID number in a file or folder name is indexed as the
  // page's title. The path is scanned as lines of names, its extension dropped
  // so "13812345678.md" ends where the number ends.
  std::string names(path);
  size_t dot = names.rfind('.');
  if (dot != std::string::npos && names.find('/', dot) == std::string::npos) names.resize(dot);
  std::replace(names.begin(), names.end(), '/', '\n');
  // In rule order, as one scan: the first rule hitting either the body or the name.
  const ContentRule* body = FirstContentHit(content, false, rules);
  // A canvas holds its cards' Markdown in JSON strings, where a line break is
  // "\n" and any character may be a \u escape: the rules also read the text
  // the index reads (cards, labels, URLs and file paths), its lines numbered
  // in that text. A canvas that is not JSON is never indexed; its bytes were read.
  std::string canvas_text;
  if (body == nullptr && text::IsCanvasPath(path)) {
    if (auto canvas = text::ReadCanvas(path, content); canvas.ok()) {
      canvas_text = std::move(canvas->text);
      for (const std::string& file : canvas->files) canvas_text.append("\n").append(file);
      body = FirstContentHit(canvas_text, false, rules);
    }
  }
  const ContentRule* title = FirstContentHit(names, true, rules);
  if (body == nullptr && title == nullptr) return std::nullopt;
  if (title != nullptr && (body == nullptr || title < body)) return SensitiveHit{title->id, 0};
  return SensitiveHit{body->id, HitLine(canvas_text.empty() ? content : canvas_text, *body)};
}

}  // namespace

std::optional<SensitiveHit> FindSensitive(std::string_view path, std::string_view content,
                                          const SensitiveRules& rules) {
  // Fail closed: a file the rules could not read is kept out.
  try {
    return FindSensitiveOrThrow(path, content, rules);
  } catch (...) {
    return SensitiveHit{"scan_failed", 0};
  }
}

}  // namespace engram::sync
