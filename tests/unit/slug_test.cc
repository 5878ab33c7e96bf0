#include "text/slug.h"

#include <gtest/gtest.h>

namespace engram::text {
namespace {

TEST(Slug, FromPathLowercasesAndDashesSpaces) {
  EXPECT_EQ(SlugFromPath("People/Zhang San.md"), "people/zhang-san");
  EXPECT_EQ(SlugFromPath("notes/My  Note_v2.MD"), "notes/my-note-v2");
}

TEST(Slug, KeepsChineseLetters) {
  EXPECT_EQ(SlugFromPath("companies/星河智能.md"), "companies/星河智能");
  EXPECT_EQ(SlugFromPath("概念/中文 分词.md"), "概念/中文-分词");
}

TEST(Slug, DropsPunctuationAndDotComponents) {
  EXPECT_EQ(SlugFromPath("ideas/Q&A: what now?.md"), "ideas/qa-what-now");
  EXPECT_EQ(SlugFromPath("./a/../b.md"), "a/b");
  EXPECT_EQ(SlugFromPath("a//b.md"), "a/b");
}

TEST(Slug, AppliesNfc) {
  // "e" + combining acute accent becomes the single precomposed letter.
  EXPECT_EQ(SlugFromPath("Cafe\xCC\x81.md"), "caf\xC3\xA9");
}

TEST(SlugValidation, AcceptsOrdinarySlugs) {
  EXPECT_TRUE(ValidateSlugInput("people/zhang-san").ok());
  EXPECT_TRUE(ValidateSlugInput("companies/星河智能").ok());
}

TEST(SlugValidation, RejectsHostileInput) {
  const char* bad[] = {"", "../etc/passwd", "a/../../b", "/abs/path", "a\\b", "a/./b", "a//b", "..",
                       "ok/..", "tab\there"};
  for (const char* s : bad) EXPECT_FALSE(ValidateSlugInput(s).ok()) << s;
  EXPECT_FALSE(ValidateSlugInput(std::string("a\0b", 3)).ok());
  EXPECT_FALSE(ValidateSlugInput(std::string(256, 'a')).ok());
  EXPECT_FALSE(ValidateSlugInput("bad\xFFutf8").ok());
  EXPECT_EQ(ValidateSlugInput("../x").code(), StatusCode::kInvalidArgument);
}

TEST(Slug, TypeFromDirectory) {
  EXPECT_EQ(TypeFromSlug("people/x"), "person");
  EXPECT_EQ(TypeFromSlug("companies/x"), "company");
  EXPECT_EQ(TypeFromSlug("meetings/2026/x"), "meeting");
  EXPECT_EQ(TypeFromSlug("random/x"), "");
  EXPECT_EQ(TypeFromSlug("toplevel"), "");
}

}  // namespace
}  // namespace engram::text
