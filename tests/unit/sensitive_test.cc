#include "sync/sensitive.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/utf8.h"

namespace engram::sync {
namespace {

namespace fs = std::filesystem;

std::string Hit(std::string_view path, std::string_view content) {
  auto r = FindSensitive(path, content, SensitiveRules::Defaults());
  return r ? r->rule : "";
}

TEST(Sensitive, PathComponentsAndFileNameKeywords) {
  EXPECT_EQ(Hit("secrets/aws.md", "hello"), "path:secrets");
  EXPECT_EQ(Hit("team/Credentials/x.md", "hello"), "path:credentials");
  EXPECT_EQ(Hit("mysecrets/x.md", "hello"), "") << "whole components only";
  EXPECT_EQ(Hit("notes/wifi-password.md", "hello"), "name:password");
  // Issue 33: names by whole words, and not a name about the topic.
  EXPECT_EQ(Hit("my-secrets/bank.md", "hello"), "path:secrets");
  EXPECT_EQ(Hit("Secrets-2024/tax.md", "hello"), "path:secrets");
  EXPECT_EQ(Hit("账号密码/游戏.md", "hello"), "path:密码");
  EXPECT_EQ(Hit("学习/密码学/RSA.md", "hello"), "") << "a folder about the topic";
  for (const char* name : {"plugins/password-audit.md", "plugins/simple-password.md", "reading/The Secret Garden.md",
                           "people/ring-a-secretary.md", "生活/忘记密码.md", "学习/密钥交换算法.md", "学习/弱口令.md",
                           "学习/MySQL/修改root密码.md"}) {
    EXPECT_EQ(Hit(name, "hello"), "") << name;
  }
  EXPECT_EQ(Hit("notes/我的密码.md", "hello"), "name:密码");
  EXPECT_EQ(Hit("people/张三身份证.md", "hi"), "name:身份证");
}

TEST(Sensitive, ContentSignatures) {
  const std::pair<const char*, const char*> hits[] = {
      {"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END", "pem_private_key"},
      {"-----BEGIN RSA PRIVATE KEY-----", "pem_private_key"},
      {"key sk-proj-abcdefghijklmnopqrstuvwx", "api_key_sk"},
      {"OPENROUTER=sk-or-v1-0123456789abcdef0123", "api_key_sk"},
      {"aws AKIA2E0A8F3B244C9986 here", "aws_access_key"},
      {"token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github_token"},
      {"github_pat_11ABCDEFG0123456789_abcdefghij", "github_token"},
      {"slack xoxb-1234567890-abcdefghij", "slack_token"},
      {"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt"},
      {"db password = hunter2hunter", "secret_assignment"},
      {"api_key: 'Zx81kLm2'", "secret_assignment"},
      {"数据库密码：Abc12345", "secret_assignment"},
      {"postgres://admin:s3cret@db.example.com/app", "url_credentials"},
      {"身份证号 11010519491231010X 请保密", "cn_resident_id"},
      {"id 440301199003071230.", "cn_resident_id"},
      {"手机 13812345678，随时联系", "cn_mobile"},
      {"Contact 13812345678.", "cn_mobile"},  // regression: a sentence-ending period hid it
      {"card 4666 1760 3137 2159 exp 12/28", "card_number"},
      {"card 4666-1760-3137-2159", "card_number"},
  };
  for (const auto& [text, rule] : hits) EXPECT_EQ(Hit("notes/a.md", text), rule) << text;
}

TEST(Sensitive, OrdinaryTextDoesNotTrip) {
  const char* clean[] = {
      "We discussed the password policy for next quarter.",  // no assignment
      "password: see vault",                                 // value too short
      "The sk-learn library and task-tracker",               // no long token after sk-
      "Revenue grew 140% to 12345678901234 yuan",            // 14 digits but Luhn fails / not a card prefix
      "ID 110105194912310021 has a wrong check digit",
      "Call 1234567 or 23812345678",  // not a mobile number
      "ISBN 978-7-111-12345-6 and version 1.13812345678",
      "Use https://example.com/a:b@c for docs",  // no credentials before the host
      "card 4111 1111 1111 1112",                // Luhn fails
      "-----BEGIN PUBLIC KEY-----",
      "张三的电话不公开。",
  };
  for (const char* text : clean) EXPECT_EQ(Hit("notes/a.md", text), "") << text;
}

TEST(Sensitive, AllowListAndDisabledRules) {
  SensitiveRules r = SensitiveRules::Defaults();
  r.allow = {"notes/contacts.md"};
  EXPECT_FALSE(FindSensitive("notes/contacts.md", "手机 13812345678", r));
  EXPECT_TRUE(FindSensitive("notes/other.md", "手机 13812345678", r));
  r.disabled = {"cn_mobile"};
  EXPECT_FALSE(FindSensitive("notes/other.md", "手机 13812345678", r));
  EXPECT_FALSE(FindSensitive("people/李四 13912345678.md", "hi", r)) << "a disabled rule is off for names too";
}

// Issue 12 item 8: the index folds text, so the rules must see folded text.
TEST(Sensitive, RulesSeeTheTextTheIndexSees) {
  // Full-width forms, as a Chinese input method types them.
  EXPECT_EQ(Hit("notes/a.md", "手机：１３８１２３４５６７８"), "cn_mobile");
  EXPECT_EQ(Hit("notes/a.md", "ＡＫＩＡＬ５Ｐ６Ａ６Ｑ２Ｓ６ＩＩＦＢＳ０"), "aws_access_key");
  EXPECT_EQ(Hit("notes/a.md", "ｐａｓｓｗｏｒｄ＝ｈｕｎｔｅｒ２ｈｕｎｔｅｒ"), "secret_assignment");
  // Zero-width spaces and soft hyphens inside the secret or the key word.
  EXPECT_EQ(Hit("notes/a.md", "联系人 138\u200b1234\u200b5678"), "cn_mobile");
  EXPECT_EQ(Hit("notes/a.md", "证件号码 31011519870512\u00ad2016"), "cn_resident_id");
  EXPECT_EQ(Hit("notes/a.md", "pass\u200bword = Hunter2Hunter"), "secret_assignment");
  EXPECT_EQ(Hit("notes/a.md", "ghp_gSlLiCUyqxzH\u00adbrs5F5kiWVHIR1U7qvnwswLP"), "github_token");
  // Traditional Chinese folds to Simplified, in content and in names.
  EXPECT_EQ(Hit("notes/a.md", "密碼：Taipei101!"), "secret_assignment");
  EXPECT_EQ(Hit("notes/我的密碼.md", "hi"), "name:密码");
  EXPECT_EQ(Hit("Accounts/ｐａｓｓｗｏｒｄｓ/bank.md", "hi"), "path:passwords");
}

TEST(Sensitive, CommonWrittenFormsAreCaught) {
  const std::pair<const char*, const char*> hits[] = {
      {"李雷 +86-137-1234-5678", "cn_mobile"},
      {"mobile +86 138 1234 5678", "cn_mobile"},
      {"电话：139-0123-4567", "cn_mobile"},
      {"Call me at +8613912345678 after 6pm.", "cn_mobile"},
      {"手机 13612345678 2024年加的微信", "cn_mobile"},  // a year after the number
      {"房东身份证号码 3201 0219 8511 2204 19", "cn_resident_id"},
      {"户主 330106.19780815.3627", "cn_resident_id"},
      {"4367.4200.1234.5673 (the blue one)", "card_number"},
      {"Amex 3787 590828 07343", "card_number"},
      {"PGPASSWORD=Tr0ub4dor&3 psql -h db", "secret_assignment"},
      {"'password' => 'S3cure!Pass',", "secret_assignment"},
      {"家里 WiFi 密码是hx20190618，客人来了直接给。", "secret_assignment"},
      {"初始密码为：Qwe@2024，首次登录后修改。", "secret_assignment"},
      {"| 密码 | Rt#5566aa |", "secret_assignment"},
      {"my Gmail password is Summer2024!", "secret_assignment"},
      {"redis://:S3cretRedis@cache.internal:6379/0", "url_credentials"},
  };
  for (const auto& [text, rule] : hits) EXPECT_EQ(Hit("notes/a.md", text), rule) << text;
}

TEST(Sensitive, SecretsSplitAcrossLinesAreCaught) {
  EXPECT_EQ(Hit("notes/a.md", "Password:\n  Gx7!mK29qa"), "secret_assignment");
  EXPECT_EQ(Hit("notes/a.md", "服务器 root 密码：\nRoot@2024xyz"), "secret_assignment");
  EXPECT_EQ(Hit("notes/a.md", "key:\nsk-proj-Y8qOtK2DLzwsXLwH\nAEkQICAt4xdRiItIzo54"), "api_key_sk");
  EXPECT_EQ(Hit("notes/a.md", "AKIA8XAHSRJN\nTB1SQ74B"), "aws_access_key");
  EXPECT_EQ(Hit("notes/a.md", "-----BEGIN RSA PRIVATE\nKEY-----"), "pem_private_key");
  EXPECT_EQ(Hit("notes/a.md",
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.\neyJ1aWQiOjQyLCJyb2xlIjoiYWRtaW4ifQ."
                "\nk2m9qXr7sT5uW1yA4cE6gI8kM0oQ2sU4wY6"),
            "jwt");
  // A YAML key whose value is a nested mapping is not an assignment.
  EXPECT_EQ(Hit("notes/a.md", "password:\n  type: string\n  minLength: 12"), "");
}

TEST(Sensitive, SecretsInFileAndFolderNamesAreCaught) {
  EXPECT_EQ(Hit("people/李四 13912345678.md", "李四，前同事。"), "cn_mobile");
  EXPECT_EQ(Hit("people/张三 210202197612300587.md", "同学"), "cn_resident_id");
  EXPECT_EQ(Hit("aws/AKIA8XAHSRJNTB1SQ74B/readme.md", "sandbox"), "aws_access_key");
  EXPECT_EQ(Hit("finance/招行 6225 8801 2345 6783.md", "账单"), "card_number");
  EXPECT_EQ(Hit("daily/20250609035719.md", "hi"), "") << "a timestamp-named note";
  EXPECT_EQ(Hit("zettel/202506090357 Caching.md", "hi"), "");
}

// Issue 13 item 1: the rules look at context.
TEST(Sensitive, AttachmentNamesAndTimestampsAreNotCards) {
  EXPECT_EQ(Hit("daily/a.md", "![[Pasted image 20250609035719.png]]"), "");
  EXPECT_EQ(Hit("daily/a.md", "![image-20220115075019776](assets/image-20220115075019776.png)"), "");
  EXPECT_EQ(Hit("daily/a.md", "<img src=\"assets/image-20220115080233125.png\" style=\"zoom:50%;\" />"), "");
  EXPECT_EQ(Hit("daily/a.md", "mmexport1749441439776.jpg and 微信图片_20250609035719.jpg"), "");
  // A Luhn-valid Visa-prefixed 16-digit run with no grouping and no card word
  // is a post id, not a card; with a card word, or grouped, it is a card.
  EXPECT_EQ(Hit("daily/a.md", "weibo mid 4666176031372159"), "");
  EXPECT_EQ(Hit("daily/a.md", "Visa 4666176031372159"), "card_number");
  EXPECT_EQ(Hit("daily/a.md", "储蓄卡：6225880123456783"), "card_number");
  EXPECT_EQ(Hit("daily/a.md", "4666 1760 3137 2159"), "card_number");
  // The card networks' documented test numbers are examples, never someone's card.
  EXPECT_EQ(Hit("daily/a.md", "Visa test card 4111 1111 1111 1111"), "");
  EXPECT_EQ(Hit("daily/a.md", "Stripe: 4242 4242 4242 4242"), "");
  // Part of a longer row of groups, or a progression of numbers: not a card.
  EXPECT_EQ(Hit("daily/a.md", "00000000: 4111 1111 1111 1111 2000 1000 0800 01c1"), "");
  EXPECT_EQ(Hit("daily/a.md", "ports 3000 3001 3002 3003"), "");
  // Digits inside a URL are ids.
  EXPECT_EQ(Hit("daily/a.md", "https://item.jd.com/100012043978.html https://weibo.com/1/13812345678"), "");
}

TEST(Sensitive, CredentialsInUrlsDependOnTheLink) {
  // A CDN's token/sig on an image is not an account secret.
  EXPECT_EQ(Hit("a.md", "![](https://cdn.example.net/img/flow.png?token=5f2a9c&sig=3f8a9c1d7e2b4a6f)"), "");
  EXPECT_EQ(Hit("a.md", "![hero](https://img.example.com/h.jpg?token=a8f3b2c19d7e4f60b5a1c3d8e9f7a2b4c6d1e0f9)"), "");
  EXPECT_EQ(Hit("a.md", "<img src=\"https://x.example.com/a/b~tplv.image?token=8f14e45fceea167a5a36dedd4bea2543\" />"),
            "");
  // The key id of a pre-signed S3 URL is not a leaked key.
  EXPECT_EQ(
      Hit("a.md", "https://s3.amazonaws.com/b/x.pdf?X-Amz-Credential=AKIAT73L2G45EIPT3X45%2F20220115%2Fus-west-2"), "");
  // A short token on an article link is a session marker.
  EXPECT_EQ(Hit("a.md", "https://mp.weixin.qq.com/s?__biz=MzA3&mid=2649812345&token=1234567890&lang=zh_CN"), "");
  // A long random credential parameter on a non-image link is a secret.
  EXPECT_EQ(Hit("a.md", "https://api.example.com/v2/orders?format=csv&access_token=9bX4kLm2Qp7RzT5vW8yN3cF6"),
            "secret_assignment");
  // user:password@host is a credential wherever it is; documentation placeholders are not.
  EXPECT_EQ(Hit("a.md", "![](https://bob:Pa55w0rd9@img.example.com/a.png)"), "url_credentials");
  EXPECT_EQ(Hit("a.md", "DATABASE_URL: postgres://user:password@localhost:5432/mydb"), "");
  EXPECT_EQ(Hit("a.md", "mongodb://<username>:<password>@cluster0.example.mongodb.net/"), "");
}

TEST(Sensitive, AssignmentsNeedASecretLookingValue) {
  const char* clean[] = {
      "POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}",
      "POSTGRES_PASSWORD_FILE: /run/secrets/db_password",
      "token: ${{ secrets.GITHUB_TOKEN }}",
      "password: <your-password>",
      "api_key: YOUR_API_KEY",
      "max_tokens: 4096",
      "pad_token: \"[PAD]\"",
      "token = tokens[0]",
      "secret_key = os.environ[\"SECRET_KEY\"]",
      "password = getpass.getpass()",
      "Token: expires in 3600 seconds",
      "Password: required",
      "密钥：AES-256",
      "密码是否需要定期更换？",
      "| password | string | 是 | 用户密码 |",
      "color-token: #ff6600",
      "Secretary: Jennifer",
  };
  for (const char* text : clean) EXPECT_EQ(Hit("notes/a.md", text), "") << text;
}

// Any bytes in, an answer out: no exception, and a pathological file (long
// lines of link, key and assignment openers that never close) is scanned to
// the end. Its speed is a benchmark's business (bench/sensitive_bench), not
// a timed test's: sanitizer builds run several times slower.
TEST(Sensitive, ArbitraryInputIsSafe) {
  const char* pieces[] = {"[[",          "]]",          "](",   ")",    "![",   "<img ",    ">",      "://",
                          "https",       ".png",        ".",    "-",    " ",    "\n",       "sk-",    "AKIA",
                          "eyJ",         "password",    "密码", "是",   ":",    "=",        "`",      "'",
                          "|",           "0",           "13",   "4111", "\xff", "\xe5\xaf", "\u200b", "x",
                          "-----BEGIN ", "data:image/", "?",    "&",    "token"};
  uint32_t seed = 12345;
  auto next = [&] { return seed = seed * 1103515245u + 12345u; };
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    size_t n = next() % 40;
    for (size_t k = 0; k < n; ++k) text += pieces[(next() >> 8) % std::size(pieces)];
    EXPECT_NO_THROW(FindSensitive(text, text, SensitiveRules::Defaults())) << text;
  }
  std::string big;
  for (const char* p : {"[[", "sk-", "password=", "https://", "-----BEGIN ", "1 ", "`"}) {
    std::string line;
    while (line.size() < 100000) line += p;
    big += line + "\n";
  }
  EXPECT_NO_THROW(FindSensitive("notes/big.md", big, SensitiveRules::Defaults()));
}

// Issue 13: `status` and `get` say where a file was caught — the line, never
// the content; a hit in the path or name is line 0.
TEST(Sensitive, AHitNamesTheLineWhereItBegins) {
  auto line = [](std::string_view path, std::string_view content) {
    auto r = FindSensitive(path, content, SensitiveRules::Defaults());
    return r ? r->line : -1;
  };
  EXPECT_EQ(line("notes/a.md", "# Servers\n\nplain text\npassword = \"Sup3rS3cr3t!x9\"\nmore\n"), 4);
  EXPECT_EQ(line("notes/a.md", "password = \"Sup3rS3cr3t!x9\""), 1);
  EXPECT_EQ(line("notes/a.md", "a\r\nb\r\n手机 13812345678\r\n"), 3);
  std::string pem = "intro\n\n-----BEGIN RSA PRIVATE KEY-----\n";
  for (int i = 0; i < 5; ++i) pem += std::string(64, 'A') + "\n";
  pem += "-----END RSA PRIVATE KEY-----\n";
  EXPECT_EQ(line("notes/a.md", pem), 3) << "a block begins at its first line";
  EXPECT_EQ(line("secrets/a.md", "hello"), 0);
  EXPECT_EQ(line("people/李四 13912345678.md", "hi"), 0);
  EXPECT_EQ(line("notes/a.md", "nothing here\n"), -1);
}

// ---------------------------------------------------------------------------
// The corpora: tests/fixtures/sensitive/planted.tsv (rule, path, content per
// line) and tests/fixtures/sensitive/negative/ (ordinary notes; the path under
// negative/ is the note's path in the vault).
// ---------------------------------------------------------------------------

fs::path CorpusDir() { return fs::path(ENGRAM_SOURCE_DIR) / "tests" / "fixtures" / "sensitive"; }

std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out.push_back(s[i]);
      continue;
    }
    char c = s[++i];
    if (c == 'n') {
      out.push_back('\n');
    } else if (c == 't') {
      out.push_back('\t');
    } else if (c == 'u' && i + 4 < s.size()) {
      common::AppendUtf8(static_cast<char32_t>(std::stoul(std::string(s.substr(i + 1, 4)), nullptr, 16)), &out);
      i += 4;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

struct Case {
  std::string rule, path, content;
};

std::vector<Case> Planted() {
  std::vector<Case> cases;
  std::ifstream in(CorpusDir() / "planted.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t a = line.find('\t');
    size_t b = line.find('\t', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    cases.push_back({line.substr(0, a), Unescape(line.substr(a + 1, b - a - 1)), Unescape(line.substr(b + 1))});
  }
  return cases;
}

std::vector<Case> Negative() {
  std::vector<Case> notes;
  fs::path root = CorpusDir() / "negative";
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    notes.push_back({"", fs::relative(e.path(), root).generic_string(), ss.str()});
  }
  std::sort(notes.begin(), notes.end(), [](const Case& a, const Case& b) { return a.path < b.path; });
  return notes;
}

bool HasHan(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    if (common::IsHan(common::DecodeUtf8(s, &i))) return true;
  }
  return false;
}

TEST(SensitiveCorpus, CatchesThePlantedSecrets) {
  std::vector<Case> cases = Planted();
  ASSERT_GE(cases.size(), 100u);
  size_t chinese = std::count_if(cases.begin(), cases.end(), [](const Case& c) { return HasHan(c.path + c.content); });
  EXPECT_GE(chinese, 40u) << "Chinese contexts";
  EXPECT_GE(cases.size() - chinese, 40u) << "English contexts";
  size_t caught = 0;
  std::string missed;
  for (const Case& c : cases) {
    if (FindSensitive(c.path, c.content, SensitiveRules::Defaults())) {
      ++caught;
    } else {
      missed += "\n  " + c.rule + "  " + c.path;
    }
  }
  EXPECT_GE(caught * 100, cases.size() * 97) << caught << "/" << cases.size() << " caught; missed:" << missed;
  EXPECT_EQ(caught, cases.size()) << "missed:" << missed;
}

// Each planted case is caught by the rule it was written for, with every other rule off.
TEST(SensitiveCorpus, EachPlantedSecretIsCaughtByItsOwnRule) {
  for (const Case& c : Planted()) {
    SensitiveRules r = SensitiveRules::Defaults();
    if (c.rule == "path" || c.rule == "name") {
      r.disabled = ContentRuleIds();
      auto hit = FindSensitive(c.path, c.content, r);
      EXPECT_TRUE(hit && hit->rule.rfind(c.rule + ":", 0) == 0) << c.path << " got " << (hit ? hit->rule : "nothing");
      continue;
    }
    r.path_components.clear();
    r.name_keywords.clear();
    for (const std::string& id : ContentRuleIds()) {
      if (id != c.rule) r.disabled.push_back(id);
    }
    EXPECT_TRUE(FindSensitive(c.path, c.content, r)) << c.rule << " missed " << c.path;
  }
}

TEST(SensitiveCorpus, OrdinaryNotesAreNotQuarantined) {
  std::vector<Case> notes = Negative();
  ASSERT_GE(notes.size(), 25u);
  for (const Case& n : notes) {
    auto hit = FindSensitive(n.path, n.content, SensitiveRules::Defaults());
    EXPECT_FALSE(hit) << n.path << " tripped " << hit->rule;
  }
}

// ---------------------------------------------------------------------------
// The held-out corpus (tests/fixtures/sensitive/heldout/README.md), written
// from outside the rules and split before any rule saw it: the development
// half is what rules are tuned on (its misses are printed); the test half is
// only ever counted — its cases are never printed, so it keeps measuring.
// ---------------------------------------------------------------------------

struct HeldoutCase {
  std::string kind, path, secret, content;
};

std::vector<HeldoutCase> Heldout(const std::string& file) {
  std::vector<HeldoutCase> cases;
  std::ifstream in(CorpusDir() / "heldout" / file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    for (size_t start = 0;;) {
      const size_t tab = line.find('\t', start);
      cols.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    if (cols.size() != 4) continue;
    cases.push_back({cols[0], Unescape(cols[1]), Unescape(cols[2]), Unescape(cols[3])});
  }
  return cases;
}

struct HeldoutScore {
  size_t planted = 0, caught = 0, ordinary = 0, flagged = 0;
  std::string missed, false_positives;  // filled for the development half only
};

HeldoutScore ScoreHeldout(const std::string& planted, const std::string& ordinary, bool show) {
  HeldoutScore s;
  for (const HeldoutCase& c : Heldout(planted)) {
    ++s.planted;
    if (FindSensitive(c.path, c.content, SensitiveRules::Defaults())) {
      ++s.caught;
    } else if (show) {
      s.missed += "\n  " + c.kind + "  " + c.path;
    }
  }
  for (const HeldoutCase& c : Heldout(ordinary)) {
    ++s.ordinary;
    if (auto hit = FindSensitive(c.path, c.content, SensitiveRules::Defaults())) {
      ++s.flagged;
      if (show) s.false_positives += "\n  " + c.kind + "  " + c.path + "  (" + hit->rule + ")";
    }
  }
  return s;
}

TEST(SensitiveHeldout, DevelopmentHalf) {
  const HeldoutScore s = ScoreHeldout("dev.tsv", "negative_dev.tsv", /*show=*/true);
  ASSERT_GE(s.planted, 150u);
  ASSERT_GE(s.ordinary, 80u);
  std::printf("held-out development half: %zu/%zu planted secrets caught, %zu/%zu ordinary notes flagged%s%s\n",
              s.caught, s.planted, s.flagged, s.ordinary, s.missed.empty() ? "" : "\nmissed:", s.missed.c_str());
  EXPECT_GE(s.caught * 100, s.planted * 97) << "missed:" << s.missed;
  EXPECT_EQ(s.flagged, 0u) << "flagged:" << s.false_positives;
}

// A second development batch (dev2.tsv), written later by another outsider in
// forms the first did not use: what the rules are tuned on to generalise.
TEST(SensitiveHeldout, SecondDevelopmentBatch) {
  const HeldoutScore s = ScoreHeldout("dev2.tsv", "negative_dev2.tsv", /*show=*/true);
  ASSERT_GE(s.planted, 200u);
  ASSERT_GE(s.ordinary, 100u);
  std::printf("held-out second development batch: %zu/%zu planted secrets caught, %zu/%zu ordinary notes flagged%s%s\n",
              s.caught, s.planted, s.flagged, s.ordinary, s.missed.empty() ? "" : "\nmissed:", s.missed.c_str());
  EXPECT_GE(s.caught * 100, s.planted * 97) << "missed:" << s.missed;
  EXPECT_EQ(s.flagged, 0u) << "flagged:" << s.false_positives;
}

// A third development batch (dev3.tsv), written by another outsider in forms and
// tools neither earlier batch used. Its first score, before any rule looked at
// it, is in docs/PERFORMANCE.md.
TEST(SensitiveHeldout, ThirdDevelopmentBatch) {
  const HeldoutScore s = ScoreHeldout("dev3.tsv", "negative_dev3.tsv", /*show=*/true);
  ASSERT_GE(s.planted, 200u);
  ASSERT_GE(s.ordinary, 100u);
  std::printf("held-out third development batch: %zu/%zu planted secrets caught, %zu/%zu ordinary notes flagged%s%s%s%s\n",
              s.caught, s.planted, s.flagged, s.ordinary, s.missed.empty() ? "" : "\nmissed:", s.missed.c_str(),
              s.false_positives.empty() ? "" : "\nflagged:", s.false_positives.c_str());
  EXPECT_GE(s.caught * 100, s.planted * 97) << "missed:" << s.missed;
  // One left on purpose: Nacos's published default token key, which the note itself calls public.
  EXPECT_LE(s.flagged, 1u) << "flagged:" << s.false_positives;
}

// Counted, never shown: a failure names no case (look at the development half).
TEST(SensitiveHeldout, TestHalfIsOnlyCounted) {
  const HeldoutScore s = ScoreHeldout("test.tsv", "negative_test.tsv", /*show=*/false);
  ASSERT_GE(s.planted, 150u);
  ASSERT_GE(s.ordinary, 80u);
  std::printf("held-out test half: %zu/%zu planted secrets caught, %zu/%zu ordinary notes flagged\n", s.caught,
              s.planted, s.flagged, s.ordinary);
  // The target is 97 % and no ordinary note flagged (issue 32); the gate holds what the rules reach today
  // (docs/PERFORMANCE.md) so that no change takes it back, and rises as they improve.
  EXPECT_GE(s.caught, 173u) << "recall on the held-out test half went down";
  EXPECT_LE(s.flagged, 3u) << "more ordinary notes of the held-out test half flagged";
}

}  // namespace
}  // namespace engram::sync
