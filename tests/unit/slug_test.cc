#include "text/slug.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/utf8.h"

namespace engram::text {
namespace {

TEST(Slug, FromPathLowercasesAndDashesSpaces) {
  EXPECT_EQ(SlugFromPath("People/Zhang San.md"), "people/zhang-san");
  EXPECT_EQ(SlugFromPath("notes/My  Note v2.MD"), "notes/my-note-v2");
  EXPECT_EQ(SlugFromPath("notes/my-note - v2.md"), "notes/my-note-v2");
}

TEST(Slug, KeepsChineseLetters) {
  EXPECT_EQ(SlugFromPath("companies/星河智能.md"), "companies/星河智能");
  EXPECT_EQ(SlugFromPath("概念/中文 分词.md"), "概念/中文-分词");
}

TEST(Slug, DropsPunctuationBehindADisambiguatorAndDotComponents) {
  const std::string qa = SlugFromPath("ideas/Q&A: what now?.md");
  EXPECT_EQ(qa.substr(0, 19), "ideas/qa-what-now--") << qa;
  EXPECT_EQ(qa.size(), std::string("ideas/qa-what-now--").size() + 8) << qa;
  EXPECT_EQ(qa, SlugFromPath("ideas/q&a: WHAT  now?.md"));  // case and separators are the same name
  EXPECT_EQ(SlugFromPath("./a/../b.md"), "a/b");
  EXPECT_EQ(SlugFromPath("a//b.md"), "a/b");
}

TEST(Slug, AppliesNfc) {
  // "e" + combining acute accent becomes the single precomposed letter.
  EXPECT_EQ(SlugFromPath("Cafe\xCC\x81.md"), "caf\xC3\xA9");
}

// Regression: "C.md", "C++.md" and "C#.md" were one slug "c" (and "Note A.md" /
// "Note_A.md" one "note-a"): two of each were dropped as duplicates.
TEST(Slug, DistinctNamesGetDistinctSlugs) {
  const std::vector<std::string> names = {"C.md", "C++.md", "C#.md", "Note A.md", "Note_A.md", "Q&A.md", "QA.md",
                                          "Note.md", "Note..md", "v1.2.md", "v12.md", "a/b.md", "a-b.md", "🎉.md",
                                          "🎊.md", "x/🎉/y.md", "x/y.md"};
  std::set<std::string> slugs;
  for (const auto& n : names) {
    const std::string slug = SlugFromPath(n);
    EXPECT_FALSE(slug.empty()) << n;
    EXPECT_TRUE(slugs.insert(slug).second) << n << " -> " << slug;
  }
  EXPECT_EQ(SlugFromPath("C.md"), "c");
  EXPECT_EQ(SlugFromPath("Note_A.md"), "note_a");
  EXPECT_EQ(SlugFromPath("Note A.md"), "note-a");
}

// What makes two file names one name: letter case, Unicode form, and which
// separators (spaces, tabs, hyphens, ideographic spaces, how many) sit between
// the words. The key below folds exactly that away. A canvas is never a note
// of the same name.
std::string NameKey(std::string_view path) {
  std::string s = common::ToLower(common::NormalizeNfc(path));
  const bool canvas = s.size() > 7 && s.compare(s.size() - 7, 7, ".canvas") == 0;
  if (canvas) {
    s.resize(s.size() - 7);
  } else if (s.size() >= 3 && s.compare(s.size() - 3, 3, ".md") == 0) {
    s.resize(s.size() - 3);
  }
  std::string key;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = std::min(s.find('/', start), s.size());
    const std::string comp = s.substr(start, end - start);
    std::string out;
    bool sep = false;
    size_t i = 0;
    while (i < comp.size()) {
      size_t at = i;
      char32_t cp = common::DecodeUtf8(comp, &i);
      if (cp == ' ' || cp == '\t' || cp == '-' || cp == 0x3000) {
        sep = true;
        continue;
      }
      if (sep && !out.empty()) out.push_back(' ');
      sep = false;
      out.append(comp, at, i - at);
    }
    if (out.find_first_not_of('.') != std::string::npos) {  // "", "." and ".." name nothing
      if (!key.empty()) key.push_back('/');
      key += out;
    }
    start = end + 1;
  }
  if (canvas) key += "\n(a canvas)";
  return key;
}

// Property: on generated names, two paths share a slug exactly when they are
// the same name, and every slug passes the remote slug rules' alphabet. A
// quarter of the names are canvases ("x.canvas" beside "x.md").
TEST(Slug, IsInjectiveOnGeneratedNames) {
  const std::vector<std::string> pieces = {"a", "B", "c", "1", "2", "中", "文", "é", "e\xCC\x81", " ", "  ", "-",
                                           "_",  ".", "+", "#", "&", ":", "?", "(", ")", "'", "!", "🎉", "\t", "　",
                                           "/", "Ä", "ä", "ß", "canvas"};
  std::mt19937 rng(13);
  std::map<std::string, std::string> key_of_slug;
  size_t names = 0;
  for (int n = 0; n < 60000; ++n) {
    std::string name;
    const int len = 1 + static_cast<int>(rng() % 6);
    for (int k = 0; k < len; ++k) name += pieces[rng() % pieces.size()];
    name += rng() % 4 == 0 ? ".canvas" : ".md";
    const std::string slug = SlugFromPath(name);
    if (slug.empty()) continue;  // nothing but separators and dots: never a page
    ++names;
    const std::string key = NameKey(name);
    auto [it, fresh] = key_of_slug.emplace(slug, key);
    if (!fresh) {
      // Components that are only dots or empty vanish from both.
      EXPECT_EQ(it->second, key) << "'" << name << "' -> " << slug;
    }
    for (unsigned char ch : slug) {
      EXPECT_TRUE(ch >= 0x80 || std::isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '/') << slug;
    }
  }
  EXPECT_GT(names, 50000u);
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
