// Obsidian canvases (JSON Canvas 1.0) as pages (issue 13, item 16): the
// reader, the page it makes, its slug, and a canvas in an import beside notes.
#include "text/canvas.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engram/engine.h"
#include "engram/store/open_store.h"
#include "sync/importer.h"
#include "sync/page_indexer.h"
#include "sync/scope.h"
#include "sync/sensitive.h"
#include "test_support.h"
#include "text/page_edit.h"
#include "text/page_parser.h"
#include "text/slug.h"

namespace engram::text {
namespace {

// A canvas as Obsidian writes one: a group, text cards (one Chinese), a card
// for a note, one for an image, one for a web page, labelled edges. Nodes are
// not in reading order in the file.
constexpr std::string_view kBoard = R"({
	"nodes":[
		{"id":"grp","type":"group","x":-40,"y":-80,"width":900,"height":700,"label":"Launch plan"},
		{"id":"t2","type":"text","text":"## Risks\nThe **okapi** supplier may be late. #risk","x":420,"y":0,"width":300,"height":120},
		{"id":"t1","type":"text","text":"Kickoff with [[People/Li Hali]] and [[Acme Corp|Acme]]\n```\n[[Not A Link]] #not-a-tag\n```","x":0,"y":0,"width":300,"height":120,"color":"4"},
		{"id":"zh","type":"text","text":"发布会定在 **三月**，地点：深圳","x":0,"y":300,"width":300,"height":80},
		{"id":"f1","type":"file","file":"Projects/Website Redesign.md","subpath":"#Goals","x":420,"y":300,"width":300,"height":200},
		{"id":"f2","type":"file","file":"attachments/wireframe.png","x":0,"y":500,"width":300,"height":200},
		{"id":"ln","type":"link","url":"https://example.com/brand-guide","x":420,"y":560,"width":300,"height":60}
	],
	"edges":[
		{"id":"e1","fromNode":"t1","fromSide":"right","toNode":"t2","toSide":"left","label":"blocks"},
		{"id":"e2","fromNode":"t1","toNode":"f1"}
	]
})";

Page MustParse(std::string_view path, std::string_view content) {
  auto r = ParseCanvasPage(path, content);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : Page{};
}

std::set<std::string> Links(const Page& p) {
  std::set<std::string> out;
  for (const PageLink& l : p.links) out.insert(l.target + " " + l.type);
  return out;
}

// The reason ReadCanvas gives, "" when it reads the content.
std::string Error(std::string_view content) {
  auto r = ReadCanvas("boards/Bad.canvas", content);
  return r.ok() ? "" : r.status().message();
}

std::vector<std::string> Warnings(std::string_view content) {
  auto r = ReadCanvas("boards/Odd.canvas", content);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->warnings : std::vector<std::string>{};
}

TEST(Canvas, IsCanvasPathLooksAtTheExtensionOnly) {
  EXPECT_TRUE(IsCanvasPath("Board.canvas"));
  EXPECT_TRUE(IsCanvasPath("a/b/Plan.CANVAS"));
  EXPECT_FALSE(IsCanvasPath(".canvas/x.md"));
  EXPECT_FALSE(IsCanvasPath("Board.canvas.md"));
  EXPECT_FALSE(IsCanvasPath("canvas"));
  EXPECT_FALSE(IsCanvasPath(".canvas"));  // a hidden file with no name
}

TEST(Canvas, TextIsCardsInReadingOrderThenEdgeLabels) {
  auto r = ReadCanvas("Board.canvas", kBoard);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text,
            "Launch plan\n\n"
            "Kickoff with [[People/Li Hali]] and [[Acme Corp|Acme]]\n```\n[[Not A Link]] #not-a-tag\n```\n\n"
            "## Risks\nThe **okapi** supplier may be late. #risk\n\n"
            "发布会定在 **三月**，地点：深圳\n\n"
            "https://example.com/brand-guide\n\n"
            "blocks");
  EXPECT_EQ(r->files, (std::vector<std::string>{"Projects/Website Redesign.md", "attachments/wireframe.png"}));
  EXPECT_EQ(r->markdown.size(), 3u);
  EXPECT_TRUE(r->warnings.empty());
}

TEST(Canvas, CardsOnOneRowKeepTheirFileOrder) {
  auto r = ReadCanvas("a.canvas", R"({"nodes":[
    {"id":"b","type":"text","text":"second","x":10,"y":5,"width":1,"height":1},
    {"id":"a","type":"text","text":"first","x":10,"y":5,"width":1,"height":1},
    {"id":"c","type":"text","text":"left","x":-3.5,"y":5,"width":1,"height":1}]})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->text, "left\n\nsecond\n\nfirst");
}

TEST(Canvas, PageIsNamedByTheFileAndLinksNotesButNotAttachments) {
  Page p = MustParse("Projects/Launch Board.canvas", kBoard);
  EXPECT_EQ(p.slug, "projects/launch-board--canvas");
  EXPECT_EQ(p.title, "Launch Board");
  EXPECT_EQ(p.type, "canvas");
  EXPECT_TRUE(p.aliases.empty());
  EXPECT_FALSE(p.has_frontmatter);
  EXPECT_EQ(p.frontmatter_json, "{}");
  EXPECT_TRUE(p.timeline.empty());
  EXPECT_NE(p.compiled_truth.find("okapi"), std::string::npos);
  EXPECT_NE(p.compiled_truth.find("深圳"), std::string::npos);
  EXPECT_EQ(Links(p), (std::set<std::string>{"people/li-hali mentions", "acme-corp mentions",
                                             "projects/website-redesign mentions",
                                             "attachments/wireframe.png attachment"}));
  EXPECT_EQ(p.tags, (std::vector<std::string>{"risk"}));  // not the one in the code block
  EXPECT_TRUE(p.warnings.empty());
}

TEST(Canvas, ParsePageReadsACanvasPathAsACanvas) {
  auto p = ParsePage("Board.canvas", kBoard);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->type, "canvas");
  EXPECT_EQ(p->slug, "board--canvas");
  // The same bytes under a note's name are a note (and its slug another one).
  auto note = ParsePage("Board.md", kBoard);
  ASSERT_TRUE(note.ok());
  EXPECT_EQ(note->type, "note");
  EXPECT_EQ(note->slug, "board");
}

TEST(Canvas, PreparedPageChunksTheCardText) {
  auto w = sync::PreparePage("Board.canvas", kBoard, {});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_FALSE(w->chunks.empty());
  std::string all;
  for (const ChunkWrite& c : w->chunks) all += c.text;
  EXPECT_NE(all.find("okapi"), std::string::npos);
  EXPECT_NE(all.find("三月"), std::string::npos);
  EXPECT_EQ(all.find("\"nodes\""), std::string::npos) << "the JSON itself is not searched";
  EXPECT_EQ(w->content, kBoard);  // the file is stored as it is
}

TEST(Canvas, FileCardsForCanvasesAndOtherFiles) {
  Page p = MustParse("Index.canvas", R"({"nodes":[
    {"id":"1","type":"file","file":"Boards/Other Board.canvas","x":0,"y":0,"width":1,"height":1},
    {"id":"2","type":"file","file":"docs/spec.pdf","x":0,"y":1,"width":1,"height":1},
    {"id":"3","type":"file","file":"scripts/run.py","x":0,"y":2,"width":1,"height":1},
    {"id":"4","type":"file","file":"Note.md","x":0,"y":3,"width":1,"height":1},
    {"id":"5","type":"file","file":"Note.md","subpath":"#Other","x":0,"y":4,"width":1,"height":1}]})");
  EXPECT_EQ(Links(p), (std::set<std::string>{"boards/other-board--canvas mentions", "docs/spec.pdf attachment",
                                             "note mentions"}));
  EXPECT_TRUE(p.compiled_truth.empty());
}

TEST(Canvas, EmptyCanvasesAreValidAndQuiet) {
  for (std::string_view empty : {"", "  \n", "{}", "\xEF\xBB\xBF{}", R"({"nodes":[],"edges":[]})", R"({"nodes":[]})",
                                 R"({"nodes":null})"}) {
    auto r = ReadCanvas("Empty.canvas", empty);
    ASSERT_TRUE(r.ok()) << empty << ": " << r.status().ToString();
    EXPECT_TRUE(r->text.empty()) << empty;
    EXPECT_TRUE(r->warnings.empty()) << empty;
  }
  Page p = MustParse("Empty.canvas", "");
  EXPECT_EQ(p.title, "Empty");
}

TEST(Canvas, ContentThatIsNoCanvasIsAnErrorNamingTheFileAndTheProblem) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"{\"nodes\": [", "invalid JSON: parse error at line 1"},
      {"not json at all", "invalid JSON"},
      {"{\"nodes\": []} trailing", "invalid JSON"},
      {"[1, 2]", "expected a JSON object with \"nodes\" and \"edges\", found array"},
      {"\"just a string\"", "found string"},
      {"{\"nodes\": {\"id\": \"a\"}}", "\"nodes\" is object, not an array"},
      {"{\"nodes\": \"text\"}", "\"nodes\" is string, not an array"},
      {"{\"nodes\": [{\"id\":\"a\",\"type\":\"text\",\"text\":\"x\",\"x\":1e999,\"y\":0}]}", "invalid JSON"},
      {"{\"nodes\": [{\"text\": \"\\ud800\"}]}", "invalid JSON"},  // a lone surrogate
  };
  for (const auto& [content, why] : cases) {
    const std::string error = Error(content);
    EXPECT_EQ(error.rfind("boards/Bad.canvas: not a valid JSON Canvas file (", 0), 0u) << content << " -> " << error;
    EXPECT_NE(error.find(why), std::string::npos) << content << " -> " << error;
  }
  EXPECT_EQ(sync::SkipKind(Error("[]")), "invalid canvas");
}

TEST(Canvas, DeepNestingIsRefusedBeforeParsing) {
  std::string deep = "{\"nodes\": [{\"id\":\"a\",\"type\":\"text\",\"text\":\"x\",\"x\":0,\"y\":0,\"extra\":";
  for (int i = 0; i < 100000; ++i) deep += "[";
  const std::string error = Error(deep);
  EXPECT_NE(error.find("nests deeper than 64 levels"), std::string::npos) << error.substr(0, 200);
  // Brackets inside strings are text, not nesting.
  std::string brackets = R"({"nodes":[{"id":"a","type":"text","x":0,"y":0,"text":")";
  brackets += std::string(1000, '[') + "\"}]}";
  auto r = ReadCanvas("ok.canvas", brackets);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text, std::string(1000, '['));
}

TEST(Canvas, BytesThatAreNoTextAreTheSameErrorsAsANotesAre) {
  EXPECT_EQ(Error("{\"nodes\":[]}\xFF"), "boards/Bad.canvas: not valid UTF-8 at byte 12");
  EXPECT_EQ(Error(std::string_view("{\"nodes\":[]}\0", 13)), "boards/Bad.canvas: binary content (NUL byte at 12)");
  EXPECT_EQ(sync::SkipKind(Error("\xFF")), "not UTF-8");
  // An escaped NUL is decoded, and never reaches the page's text.
  auto r = ReadCanvas("a.canvas", R"({"nodes":[{"id":"a","type":"text","x":0,"y":0,"text":"a\u0000b"}]})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->text, "a b");
}

TEST(Canvas, MalformedNodesAndEdgesAreWarningsAndTheRestIsRead) {
  auto r = ReadCanvas("boards/Odd.canvas", R"({"nodes":[
    17,
    {"id":"no-type","text":"lost"},
    {"id":"t","type":"text","text":42,"x":0,"y":0},
    {"id":"f","type":"file","x":0,"y":0},
    {"id":"g","type":"group","label":["x"],"x":0,"y":0},
    {"id":"pos","type":"text","text":"kept without a position"},
    {"id":"new","type":"future-kind","text":"a type from a later version","x":0,"y":0},
    {"id":"ok","type":"text","text":"kept","x":0,"y":-10}],
    "edges":[null, {"id":"e","label":7}, {"id":"e2","label":"still read"}]})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text, "kept\n\nkept without a position\n\nstill read");
  const std::vector<std::string> want = {
      "canvas: node 1 is not an object; skipped",
      "canvas: node 2 ('no-type') has no \"type\" string; skipped",
      "canvas: node 3 ('t'): text node without a \"text\" string; skipped",
      "canvas: node 4 ('f'): file node without a \"file\" string; skipped",
      "canvas: node 5 ('g'): group \"label\" is not a string; ignored",
      "canvas: 4 more nodes or edges skipped or read partly",
  };
  EXPECT_EQ(r->warnings, want);
}

TEST(Canvas, AnObjectWithoutNodesOrWithOddEdgesIsReadWithAWarning) {
  EXPECT_EQ(Warnings(R"({"cards": []})"), (std::vector<std::string>{"canvas: no \"nodes\" array; nothing to read"}));
  EXPECT_EQ(Warnings(R"({"nodes": [], "edges": {"a": 1}})"),
            (std::vector<std::string>{"canvas: \"edges\" is object, not an array; edge labels ignored"}));
}

TEST(Canvas, ManyBadNodesMakeAFewWarnings) {
  std::string many = "{\"nodes\":[";
  for (int i = 0; i < 10000; ++i) many += i == 0 ? "1" : ",1";
  many += "]}";
  const std::vector<std::string> warnings = Warnings(many);
  ASSERT_EQ(warnings.size(), 6u);
  EXPECT_EQ(warnings.back(), "canvas: 9995 more nodes or edges skipped or read partly");
}

TEST(Canvas, AFileNameWithoutANameIsAnError) {
  auto r = ParseCanvasPage("notes/ .canvas", "{}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no letter or digit"), std::string::npos) << r.status().ToString();
}

TEST(Canvas, SlugsNeverMeetANotesSlug) {
  EXPECT_EQ(SlugFromPath("Board.canvas"), "board--canvas");
  EXPECT_EQ(SlugFromPath("Maps/Project Map.CANVAS"), "maps/project-map--canvas");
  const std::vector<std::string> names = {"Board.md",       "Board.canvas", "Board.canvas.md", "Board--canvas.md",
                                          "C++.canvas",     "C#.canvas",    "C.canvas",        "x/Board.canvas",
                                          "x/Board.md",     "C++.md",       "Board..canvas",   "Board.canvas.canvas",
                                          "Board.markdown", "C--canvas.md", "c.canvas.md"};
  std::set<std::string> slugs;
  for (const auto& n : names) {
    const std::string slug = SlugFromPath(n);
    EXPECT_FALSE(slug.empty()) << n;
    EXPECT_TRUE(slugs.insert(slug).second) << n << " -> " << slug;
    EXPECT_TRUE(ValidateSlugInput(slug).ok()) << slug;
  }
  EXPECT_EQ(SlugFromPath("a/ .canvas"), "");  // never the slug of "a.md"
  EXPECT_EQ(SlugFromPath("a/..canvas"), "");
}

TEST(Canvas, ScopeTakesCanvasesLikeNotes) {
  sync::Scope s;
  std::string why;
  EXPECT_TRUE(s.Contains("Boards/Plan.canvas"));
  EXPECT_TRUE(s.Contains("Plan.CANVAS"));
  EXPECT_FALSE(s.Contains(".obsidian/x.canvas"));
  EXPECT_FALSE(s.Contains(".hidden.canvas"));
  EXPECT_FALSE(s.Contains("data.json", &why));
  EXPECT_EQ(why, "not a Markdown file");
}

TEST(Canvas, QuarantineReadsTheTextTheJsonEscapes) {
  const sync::SensitiveRules rules = sync::SensitiveRules::Defaults();
  // A phone number written as \u escapes: as JSON it looks like nothing.
  const std::string phone = R"({"nodes":[
    {"id":"b","type":"text","x":0,"y":10,"text":"call \u0031\u0033\u0038\u0031\u0032\u0033\u0034\u0035\u0036\u0037\u0038 today"},
    {"id":"a","type":"text","x":0,"y":0,"text":"intro card"}]})";
  EXPECT_FALSE(sync::FindSensitive("notes/call.md", phone, rules)) << "the JSON alone hides it";
  auto hit = sync::FindSensitive("boards/Call list.canvas", phone, rules);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->rule, "cn_mobile");
  EXPECT_EQ(hit->line, 3);  // of the cards' text: "intro card", "", "call …"
  // A private key whose line breaks are JSON's "\n".
  const std::string key =
      R"({"nodes":[{"id":"a","type":"text","x":0,"y":0,"text":"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----"}]})";
  hit = sync::FindSensitive("boards/Ops.canvas", key, rules);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->rule, "pem_private_key");
  // A file card's path is text the index shows too.
  hit = sync::FindSensitive(
      "Board.canvas",
      R"({"nodes":[{"id":"f","type":"file","x":0,"y":0,"file":"notes/\u0031\u0033\u0038\u0031\u0032\u0033\u0034\u0035\u0036\u0037\u0038"}]})",
      rules);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->rule, "cn_mobile");
  EXPECT_FALSE(sync::FindSensitive("Board.canvas", kBoard, rules));
}

TEST(Canvas, PageEditsRefuseACanvas) {
  for (const Result<std::string>& r :
       {AddTag("Board.canvas", kBoard, "x"), AddTimelineEntry("Board.canvas", kBoard, "2026-01-02", "s", ""),
        AddLink("Board.canvas", kBoard, "people/x", "mentions")}) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("is a canvas"), std::string::npos) << r.status().ToString();
  }
}

TEST(Canvas, ANoteLinksToACanvasAsToAPage) {
  auto p = ParsePage("notes/a.md", "See [[Boards/Plan.canvas]], ![[Plan.canvas]] and [map](<Maps/Big Map.canvas>).\n");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(Links(*p), (std::set<std::string>{"boards/plan--canvas mentions", "plan--canvas mentions",
                                              "maps/big-map--canvas mentions"}));
}

// A vault holding a note and a canvas of one name, and canvases that are no
// canvas: every good file is a page, each bad one a skip naming the problem.
TEST(Canvas, ImportTakesCanvasesBesideNotesAndSkipsBrokenOnes) {
  testing::TempDir db_dir, vault;
  EngineOptions o;
  o.create_if_missing = true;
  auto engine = OpenSqliteStore(db_dir.path() / "engram.db", o);
  ASSERT_TRUE(engine.ok());
  testing::WriteFile(vault.path() / "Board.md", "A note called Board.\n");
  testing::WriteFile(vault.path() / "Board.canvas", std::string(kBoard));
  testing::WriteFile(vault.path() / "broken.canvas", "{\"nodes\": [");
  testing::WriteFile(vault.path() / "deep.canvas", std::string(5000, '['));
  testing::WriteFile(vault.path() / "z.md", "last note\n");
  auto r = sync::ImportDirectory(**engine, vault.path(), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->added, 3);
  ASSERT_EQ(r->skipped.size(), 2u);
  EXPECT_EQ(r->skipped[0].path, "broken.canvas");
  EXPECT_NE(r->skipped[0].reason.find("invalid JSON"), std::string::npos) << r->skipped[0].reason;
  EXPECT_EQ(r->skipped[1].path, "deep.canvas");
  EXPECT_NE(r->skipped[1].reason.find("nests deeper"), std::string::npos) << r->skipped[1].reason;
  EXPECT_EQ(r->skipped_by_reason["invalid canvas"], 2);
  auto canvas = (*engine)->GetPage("default", "board--canvas");
  ASSERT_TRUE(canvas.ok()) << canvas.status().ToString();
  EXPECT_EQ(canvas->path, "Board.canvas");
  EXPECT_EQ(canvas->type, "canvas");
  auto note = (*engine)->GetPage("default", "board");
  ASSERT_TRUE(note.ok());
  EXPECT_EQ(note->path, "Board.md");
}

}  // namespace
}  // namespace engram::text
