#include "sync/sensitive.h"

#include <gtest/gtest.h>

namespace engram::sync {
namespace {

std::string Hit(std::string_view path, std::string_view content) {
  auto r = FindSensitive(path, content, SensitiveRules::Defaults());
  return r ? *r : "";
}

TEST(Sensitive, PathComponentsAndFileNameKeywords) {
  EXPECT_EQ(Hit("secrets/aws.md", "hello"), "path:secrets");
  EXPECT_EQ(Hit("team/Credentials/x.md", "hello"), "path:credentials");
  EXPECT_EQ(Hit("mysecrets/x.md", "hello"), "") << "whole components only";
  EXPECT_EQ(Hit("notes/wifi-password.md", "hello"), "name:password");
  EXPECT_EQ(Hit("notes/我的密码.md", "hello"), "name:密码");
  EXPECT_EQ(Hit("people/张三身份证.md", "hi"), "name:身份证");
}

TEST(Sensitive, ContentSignatures) {
  const std::pair<const char*, const char*> hits[] = {
      {"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END", "pem_private_key"},
      {"-----BEGIN RSA PRIVATE KEY-----", "pem_private_key"},
      {"key sk-proj-abcdefghijklmnopqrstuvwx", "api_key_sk"},
      {"OPENROUTER=sk-or-v1-0123456789abcdef0123", "api_key_sk"},
      {"aws AKIAIOSFODNN7EXAMPLE here", "aws_access_key"},
      {"token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github_token"},
      {"github_pat_11ABCDEFG0123456789_abcdefghij", "github_token"},
      {"slack xoxb-1234567890-abcdefghij", "slack_token"},
      {"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt"},
      {"db password = hunter2hunter", "secret_assignment"},
      {"api_key: 'Zx81kLm2'", "secret_assignment"},
      {"数据库密码：Abc12345", "secret_assignment"},
      {"postgres://admin:s3cret@db.example.com/app", "url_credentials"},
      {"身份证号 11010519491231002X 请保密", "cn_resident_id"},
      {"id 440301199003071230.", "cn_resident_id"},
      {"手机 13812345678，随时联系", "cn_mobile"},
      {"Contact 13812345678.", "cn_mobile"},  // regression: a sentence-ending period hid it
      {"card 4111 1111 1111 1111 exp 12/28", "card_number"},
      {"card 4111-1111-1111-1111", "card_number"},
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
      "Call 1234567 or 23812345678",                         // not a mobile number
      "ISBN 978-7-111-12345-6 and version 1.13812345678",
      "Use https://example.com/a:b@c for docs",              // no credentials before the host
      "card 4111 1111 1111 1112",                            // Luhn fails
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
}

}  // namespace
}  // namespace engram::sync
