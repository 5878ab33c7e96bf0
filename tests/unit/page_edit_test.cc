// Text edits of pages: each keeps the rest of the file byte for byte, reads
// back through the parser as intended, is idempotent, and refuses what it
// cannot write faithfully.
#include <gtest/gtest.h>

#include <algorithm>

#include "text/page_edit.h"
#include "text/page_parser.h"

namespace engram::text {
namespace {

Page Parse(const std::string& s) {
  auto p = ParsePage("notes/a.md", s);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p.ok() ? *p : Page{};
}

std::string Must(const Result<std::string>& r) {
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::string();
}

TEST(PageEdit, AddTagToEveryListForm) {
  // Flow list; a comment and the body stay as written.
  const std::string flow = "---\ntitle: A\ntags: [x, y]\n# kept\n---\nBody *as is*.\n";
  EXPECT_EQ(Must(AddTag("notes/a.md", flow, "新")), "---\ntitle: A\ntags: [x, y, 新]\n# kept\n---\nBody *as is*.\n");
  EXPECT_EQ(Must(AddTag("notes/a.md", "---\ntags: []\n---\nb\n", "x")), "---\ntags: [x]\n---\nb\n");
  // Block list at its own indentation.
  const std::string block = "---\ntags:\n    - x\n    - y\ntitle: A\n---\nb\n";
  const std::string added = Must(AddTag("notes/a.md", block, "z"));
  EXPECT_EQ(added, "---\ntags:\n    - x\n    - y\n    - z\ntitle: A\n---\nb\n");
  EXPECT_EQ(Parse(added).tags, (std::vector<std::string>{"x", "y", "z"}));
  // No tags field; no frontmatter at all.
  EXPECT_EQ(Must(AddTag("notes/a.md", "---\ntitle: A\n---\nb\n", "x")), "---\ntitle: A\ntags: [x]\n---\nb\n");
  EXPECT_EQ(Must(AddTag("notes/a.md", "Just text.\n", "x")), "---\ntags: [x]\n---\n\nJust text.\n");
  // Already there: unchanged.
  EXPECT_EQ(Must(AddTag("notes/a.md", flow, "x")), flow);
}

TEST(PageEdit, AddTagRefusals) {
  for (const char* bad : {"", "a b", "a,b", "[x]", "a:b", "#x", "a\nb", "x\"y"}) {
    EXPECT_EQ(AddTag("notes/a.md", "b\n", bad).status().code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_EQ(AddTag("notes/a.md", "b\n", std::string(65, 'a')).status().code(), StatusCode::kInvalidArgument);
  auto scalar = AddTag("notes/a.md", "---\ntags: solo\n---\nb\n", "x");
  ASSERT_FALSE(scalar.ok());
  EXPECT_NE(scalar.status().message().find("not as a list"), std::string::npos);
}

TEST(PageEdit, AddAliasesInEveryListFormQuotedWhenYamlNeedsIt) {
  auto flow = AddAliases("a.md", "---\ntitle: Ann\naliases: [A]\n---\nx\n", {"Ann", "a", "Ann Lee (old)", "X: Y"});
  ASSERT_TRUE(flow.ok()) << flow.status().ToString();
  EXPECT_EQ(*flow, "---\ntitle: Ann\naliases: [A, Ann Lee (old), \"X: Y\"]\n---\nx\n")
      << "the title and a known alias (any case) are not repeated";
  auto block = AddAliases("a.md", "---\naliases:\n  - A\n---\nx\n", {"老张"});
  ASSERT_TRUE(block.ok());
  EXPECT_EQ(*block, "---\naliases:\n  - A\n  - 老张\n---\nx\n");
  auto none = AddAliases("a.md", "x\n", {"B"});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, "---\naliases: [B]\n---\n\nx\n");
  auto parsed = ParsePage("a.md", *flow);
  ASSERT_TRUE(parsed.ok());
  EXPECT_NE(std::find(parsed->aliases.begin(), parsed->aliases.end(), "X: Y"), parsed->aliases.end());
  EXPECT_FALSE(AddAliases("a.md", "---\naliases: A\n---\nx\n", {"B"}).ok()) << "a scalar is not edited";
}

TEST(PageEdit, RewriteLinksKeepsHeadingsAndShownTextAndLeavesCode) {
  size_t n = 0;
  const std::string in =
      "---\nfounder: \"[[people/old]]\"\n---\nSee [[old]], [[people/old#Bio|Bio]] and ![[old]].\n"
      "Not [[other]] nor `[[old]]`.\n```\n[[old]]\n```\n";
  auto out = RewriteLinks(
      "notes/a.md", in, [](const std::string& t, const std::string&) { return t == "old" || t == "people/old"; },
      "people/new", &n);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out,
            "---\nfounder: \"[[people/new|people/old]]\"\n---\nSee [[people/new|old]], [[people/new#Bio|Bio]] and "
            "![[people/new|old]].\nNot [[other]] nor `[[old]]`.\n```\n[[old]]\n```\n");
  EXPECT_EQ(n, 4u);
  // The shown text is the caller's to test too (a split moves the links shown as a moved name).
  n = 0;
  auto shown = RewriteLinks(
      "notes/a.md", "[[people/li|Li Wei (Tencent)]] and [[people/li|Li Wei]] and [[people/li]]\n",
      [](const std::string& t, const std::string& label) { return t == "people/li" && label == "Li Wei (Tencent)"; },
      "people/li-t", &n);
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ(*shown, "[[people/li-t|Li Wei (Tencent)]] and [[people/li|Li Wei]] and [[people/li]]\n");
  EXPECT_EQ(n, 1u);
}

TEST(PageEdit, RemoveAliasesRewritesTheListWithoutThem) {
  // A block list, another key after it: the list becomes a flow list of what is left.
  const std::string block = "---\ntitle: Li Wei\naliases:\n  - Wei\n  - \"Li Wei: Tencent\"\n  - LW\nrole: CTO\n---\nx\n";
  EXPECT_EQ(Must(RemoveAliases("a.md", block, {"li wei: tencent"})),
            "---\ntitle: Li Wei\nrole: CTO\naliases: [Wei, LW]\n---\nx\n");
  // The last one gone: no key.
  EXPECT_EQ(Must(RemoveAliases("a.md", "---\naliases: [A]\ntype: person\n---\nx\n", {"A"})),
            "---\ntype: person\n---\nx\n");
  EXPECT_EQ(Must(RemoveAliases("a.md", "---\nalias: A\n---\nx\n", {"A"})), "---\n---\nx\n");
  EXPECT_EQ(Must(RemoveAliases("a.md", "x\n", {})), "x\n") << "nothing to remove";
  // Refusals name the problem.
  auto title = RemoveAliases("a.md", "---\ntitle: Li Wei\naliases: [W]\n---\nx\n", {"Li Wei"});
  EXPECT_NE(title.status().message().find("'Li Wei' is not an alias in the frontmatter of a.md"), std::string::npos);
  EXPECT_FALSE(RemoveAliases("a.md", "x\n", {"A"}).ok()) << "no frontmatter";
  EXPECT_FALSE(RemoveAliases("a.canvas", "{}", {"A"}).ok());
}

TEST(PageEdit, TakeSectionsCutsHeadingsToTheNextOfTheirLevel) {
  const std::string in =
      "---\ntitle: T\n---\n# T\nIntro.\n\n## At Tencent\nJoined.\n### Projects\nWeChat.\n```\n## not a heading\n```\n"
      "## At Alibaba\nOther.\n";
  auto cut = TakeSections("a.md", in, [](std::string_view h) { return h == "At Tencent"; });
  ASSERT_TRUE(cut.ok()) << cut.status().ToString();
  EXPECT_EQ(cut->first, "---\ntitle: T\n---\n# T\nIntro.\n\n## At Alibaba\nOther.\n");
  EXPECT_EQ(cut->second, "## At Tencent\nJoined.\n### Projects\nWeChat.\n```\n## not a heading\n```\n");
  // The timeline is not part of the last section.
  auto last = TakeSections("a.md", "## Merged from B\nText.\n\n<!-- timeline -->\n- **2020** | x\n",
                           [](std::string_view h) { return h.starts_with("Merged from "); });
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->first, "<!-- timeline -->\n- **2020** | x\n");
  EXPECT_EQ(last->second, "## Merged from B\nText.\n\n");
  // An H1 is never cut; nothing picked leaves the page as it was.
  auto none = TakeSections("a.md", in, [](std::string_view h) { return h == "T"; });
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->first, in);
  EXPECT_EQ(none->second, "");
}

TEST(PageEdit, AFactNoteIsACommentThatNamesTheOriginNeverTheValue) {
  const std::string out =
      Must(AddFact("people/a.md", "# A\n", "works_at", "[[companies/x]]", "", "", "llm gpt-4o 0.86 line 3"));
  EXPECT_EQ(out, "# A\n- fact: works_at: [[companies/x]] <!-- llm gpt-4o 0.86 line 3 -->\n");
  Page p = Parse(out);
  ASSERT_EQ(p.facts.size(), 1u);
  EXPECT_EQ(p.facts[0].value, "companies/x");  // a link's target, as every fact line gives it
  EXPECT_EQ(p.facts[0].origin, "llm gpt-4o 0.86 line 3");
  // Another comment is dropped from the value and leaves the origin alone.
  Page q = Parse("- fact: role: CTO <!-- checked -->\n");
  ASSERT_EQ(q.facts.size(), 1u);
  EXPECT_EQ(q.facts[0].value, "CTO");
  EXPECT_EQ(q.facts[0].origin, "fact");
  // The same fact with a note is the same fact: not written twice.
  EXPECT_EQ(Must(AddFact("people/a.md", out, "works_at", "[[companies/x]]", "", "", "llm other 0.9 line 4")), out);
  EXPECT_FALSE(AddFact("people/a.md", "# A\n", "role", "CTO", "", "", "a --> b").ok());
  EXPECT_FALSE(AddFact("people/a.md", "# A\n", "role", "CTO", "", "", "two\nlines").ok());
}

// Issue 32: a written line reads back as exactly the item reported — the
// injections a model followed (links and Dataview fields inside a text
// value), a tag, and Unicode line separators are refused with the reason.
TEST(PageEdit, AWrittenLineReadsBackAsWhatWasReportedAndNothingMore) {
  const std::string page = "# A\n";
  struct Refused {
    const char* predicate;
    const char* value;
    const char* why;
  };
  for (const Refused& r : std::vector<Refused>{
           {"role", "CEO [[companies/evil]] [[people/bob]]", "would read back as"},
           {"location", "Paris - works_at:: [[people/bob]]", "would read back as"},
           {"role", "CTO #evil", "would read back as"},
           {"role", "CTO [[people/bob|Bob]] and more", "would read back as"},
           {"role", "CTO\u2028- fact: role: CEO", "Unicode line or paragraph separator"},
           {"role", "CTO\u2029x", "Unicode line or paragraph separator"},
           {"role", "CTO\u0085x", "Unicode line or paragraph separator"},
       }) {
    auto out = AddFact("people/a.md", page, r.predicate, r.value, "", "", "");
    ASSERT_FALSE(out.ok()) << r.value << " was written as " << *out;
    EXPECT_NE(out.status().message().find(r.why), std::string::npos) << out.status().ToString();
  }
  // What plain values and a whole link write is what reads back.
  for (const auto& [predicate, value] : std::vector<std::pair<std::string, std::string>>{
           {"role", "CTO"}, {"works_at", "[[companies/acme]]"}, {"location", "Paris, France"}, {"role", "C# lead"}}) {
    auto out = AddFact("people/a.md", page, predicate, value, "2024", "", "");
    ASSERT_TRUE(out.ok()) << value << ": " << out.status().ToString();
    Page p = Parse(*out);
    ASSERT_EQ(p.facts.size(), 1u) << *out;
    EXPECT_EQ(p.facts[0].predicate, predicate);
    EXPECT_EQ(p.facts[0].valid_from, "2024");
  }
  // A timeline summary and source that hold a line separator are refused too.
  EXPECT_FALSE(AddTimelineEntry("notes/a.md", page, "2026-01-02", "Met\u2028- fact: role: CEO", "").ok());
  EXPECT_FALSE(AddTimelineEntry("notes/a.md", page, "2026-01-02", "Met", "a\u2029b").ok());
}

TEST(PageEdit, AddTimelineEntry) {
  const std::string with = "# A\nTruth.\n\n<!-- timeline -->\n\n- **2026-01-02** | First\n";
  const std::string out = Must(AddTimelineEntry("notes/a.md", with, "2026年4月7日", "Met [[people/b]]", "[[meetings/m]]"));
  EXPECT_EQ(out, with + "- **2026-04-07** | Met [[people/b]] [Source: [[meetings/m]]]\n");
  Page p = Parse(out);
  ASSERT_EQ(p.timeline_entries.size(), 2u);
  EXPECT_EQ(p.timeline_entries[1], (TimelineEntry{"2026-04-07", "Met [[people/b]]", "[[meetings/m]]", 7}));
  // A page without a timeline gets one.
  const std::string opened = Must(AddTimelineEntry("notes/a.md", "# A\nTruth.", "2026-05", "Launched", ""));
  EXPECT_EQ(opened, "# A\nTruth.\n\n<!-- timeline -->\n\n- **2026-05** | Launched\n");
  EXPECT_EQ(Parse(opened).compiled_truth, "# A\nTruth.");
  // Refusals.
  EXPECT_FALSE(AddTimelineEntry("notes/a.md", with, "yesterday", "x", "").ok());
  EXPECT_FALSE(AddTimelineEntry("notes/a.md", with, "2026-04-07 and more", "x", "").ok());
  EXPECT_FALSE(AddTimelineEntry("notes/a.md", with, "2026-04-07", "  ", "").ok());
  EXPECT_FALSE(AddTimelineEntry("notes/a.md", with, "2026-04-07", "two\nlines", "").ok());
  EXPECT_FALSE(AddTimelineEntry("notes/a.md", with, "2026-04-07", "x [Source: y]", "").ok());
  EXPECT_FALSE(AddTimelineEntry("notes/a.md", with, "2026-04-07", "x", "a]b").ok());
  EXPECT_FALSE(AddTimelineEntry("notes/a.md", with, "2026-04-07", std::string(2001, 'x'), "").ok());
}

TEST(PageEdit, AddLinkBeforeTheTimeline) {
  const std::string page = "---\ntitle: Ann\n---\n# Ann\nEngineer.\n\n\n## Timeline\n- **2026-01-02** | Joined\n";
  const std::string out = Must(AddLink("people/ann.md", page, "companies/acme", "works_at"));
  // The type is written as the Dataview field the parser types links by.
  EXPECT_EQ(out, "---\ntitle: Ann\n---\n# Ann\nEngineer.\n- works_at:: [[companies/acme]]\n\n\n## Timeline\n"
                 "- **2026-01-02** | Joined\n");
  Page p = Parse(out);
  bool found = false;
  for (const auto& l : p.links) found = found || (l.target == "companies/acme" && l.type == "works_at");
  EXPECT_TRUE(found);
  EXPECT_EQ(p.timeline_entries.size(), 1u);
  // Idempotent; the default type is "mentions"; without a timeline, at the end.
  EXPECT_EQ(Must(AddLink("people/ann.md", out, "companies/acme", "works_at")), out);
  EXPECT_EQ(Must(AddLink("people/ann.md", "# Ann", "people/bob", "")), "# Ann\n- See [[people/bob]]\n");
  // Types the body cannot say, and hostile targets.
  auto bad = AddLink("people/ann.md", page, "x", "married_to");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("works_at"), std::string::npos);
  for (const char* t : {"", "../x", "a]]b", "a|b", "a#b", "/abs"}) {
    EXPECT_FALSE(AddLink("people/ann.md", page, t, "mentions").ok()) << t;
  }
}

}  // namespace
}  // namespace engram::text
