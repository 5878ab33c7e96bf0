// Facts a page states (text/page_facts.h): what is read, from where, with
// which dates, and what is not a fact.
#include "text/page_facts.h"
#include "text/page_edit.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "text/page_parser.h"

namespace engram::text {
namespace {

std::vector<PageFact> FactsOf(std::string_view path, std::string_view content, std::vector<std::string>* warnings =
                                                                                     nullptr) {
  auto r = ParsePage(path, content);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok()) return {};
  if (warnings != nullptr) *warnings = r->warnings;
  return r->facts;
}

// "predicate=value[link]@from..until#line" for compact comparisons.
std::vector<std::string> Brief(const std::vector<PageFact>& facts) {
  std::vector<std::string> out;
  for (const PageFact& f : facts) {
    std::string s = (f.subject.empty() ? "" : f.subject + ".") + f.predicate + "=" + f.value +
                    (f.value_is_link ? "[link]" : "");
    if (!f.valid_from.empty() || !f.valid_until.empty()) s += "@" + f.valid_from + ".." + f.valid_until;
    s += "#" + std::to_string(f.line) + ":" + f.origin;
    out.push_back(s);
  }
  return out;
}

TEST(PageFacts, FrontmatterFieldsAreFactsWithTheirLines) {
  auto facts = FactsOf("people/li-wei.md",
                       "---\ntitle: Li Wei\ntype: person\nrole: CTO\ncompany: \"[[companies/星河智能]]\"\n"
                       "born: 1990-05-01\ntags: [ai]\nlocation: Shenzhen\n---\n\nBody.\n");
  EXPECT_EQ(Brief(facts), (std::vector<std::string>{"born=1990-05-01#6:frontmatter", "works_at=companies/星河智能[link]#5:frontmatter",
                                                    "location=Shenzhen#8:frontmatter", "role=CTO#4:frontmatter"}));
}

TEST(PageFacts, ListFieldsGiveOneFactEachAndChineseKeysMap) {
  auto facts = FactsOf("companies/x.md",
                       "---\nfounders: [\"[[people/a]]\", \"[[people/b]]\"]\n职位: 总经理\n公司: \"[[companies/y]]\"\n---\n");
  EXPECT_EQ(Brief(facts), (std::vector<std::string>{"founded_by=people/a[link]#2:frontmatter",
                                                    "founded_by=people/b[link]#2:frontmatter",
                                                    "works_at=companies/y[link]#4:frontmatter",
                                                    "role=总经理#3:frontmatter"}));
}

TEST(PageFacts, NoteFieldsAndPlainTextOfOtherFieldsAreNotFacts) {
  // A Web Clipper note: its author is text, not a person page, and its
  // source and dates describe the note.
  auto facts = FactsOf("clippings/article.md",
                       "---\ntitle: An article\nsource: https://example.com/a\nauthor: Jane Roe\n"
                       "published: 2024-01-02\ncreated: 2024-01-03\ntags: [clippings]\ndescription: text\n---\n\nBody\n");
  EXPECT_TRUE(facts.empty()) << ::testing::PrintToString(Brief(facts));
}

TEST(PageFacts, ADateFieldThatIsNoDateIsKeptAsTextWithAWarning) {
  std::vector<std::string> warnings;
  auto facts = FactsOf("people/x.md", "---\nborn: last spring\n---\n", &warnings);
  EXPECT_EQ(Brief(facts), (std::vector<std::string>{"born=last spring#2:frontmatter"}));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("line 2"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("not a date"), std::string::npos) << warnings[0];
}

TEST(PageFacts, FactLinesAndAFactsSectionWithDateQualifiers) {
  auto facts = FactsOf("people/x.md",
                       "# X\n\n- fact: role: CTO (since 2024-03)\n- not a fact: just a list item\n\n## Facts\n\n"
                       "- location: Berlin (2019 – 2023)\n- employer: [[companies/acme]] (until 2022-06)\n"
                       "- status: active (from March 2024 to 2025-01-31)\n\n## Notes\n\n- role: ignored here\n"
                       "\n## 事实\n\n- 所在地：上海（自2024年3月起）\n- 职位：顾问（2020年至2022年）\n"
                       "```\n- fact: role: in code\n```\n");
  EXPECT_EQ(Brief(facts), (std::vector<std::string>{
                              "role=CTO@2024-03..#3:fact", "location=Berlin@2019..2023#8:fact",
                              "works_at=companies/acme[link]@..2022-06#9:fact",
                              "status=active@2024-03..2025-01-31#10:fact", "location=上海@2024-03..#18:fact",
                              "role=顾问@2020..2022#19:fact"}));
}

TEST(PageFacts, ATrailingParenthesisWithoutDatesStaysInTheValue) {
  auto facts = FactsOf("people/x.md", "- fact: role: Engineer (backend)\n");
  EXPECT_EQ(Brief(facts), (std::vector<std::string>{"role=Engineer (backend)#1:fact"}));
}

TEST(PageFacts, TimelineLinesThatSayAChange) {
  auto facts = FactsOf("people/x.md",
                       "# X\n\n## Timeline\n\n"
                       "- **2019-02-01** | Joined [[companies/acme]] as Software Engineer\n"
                       "- **2021-06** | Promoted to Staff Engineer\n"
                       "- **2023-01-15** | Left [[companies/acme]]\n"
                       "- **2023-02** | Joined Globex as CTO, based in Berlin\n"
                       "- **2024** | Moved to [[places/lisbon]]\n"
                       "- **2024-06** | Moved to Porto to open the office\n"
                       "- **2026年3月** | 加入[[companies/星河智能]]担任 CTO\n"
                       "- **2026-05** | 升任首席技术官。\n"
                       "- **2026-06** | 搬到上海\n");
  EXPECT_EQ(Brief(facts), (std::vector<std::string>{
                              "works_at=companies/acme[link]@2019-02-01..#5:timeline",
                              "role=Software Engineer@2019-02-01..#5:timeline", "role=Staff Engineer@2021-06..#6:timeline",
                              "works_at=companies/acme[link]@..2023-01-15#7:timeline",
                              "works_at=Globex@2023-02..#8:timeline", "role=CTO@2023-02..#8:timeline",
                              "location=places/lisbon[link]@2024..#9:timeline", "location=Porto@2024-06..#10:timeline",
                              "works_at=companies/星河智能[link]@2026-03..#11:timeline",
                              "role=CTO@2026-03..#11:timeline", "role=首席技术官@2026-05..#12:timeline",
                              "location=上海@2026-06..#13:timeline"}));
}

TEST(PageFacts, TimelineLinesThatAreNoChange) {
  // Written the way notes are: none of these says a job, a role or a move.
  auto facts = FactsOf("meetings/x.md",
                       "# Notes\n\n## Timeline\n\n"
                       "- **2024-01-02** | Joined the call late\n"
                       "- **2024-01-03** | joined slack channel\n"
                       "- **2024-01-04** | It became clear that the index was stale\n"
                       "- **2024-01-05** | Became friends with the team\n"
                       "- **2024-01-06** | Left the meeting early\n"
                       "- **2024-01-07** | 加入讨论\n"
                       "- **2024-01-08** | 创建一些内部链接\n"
                       "- **2024-01-09** | Create a new note\n");
  EXPECT_TRUE(facts.empty()) << ::testing::PrintToString(Brief(facts));
}

}  // namespace
}  // namespace engram::text

namespace engram::text {
namespace {

TEST(PageFacts, SentencesStateRelationsWithTheirPatternAndTypeThePagesLinks) {
  auto r = ParsePage("people/ann.md",
                     "---\ntype: person\n---\nShe works at [[companies/acme]].\n"
                     "[[people/bob]] founded [[companies/beta]].\n"
                     "Acquired by [[companies/bigco]] in 2020.\n"
                     "```\n[[people/x]] works at [[companies/y]]\n```\n"
                     "## Facts\n- reports_to: [[people/bob]]\n\n## Timeline\n\n"
                     "- **2024-03** | Joined [[companies/acme]] as CTO\n"
                     "- **2025-01** | Spoke at [[events/summit]]\n");
  ASSERT_TRUE(r.ok());
  std::vector<std::string> brief = Brief(r->facts);
  std::vector<std::string> from_sentences;
  for (const std::string& b : brief) {
    if (b.find(":pattern:") != std::string::npos) from_sentences.push_back(b);
  }
  EXPECT_EQ(from_sentences, (std::vector<std::string>{
                                "works_at=companies/acme[link]#4:pattern:en.works_at",
                                "people/bob.founded=companies/beta[link]#5:pattern:en.founded",
                                "companies/bigco.acquired=people/ann[link]#6:pattern:en.acquired.by",
                                "attended=events/summit[link]@2025-01..#16:pattern:en.attended"}))
      << "code is no statement; a facts section and a timeline change the timeline reader took are not repeated";
  auto type_of = [&](const std::string& target) {
    std::vector<std::string> types;
    for (const PageLink& l : r->links) {
      if (l.target == target) types.push_back(l.type);
    }
    return types;
  };
  EXPECT_EQ(type_of("companies/acme"), (std::vector<std::string>{"works_at"}));
  EXPECT_EQ(type_of("events/summit"), (std::vector<std::string>{"attended"}));
  EXPECT_EQ(type_of("companies/beta"), (std::vector<std::string>{"mentions"})) << "bob's relation, not the page's";
}

TEST(AddFact, WritesAFactLineThatReadsBackBeforeTheTimeline) {
  const std::string page = "---\ntitle: X\n---\n\nX works here.\n\n## Timeline\n\n- **2024-01-02** | Met\n";
  auto out = AddFact("people/x.md", page, "role", "CTO", "2026-03", "");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, "---\ntitle: X\n---\n\nX works here.\n- fact: role: CTO (since 2026-03)\n\n## Timeline\n\n"
                  "- **2024-01-02** | Met\n");
  auto facts = FactsOf("people/x.md", *out);
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].valid_from, "2026-03");
  // Stated again: nothing changes.
  auto again = AddFact("people/x.md", *out, "role", "CTO", "2026年3月", "");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *out);
  // A link value, with both dates, on a page without a timeline.
  auto linked = AddFact("people/y.md", "Y.", "employer", "[[companies/acme]]", "2019", "2023-06");
  ASSERT_TRUE(linked.ok()) << linked.status().ToString();
  EXPECT_EQ(*linked, "Y.\n- fact: employer: [[companies/acme]] (2019 – 2023-06)\n");
  EXPECT_EQ(Brief(FactsOf("people/y.md", *linked)),
            (std::vector<std::string>{"works_at=companies/acme[link]@2019..2023-06#2:fact"}));
}

TEST(AddFact, RefusesWhatWouldNotReadBackOrIsNotOneLine) {
  const std::string page = "X.\n";
  auto code = [&](std::string_view p, std::string_view v, std::string_view from = "", std::string_view until = "") {
    return AddFact("people/x.md", page, p, v, from, until).status().code();
  };
  EXPECT_EQ(code("", "CTO"), StatusCode::kInvalidArgument);
  EXPECT_EQ(code("role", ""), StatusCode::kInvalidArgument);
  EXPECT_EQ(code("role: x", "CTO"), StatusCode::kInvalidArgument) << "a colon in the predicate";
  EXPECT_EQ(code("[[x]]", "CTO"), StatusCode::kInvalidArgument);
  EXPECT_EQ(code("role", "CTO\n- fact: role: CEO"), StatusCode::kInvalidArgument) << "two lines";
  EXPECT_EQ(code("role", std::string(201, 'a')), StatusCode::kInvalidArgument);
  EXPECT_EQ(code("role", "CTO", "soon"), StatusCode::kInvalidArgument);
  EXPECT_EQ(code("role", "CTO", "2026", "2020"), StatusCode::kInvalidArgument) << "ends before it begins";
  EXPECT_EQ(code("favourite_colour", "blue"), StatusCode::kInvalidArgument) << "not a fact predicate, no link";
  EXPECT_EQ(AddFact("Board.canvas", "{}", "role", "CTO", "", "").status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(AddFact("people/x.md", page, "favourite_colour", "[[colours/blue]]", "", "").ok());
}

}  // namespace
}  // namespace engram::text
