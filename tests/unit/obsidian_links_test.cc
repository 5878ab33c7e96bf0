// Links, embeds and tags as Obsidian reads them (issue 13, items 8-10): the
// parser on lines real vaults hold, the resolution rule, and a brain over the
// fixture vault tests/fixtures/obsidian-links.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "engram/brain.h"
#include "test_support.h"
#include "text/page_links.h"
#include "text/page_parser.h"
#include "ops/page_module.h"
#include "ops/search_module.h"
#include "ops/sync_module.h"

namespace engram {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

Page MustParse(std::string_view path, std::string_view content) {
  auto r = text::ParsePage(path, content);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : Page{};
}

// "target type" per link, sorted.
std::set<std::string> Links(const Page& p) {
  std::set<std::string> out;
  for (const PageLink& l : p.links) out.insert(l.target + " " + l.type);
  return out;
}

TEST(ObsidianLinks, ATaskOrCalloutWithAMarkdownLinkAfterTheWikiLinkKeepsIt) {
  // The '[' of "[ ]" / "[!tip]" used to run to the "](" of the later
  // Markdown link, swallowing the wiki link between them.
  Page p = MustParse("daily/2024-03-01.md",
                     "- [ ] read [[Clean Code]] from [site](https://example.com)\n"
                     "> [!tip] Try [[Zettelkasten]] or [git](https://git-scm.com)\n"
                     "- [x] [[Done Thing]] and [docs](<Docs Page.md>)\n");
  EXPECT_EQ(Links(p), (std::set<std::string>{"clean-code mentions", "zettelkasten mentions", "done-thing mentions",
                                             "docs-page mentions"}));
}

TEST(ObsidianLinks, MarkdownLinksNameFilesWithSpacesInAngleBrackets) {
  Page p = MustParse("notes/a.md",
                     "[x](<Note name.md>) [y](Other%20Note.md \"title\") [z](./Sub/Third.md) [w](Not a page)\n");
  EXPECT_EQ(Links(p), (std::set<std::string>{"note-name mentions", "other-note mentions", "notes/sub/third mentions"}));
}

TEST(ObsidianLinks, EmbedsOfFilesAreAttachmentsNotPageLinks) {
  Page p = MustParse("notes/a.md",
                     "![[banner.png]] ![mockup](attachments/mockup%20v2.png) [[spec.pdf#page=2]]\n"
                     "![[Other Note]] ![[Other Note#Section]] ![remote](https://example.com/a.png)\n");
  EXPECT_EQ(Links(p), (std::set<std::string>{"banner.png attachment", "attachments/mockup v2.png attachment",
                                             "spec.pdf attachment", "other-note mentions"}));
}

TEST(ObsidianLinks, LinksAreTypedOnlyByExplicitStructure) {
  Page p = MustParse("clippings/article.md",
                     "---\n"
                     "author: 李哈利 (Harry)\n"
                     "company: Acme\n"
                     "owner: \"[[People/Li Hali]]\"\n"
                     "related:\n  - \"[[Ideas/Graphs]]\"\n  - plain words\n"
                     "investors: [[Fund One]]\n"
                     "---\n"
                     "他在去年创建了 [[Design System]] 的第一版。\n"
                     "Zhang San founded [[Acme]] and works at [[Other Co]].\n"
                     "company:: [[Acme Corp]]\n"
                     "- Works at:: [[Globex]]\n"
                     "Met at the fair [attended:: [[Expo 2024]]] with std::vector [[Cpp]].\n");
  EXPECT_EQ(Links(p), (std::set<std::string>{"people/li-hali owner", "ideas/graphs related", "fund-one invested_by",
                                             "design-system mentions", "acme mentions", "other-co mentions",
                                             "acme-corp works_at", "globex works_at", "expo-2024 attended",
                                             "cpp mentions"}));
}

TEST(ObsidianTags, InlineTagsAsObsidianDefinesThem) {
  Page p = MustParse("notes/a.md",
                     "---\ntags: [\"#Reading\", later]\n---\n"
                     "# Heading is not a tag\n"
                     "#project and #Nested/Tag, #中文标签。 #2024 #y2024 #reading\n"
                     "Not `#in-code`, not [[Note#Heading]], not https://example.com/#frag, not [a](#anchor),\n"
                     "not a#b, not \\#escaped.\n"
                     "```\n#in-fence\n```\n"
                     "## Section #in-heading\n");
  EXPECT_EQ(p.tags, (std::vector<std::string>{"Reading", "later", "project", "Nested/Tag", "中文标签", "y2024",
                                              "in-heading"}));
}

TEST(ObsidianTags, MatchingIgnoresCaseAndReachesNestedTags) {
  EXPECT_TRUE(text::TagMatches("Project", "#project"));
  EXPECT_TRUE(text::TagMatches("project/Web", "PROJECT"));
  EXPECT_TRUE(text::TagMatches("中文标签", "#中文标签"));
  EXPECT_FALSE(text::TagMatches("projects", "project"));
  EXPECT_FALSE(text::TagMatches("project", "project/web"));
  EXPECT_EQ(text::NormalizeTag("#123"), "");
  EXPECT_EQ(text::NormalizeTag("#a/"), "a");
}

TEST(ObsidianLinks, ByNameTheSameFolderWinsThenTheShortestPath) {
  const std::vector<text::LinkCandidate> pages = {
      {1, "projects/templates"}, {2, "areas/templates"}, {3, "archive/2023/templates"}, {4, "templates-old"}};
  EXPECT_EQ(text::ChooseByName("templates", "projects", pages), 1);
  EXPECT_EQ(text::ChooseByName("templates", "archive/2023", pages), 3);
  EXPECT_EQ(text::ChooseByName("templates", "", pages), 2);  // shortest path
  EXPECT_EQ(text::ChooseByName("2023/templates", "", pages), 3);
  EXPECT_EQ(text::ChooseByName("other/templates", "", pages), std::nullopt);
}

class FixtureVault : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path() / "vault";
    fs::copy(fs::path(ENGRAM_SOURCE_DIR) / "tests" / "fixtures" / "obsidian-links", root_,
             fs::copy_options::recursive);
    ASSERT_TRUE(Brain::Init(root_).ok());
    auto b = Brain::Open(root_);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    brain_ = std::move(b).value();
    auto r = brain_->Module<ops::SyncModule>().Import(ctx_, root_, false);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  // "from type" per backlink, sorted.
  std::set<std::string> Back(std::string_view slug) {
    auto r = brain_->Module<ops::PageModule>().Backlinks(ctx_, slug);
    EXPECT_TRUE(r.ok()) << slug << ": " << r.status().ToString();
    std::set<std::string> out;
    if (r.ok()) {
      for (const LinkRecord& l : *r) out.insert(l.from_slug + " " + l.type);
    }
    return out;
  }

  std::set<std::string> Tagged(std::string tag) {
    ListFilter f;
    f.tag = std::move(tag);
    auto r = brain_->Module<ops::PageModule>().List(ctx_, f);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::set<std::string> out;
    if (r.ok()) {
      for (const PageSummary& p : *r) out.insert(p.slug);
    }
    return out;
  }

  TempDir dir_;
  fs::path root_;
  std::unique_ptr<Brain> brain_;
  OperationContext ctx_;
};

TEST_F(FixtureVault, EachLinkReachesOnePageTheWayObsidianResolvesIt) {
  // [[Templates]] from the root: the shorter of two paths; from a folder
  // holding one: that one. Exact paths and relative Markdown links as written.
  EXPECT_EQ(Back("areas/templates"), (std::set<std::string>{"home mentions", "areas/review mentions"}));
  EXPECT_EQ(Back("projects/templates"),
            (std::set<std::string>{"home mentions", "areas/review mentions", "projects/website-redesign mentions"}));
  EXPECT_EQ(Back("reading-list"), (std::set<std::string>{"home mentions"}));
  EXPECT_TRUE(Back("archive/reading-list").empty());
  EXPECT_EQ(Back("projects/website-brief"), (std::set<std::string>{"projects/website-redesign mentions"}));
  EXPECT_EQ(Back("inbox"), (std::set<std::string>{"home mentions"}));
  EXPECT_EQ(Back("projects/website-redesign"), (std::set<std::string>{"inbox mentions", "people/li-hali mentions",
                                                                      "projects/website-redesign-board--canvas mentions"}));
}

TEST_F(FixtureVault, OnlyExplicitStructureTypesALink) {
  EXPECT_EQ(Back("people/li-hali"), (std::set<std::string>{"projects/website-redesign owner",
                                                            "projects/website-redesign-board--canvas mentions"}));
  EXPECT_EQ(Back("companies/acme-corp"), (std::set<std::string>{"projects/website-redesign works_at"}));
  EXPECT_EQ(Back("projects/design-system"), (std::set<std::string>{"projects/website-redesign mentions",
                                                                    "projects/website-redesign-board--canvas mentions"}));
  // The clipped "author: 李哈利 (Harry)" is text, not a link to a page that does not exist.
  auto stats = brain_->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->attachments, 4);  // banner.png (from Home and the board's image card), the mockup, spec.pdf
}

// Issue 13, item 16: a canvas is a page. Its cards are searched, its file
// card for a note is a link (its image card an attachment), and a note's
// [[X.canvas]] reaches it.
TEST_F(FixtureVault, ACanvasIsAPageWhoseCardsAreSearchedAndLinked) {
  auto board = brain_->Module<ops::PageModule>().Get(ctx_, "Projects/Website Redesign Board.canvas");
  ASSERT_TRUE(board.ok()) << board.status().ToString();
  EXPECT_EQ(board->slug, "projects/website-redesign-board--canvas");
  EXPECT_EQ(board->title, "Website Redesign Board");
  EXPECT_EQ(board->type, "canvas");
  EXPECT_EQ(board->tags, (std::vector<std::string>{"sprint"}));
  for (std::string_view query : {"lantern festival", "导航栏精简", "Sprint 3", "tracked in"}) {
    SearchOptions o = brain_->Module<ops::SearchModule>().DefaultSearchOptions();
    auto r = brain_->Module<ops::SearchModule>().Search(ctx_, query, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_FALSE(r->results.empty()) << query;
    EXPECT_EQ(r->results[0].slug, "projects/website-redesign-board--canvas") << query;
  }
  EXPECT_EQ(Back("projects/website-redesign-board--canvas"), (std::set<std::string>{"inbox mentions"}));
}

TEST_F(FixtureVault, TagsMatchWhateverTheCaseAndReachNestedTags) {
  auto page = brain_->Module<ops::PageModule>().Get(ctx_, "projects/website-redesign");
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->tags, (std::vector<std::string>{"Active", "project", "project/web", "网站"}));  // sorted as stored
  EXPECT_EQ(Tagged("project"), (std::set<std::string>{"projects/website-redesign"}));
  EXPECT_EQ(Tagged("#PROJECT/web"), (std::set<std::string>{"projects/website-redesign"}));
  EXPECT_EQ(Tagged("templates"), (std::set<std::string>{"areas/templates", "projects/templates"}));
  EXPECT_EQ(Tagged("area"), (std::set<std::string>{"areas/templates"}));
  EXPECT_EQ(Tagged("网站"), (std::set<std::string>{"projects/website-redesign"}));
  EXPECT_TRUE(Tagged("not-a-tag").empty());
  EXPECT_TRUE(Tagged("in-code").empty());
}

}  // namespace
}  // namespace engram
