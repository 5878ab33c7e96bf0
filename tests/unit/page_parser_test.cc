#include "text/page_parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/files.h"

namespace engram::text {
namespace {

Page MustParse(std::string_view path, std::string_view content) {
  auto r = ParsePage(path, content);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : Page{};
}

TEST(PageParser, ReadsFrontmatterFields) {
  Page p = MustParse("people/zhang-san.md",
                     "---\ntitle: 张三\ntype: person\ntags: [founder, ai]\naliases:\n  - Zhang San\n"
                     "visibility: private\n---\n\nBody text.\n");
  EXPECT_EQ(p.title, "张三");
  EXPECT_EQ(p.type, "person");
  EXPECT_EQ(p.tags, (std::vector<std::string>{"founder", "ai"}));
  // The file name is a name of the page too.
  EXPECT_EQ(p.aliases, (std::vector<std::string>{"Zhang San", "zhang-san"}));
  EXPECT_TRUE(p.is_private);
  EXPECT_EQ(p.compiled_truth, "Body text.");
  EXPECT_EQ(p.compiled_truth_line, 10);
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_NE(p.frontmatter_json.find("\"title\":\"张三\""), std::string::npos);
}

TEST(PageParser, TagsMayBeACommaString) {
  Page p = MustParse("a.md", "---\ntags: alpha, beta，伽马\n---\nx\n");
  EXPECT_EQ(p.tags, (std::vector<std::string>{"alpha", "beta", "伽马"}));
}

// Regression (issue 13, item 5): the first H1 was the title, so in a real
// vault 71% of titles differed from the file name and typing a note's name
// rarely found it. The file name is now always a name of the page.
TEST(PageParser, TitleIsFrontmatterThenFileNameAndTheHeadingIsAnAlias) {
  Page fm = MustParse("x/File Name.md", "---\ntitle: FM\n---\n# Heading\n");
  EXPECT_EQ(fm.title, "FM");
  EXPECT_EQ(fm.aliases, (std::vector<std::string>{"File Name", "Heading"}));
  Page h1 = MustParse("x/File Name.md", "intro\n\n# Heading\n");
  EXPECT_EQ(h1.title, "File Name");
  EXPECT_EQ(h1.aliases, (std::vector<std::string>{"Heading"}));
  Page same = MustParse("x/File Name.md", "# File Name\n");
  EXPECT_EQ(same.title, "File Name");
  EXPECT_TRUE(same.aliases.empty());
  EXPECT_EQ(MustParse("x/File Name.md", "no heading\n").title, "File Name");
  EXPECT_EQ(MustParse("x/a.md", "```\n# not a title\n```\n").title, "a");
}

TEST(PageParser, TitleFromTheHeadingWhenConfigured) {
  ParseOptions heading{TitleSource::kHeading};
  auto p = ParsePage("x/File Name.md", "intro\n\n# Heading\n", heading);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->title, "Heading");
  EXPECT_EQ(p->aliases, (std::vector<std::string>{"File Name"}));
  auto none = ParsePage("x/File Name.md", "no heading\n", heading);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->title, "File Name");
  auto fm = ParsePage("x/File Name.md", "---\ntitle: FM\n---\n# Heading\n", heading);
  ASSERT_TRUE(fm.ok());
  EXPECT_EQ(fm->title, "FM");
}

// Regression: five notes of a real vault were titled "前言", others carried
// raw [[links]] or `code` in their titles.
TEST(PageParser, TitlesArePlainText) {
  ParseOptions heading{TitleSource::kHeading};
  auto title = [&](std::string_view content) {
    auto p = ParsePage("notes/n.md", content, heading);
    return p.ok() ? p->title : std::string("(error)");
  };
  EXPECT_EQ(title("# [[Rust]] 学习笔记\n"), "Rust 学习笔记");
  EXPECT_EQ(title("# [[notes/Rust|Rust 语言]] 笔记\n"), "Rust 语言 笔记");
  EXPECT_EQ(title("# The `engram get` command\n"), "The engram get command");
  EXPECT_EQ(title("# See [the docs](https://example.com) ##\n"), "See the docs");
  EXPECT_EQ(title("# ![logo](logo.png) Engram\n"), "logo Engram");
  EXPECT_EQ(title("---\ntitle: \"`C++` and [[C#]]\"\n---\nx\n"), "C++ and C#");
  EXPECT_EQ(PlainTitle("a [b] c"), "a [b] c");
  EXPECT_EQ(PlainTitle("``x ` y``"), "x ` y");
  Page p = MustParse("书/深入理解计算机系统.md", "# 前言\n\n正文\n");
  EXPECT_EQ(p.title, "深入理解计算机系统");
  EXPECT_EQ(p.aliases, (std::vector<std::string>{"前言"}));
}

TEST(PageParser, TypePrecedenceIsFrontmatterThenDirectoryThenNote) {
  EXPECT_EQ(MustParse("people/x.md", "---\ntype: Company\n---\n").type, "company");
  EXPECT_EQ(MustParse("people/x.md", "text").type, "person");
  EXPECT_EQ(MustParse("meetings/x.md", "text").type, "meeting");
  EXPECT_EQ(MustParse("misc/x.md", "text").type, "note");
}

TEST(PageParser, SlugComesFromPathOrFrontmatter) {
  EXPECT_EQ(MustParse("People/Zhang San.md", "x").slug, "people/zhang-san");
  EXPECT_EQ(MustParse("a.md", "---\nslug: Custom/Place\n---\nx").slug, "custom/place");
}

TEST(PageParser, SplitsOnEachSeparatorForm) {
  for (const char* sep : {"<!-- timeline -->", "<!--timeline-->", "--- timeline ---", "## Timeline", "## History",
                          "## 时间线"}) {
    Page p = MustParse("a.md", std::string("truth\n\n") + sep + "\n\n- **2026-04-07** | event\n");
    EXPECT_EQ(p.compiled_truth, "truth") << sep;
    EXPECT_EQ(p.timeline, "- **2026-04-07** | event") << sep;
    ASSERT_EQ(p.timeline_entries.size(), 1u) << sep;
    EXPECT_EQ(p.timeline_entries[0].line, 5) << sep;
  }
}

TEST(PageParser, BareRuleIsNeverASeparator) {
  Page p = MustParse("a.md", "---\ntitle: t\n---\nabove\n\n---\n\nbelow\n");
  EXPECT_EQ(p.compiled_truth, "above\n\n---\n\nbelow");
  EXPECT_TRUE(p.timeline.empty());
  EXPECT_TRUE(p.timeline_separator.empty());
}

TEST(PageParser, SeparatorInsideCodeFenceIsIgnored) {
  Page p = MustParse("a.md", "```\n<!-- timeline -->\n```\nafter\n");
  EXPECT_TRUE(p.timeline_separator.empty());
}

TEST(PageParser, TimelineEntriesInEnglishAndChinese) {
  Page p = MustParse("a.md",
                     "x\n<!-- timeline -->\n"
                     "- **2026-04-07** | Met Alice [Source: notes]\n"
                     "- 2026年4月8日：签约 [来源：合同]\n"
                     "- **April 9, 2026** — launched\n"
                     "- not a dated line\n"
                     "* 2026/4/10 - shipped\n");
  ASSERT_EQ(p.timeline_entries.size(), 4u);
  EXPECT_EQ(p.timeline_entries[0], (TimelineEntry{"2026-04-07", "Met Alice", "notes", 3}));
  EXPECT_EQ(p.timeline_entries[1], (TimelineEntry{"2026-04-08", "签约", "合同", 4}));
  EXPECT_EQ(p.timeline_entries[2].date, "2026-04-09");
  EXPECT_EQ(p.timeline_entries[2].summary, "launched");
  EXPECT_EQ(p.timeline_entries[3].date, "2026-04-10");
}

// Regression: a source that is a wiki link left "]]" at the end of the summary.
TEST(PageParser, TimelineSourceMayBeAWikiLink) {
  Page p = MustParse("a.md",
                     "x\n<!-- timeline -->\n"
                     "- **2026-03-12** | 主持 A 轮融资会议，[[companies/qingsong]] 领投 [Source: [[meetings/series-a]]]\n"
                     "- **2026-04-07** | Kickoff [Source: [[meetings/kickoff|the kickoff]]] (remote)\n"
                     "- **2026-04-08** | Unclosed [Source: [[meetings/x]]\n");
  ASSERT_EQ(p.timeline_entries.size(), 3u);
  EXPECT_EQ(p.timeline_entries[0].summary, "主持 A 轮融资会议，[[companies/qingsong]] 领投");
  EXPECT_EQ(p.timeline_entries[0].source, "[[meetings/series-a]]");
  EXPECT_EQ(p.timeline_entries[1].summary, "Kickoff (remote)");
  EXPECT_EQ(p.timeline_entries[1].source, "[[meetings/kickoff|the kickoff]]");
  // No closing bracket: the line stays as written.
  EXPECT_EQ(p.timeline_entries[2].summary, "Unclosed [Source: [[meetings/x]]");
  EXPECT_EQ(p.timeline_entries[2].source, "");
}

TEST(PageParser, ExtractsLinksOfEveryForm) {
  Page p = MustParse("notes/a.md",
                     "---\ncompany: \"[[companies/acme]]\"\nrelated: [ideas/x]\n---\n"
                     "See [[people/zhang-san]] and [[People/Li Wei|Li]]; also [b](../concepts/B%20c.md#part),\n"
                     "not [web](https://example.com/x.md) nor [page](other).\n"
                     "She works at [[companies/星河智能]].\n");
  auto find = [&](const std::string& target) -> const PageLink* {
    for (const auto& l : p.links) {
      if (l.target == target) return &l;
    }
    return nullptr;
  };
  ASSERT_NE(find("people/zhang-san"), nullptr);
  ASSERT_NE(find("people/li-wei"), nullptr);
  EXPECT_EQ(find("people/li-wei")->label, "Li");
  ASSERT_NE(find("concepts/b-c"), nullptr);
  ASSERT_NE(find("companies/acme"), nullptr);
  EXPECT_EQ(find("companies/acme")->type, "works_at");
  // Plain text in frontmatter names no page; a sentence about the page types
  // its link (text/page_relations.h), a plain mention stays "mentions".
  EXPECT_EQ(find("ideas/x"), nullptr);
  ASSERT_NE(find("companies/星河智能"), nullptr);
  EXPECT_EQ(find("companies/星河智能")->type, "works_at");
  EXPECT_EQ(find("people/zhang-san")->type, "mentions");
  EXPECT_EQ(p.links.size(), 5u);
}

TEST(PageParser, MarkdownLinkAboveTheRootIsIgnored) {
  Page p = MustParse("a.md", "[x](../../outside.md)\n");
  EXPECT_TRUE(p.links.empty());
}

TEST(PageParser, InvalidFrontmatterIsAWarningAndTheBodyIsKept) {
  Page p = MustParse("people/x.md", "---\ntitle: [unclosed\n---\n# Real Title\nbody\n");
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("invalid YAML"), std::string::npos);
  EXPECT_EQ(p.title, "x");
  EXPECT_EQ(p.aliases, (std::vector<std::string>{"Real Title"}));
  EXPECT_EQ(p.type, "person");
  EXPECT_EQ(p.compiled_truth, "# Real Title\nbody");
}

TEST(PageParser, UnclosedFrontmatterIsReadAsBody) {
  Page p = MustParse("a.md", "---\ntitle: x\nbody without closing fence\n");
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.compiled_truth.find("body without"), std::string::npos);
}

TEST(PageParser, NonMappingFrontmatterIsAWarning) {
  Page p = MustParse("a.md", "---\n- a\n- b\n---\nbody\n");
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_EQ(p.compiled_truth, "body");
}

TEST(PageParser, RejectsNonUtf8AndBinaryContent) {
  auto bad = ParsePage("a.md", "ok\xC3\x28");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("a.md: not valid UTF-8 at byte 2"), std::string::npos);
  auto nul = ParsePage("b.md", std::string("a\0b", 3));
  ASSERT_FALSE(nul.ok());
  EXPECT_NE(nul.status().message().find("NUL"), std::string::npos);
}

TEST(PageParser, HandlesEmptyAndCrlfInput) {
  Page empty = MustParse("a.md", "");
  EXPECT_TRUE(empty.compiled_truth.empty());
  Page crlf = MustParse("a.md", "---\r\ntitle: T\r\n---\r\nline one\r\n<!-- timeline -->\r\n- 2026-01-02 | x\r\n");
  EXPECT_EQ(crlf.title, "T");
  EXPECT_EQ(crlf.compiled_truth, "line one");
  EXPECT_EQ(crlf.timeline_entries.size(), 1u);
}

// Regression (found by the fuzz target): a body-only page starting with a
// "---" rule after blank lines read back as frontmatter after serialising.
TEST(PageParser, SerializingARuleFirstBodyDoesNotCreateFrontmatter) {
  for (const char* input : {"\n---\na\n---\n", "\n\xEF\xBB\xBF---\nx\n---\ny\n", "\n--- \nb\n---\n",
                            "\n\xEF\xBB\xBF%"}) {
    Page first = MustParse("a.md", input);
    std::string once = SerializePage(first);
    Page second = MustParse("a.md", once);
    EXPECT_FALSE(second.has_frontmatter) << input;
    EXPECT_EQ(first.compiled_truth, second.compiled_truth) << input;
    EXPECT_EQ(SerializePage(second), once) << input;
  }
}

// Regression (fuzz): "x\r\r\r\n" lost one carriage return per round trip.
TEST(PageParser, RepeatedCarriageReturnsSurviveARoundTrip) {
  Page first = MustParse("a.md", "line\r\r\r\nnext\r\n");
  EXPECT_EQ(first.compiled_truth, "line\nnext");
  EXPECT_EQ(MustParse("a.md", SerializePage(first)).compiled_truth, first.compiled_truth);
}

void ExpectSameFields(const Page& a, const Page& b, const std::string& where) {
  EXPECT_EQ(a.slug, b.slug) << where;
  EXPECT_EQ(a.title, b.title) << where;
  EXPECT_EQ(a.type, b.type) << where;
  EXPECT_EQ(a.tags, b.tags) << where;
  EXPECT_EQ(a.aliases, b.aliases) << where;
  EXPECT_EQ(a.is_private, b.is_private) << where;
  EXPECT_EQ(a.frontmatter_json, b.frontmatter_json) << where;
  EXPECT_EQ(a.compiled_truth, b.compiled_truth) << where;
  EXPECT_EQ(a.timeline_separator, b.timeline_separator) << where;
  EXPECT_EQ(a.timeline, b.timeline) << where;
  EXPECT_EQ(a.links, b.links) << where;
  EXPECT_EQ(a.warnings, b.warnings) << where;
  ASSERT_EQ(a.timeline_entries.size(), b.timeline_entries.size()) << where;
  for (size_t i = 0; i < a.timeline_entries.size(); ++i) {
    EXPECT_EQ(a.timeline_entries[i].date, b.timeline_entries[i].date) << where;
    EXPECT_EQ(a.timeline_entries[i].summary, b.timeline_entries[i].summary) << where;
    EXPECT_EQ(a.timeline_entries[i].source, b.timeline_entries[i].source) << where;
  }
}

// Regression (red team): frontmatter nested deep enough to exhaust the
// stack, aliases that expand exponentially, and an oversized block are a
// warning on the page, never a crash; the body is still indexed.
TEST(PageParser, HostileFrontmatterIsAWarningNotACrash) {
  auto warned = [](const std::string& frontmatter, const std::string& why) {
    auto page = ParsePage("notes/x.md", "---\n" + frontmatter + "\n---\nbody words here\n");
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    EXPECT_NE(page->compiled_truth.find("body words"), std::string::npos);
    bool found = false;
    for (const auto& w : page->warnings) found = found || w.find(why) != std::string::npos;
    EXPECT_TRUE(found) << why;
  };
  warned("a: " + std::string(100000, '[') + std::string(100000, ']'), "nested deeper");
  warned("a: " + std::string(200, '{') + std::string(200, '}'), "nested deeper");
  std::string laughs = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    const std::string n = std::to_string(i), prev = std::to_string(i - 1);
    laughs.append("l").append(n).append(": &l").append(n).append(" [");  // appends: GCC 12's -Wrestrict
    for (int k = 0; k < 10; ++k) laughs.append(k ? ", " : "").append("*l").append(prev);
    laughs += "]\n";
  }
  warned(laughs, "values");
  warned("big: \"" + std::string(300 * 1024, 'x') + "\"", "over the limit");
  // Quoted brackets and comments are not nesting.
  auto ok = ParsePage("notes/y.md", "---\ntitle: \"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\" # [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n---\nx\n");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->title, "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[");
  // YAML escapes that decode to bytes outside UTF-8 never throw.
  auto escaped = ParsePage("notes/z.md", "---\ntitle: \"a\\_b\\Nc\\x85\"\n---\nx\n");
  ASSERT_TRUE(escaped.ok());
}

// Regression (issue 13): yaml-cpp 0.7 decodes "\N" and "\_" to the lone
// bytes 0x85 and 0xA0; the title, tags and frontmatter JSON then held invalid
// UTF-8, and every JSON dump of the page aborted (the Obsidian Help vault's
// Romanian and Bengali pages). Every YAML escape decodes to its code point.
TEST(PageParser, YamlEscapesDecodeToTheirCodePoints) {
  Page p = MustParse("ro/x.md",
                     "---\ntitle: \"a\\_b\\Nc\\Ld\\Pe\\x85f\\u00A0g\\U0001F600\"\n"
                     "tags: [\"x\\_y\"]\n\"k\\_ey\": \"v\\N\"\n---\nbody\n");
  EXPECT_EQ(p.title, "a\u00A0b\u0085c\u2028d\u2029e\u0085f\u00A0g\U0001F600");
  EXPECT_EQ(p.tags, (std::vector<std::string>{"x\u00A0y"}));
  auto fm = nlohmann::json::parse(p.frontmatter_json);  // throws on invalid UTF-8
  EXPECT_EQ(fm["k\u00A0ey"], "v\u0085");
  EXPECT_EQ(fm["title"], p.title);
}

TEST(PageParser, ParseThenSerializeIsStableOverTheSampleVault) {
  namespace fs = std::filesystem;
  fs::path vault = fs::path(ENGRAM_SOURCE_DIR) / "examples" / "vault";
  int pages = 0;
  for (const auto& e : fs::recursive_directory_iterator(vault)) {
    if (e.path().extension() != ".md") continue;
    std::string rel = fs::relative(e.path(), vault).generic_string();
    auto content = common::ReadFile(e.path());
    ASSERT_TRUE(content.ok());
    Page first = MustParse(rel, *content);
    EXPECT_TRUE(first.warnings.empty()) << rel;
    std::string once = SerializePage(first);
    Page second = MustParse(rel, once);
    ExpectSameFields(first, second, rel);
    EXPECT_EQ(SerializePage(second), once) << rel;
    ++pages;
  }
  EXPECT_GE(pages, 35);
}

}  // namespace
}  // namespace engram::text
