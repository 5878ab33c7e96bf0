// The knowledge graph (src/graph): facts settled over time (an oracle on
// Settle), facts and entity names read from a store (SQLite, and PostgreSQL
// in the conformance run), and what a caller without private access sees.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "graph/answer.h"
#include "graph/entities.h"
#include "graph/facts.h"
#include "graph/link_graph.h"
#include "graph/traverse.h"
#include "test_stores.h"

namespace engram::graph {
namespace {

using engram::testing::OpenFresh;
using engram::testing::Prepare;
using engram::testing::TempDir;

Fact F(int64_t id, std::string predicate, std::string value, std::string from = "", std::string until = "",
       std::string value_slug = "") {
  Fact f;
  f.id = id;
  f.subject_slug = "people/x";
  f.subject_title = "X";
  f.predicate = std::move(predicate);
  f.value = std::move(value);
  f.value_slug = std::move(value_slug);
  f.valid_from = std::move(from);
  f.valid_until = std::move(until);
  f.line = static_cast<int>(id);
  return f;
}

const Fact& ById(const FactSheet& s, int64_t id) {
  for (const Fact& f : s.facts) {
    if (f.id == id) return f;
  }
  static const Fact kNone;
  ADD_FAILURE() << "no fact " << id;
  return kNone;
}

TEST(GraphSettle, ANewerValueClosesTheOlderOneWhichIsKept) {
  FactSheet s = Settle({F(1, "role", "Engineer", "2019-02"), F(2, "role", "Staff Engineer", "2021-06"),
                        F(3, "role", "CTO", "2024-01")},
                       GraphRules(), "2026-01-01");
  ASSERT_EQ(s.facts.size(), 3u);
  EXPECT_EQ(ById(s, 1).valid_until, "2021-06");
  EXPECT_EQ(ById(s, 1).superseded_by, 2);
  EXPECT_FALSE(ById(s, 1).holds);
  EXPECT_EQ(ById(s, 2).valid_until, "2024-01");
  EXPECT_EQ(ById(s, 2).superseded_by, 3);
  EXPECT_EQ(ById(s, 3).valid_until, "");
  EXPECT_TRUE(ById(s, 3).holds);
  EXPECT_TRUE(s.conflicts.empty());
  // As of mid-2022 the second held.
  FactSheet then = Settle(s.facts, GraphRules(), "2022-07-01");
  EXPECT_TRUE(ById(then, 2).holds);
  EXPECT_FALSE(ById(then, 3).holds);
}

TEST(GraphSettle, TheSameValueRestatedIsNoChange) {
  FactSheet s = Settle({F(1, "works_at", "Acme", "2019", "", "companies/acme"),
                        F(2, "works_at", "ACME", "2020", "", "companies/acme"), F(3, "works_at", "Globex", "2023")},
                       GraphRules(), "2026-01-01");
  EXPECT_EQ(ById(s, 1).superseded_by, 3) << "closed by the next other value, not by its restatement";
  EXPECT_EQ(ById(s, 2).superseded_by, 3);
  EXPECT_TRUE(ById(s, 3).holds);
}

TEST(GraphSettle, LeavingClosesTheOpenFactOfThatValueOnly) {
  FactSheet s = Settle({F(1, "works_at", "Acme", "2019-02-01", "", "companies/acme"),
                        F(2, "works_at", "Acme", "", "2023-01-15", "companies/acme")},
                       GraphRules(), "2026-01-01");
  EXPECT_EQ(ById(s, 1).valid_until, "2023-01-15");
  EXPECT_EQ(ById(s, 1).superseded_by, 2);
  EXPECT_FALSE(ById(s, 1).holds);
  EXPECT_TRUE(s.conflicts.empty());
  // Leaving another company closes nothing of this one.
  FactSheet other = Settle({F(1, "works_at", "Acme", "2019"), F(2, "works_at", "Globex", "", "2020")}, GraphRules(),
                           "2026-01-01");
  EXPECT_EQ(ById(other, 1).valid_until, "");
}

TEST(GraphSettle, TwoValuesThatHoldAtOnceAreAConflictAndBothAreShown) {
  // The frontmatter (undated) says CEO; the timeline says CTO since 2026-03.
  FactSheet s = Settle({F(1, "role", "CEO"), F(2, "role", "CTO", "2026-03")}, GraphRules(), "2026-06-01");
  ASSERT_EQ(s.conflicts.size(), 1u);
  EXPECT_EQ(s.conflicts[0].predicate, "role");
  ASSERT_EQ(s.conflicts[0].facts.size(), 2u);
  EXPECT_TRUE(ById(s, 1).in_conflict);
  EXPECT_TRUE(ById(s, 2).in_conflict);
  // Before the timeline's date only one value held.
  EXPECT_TRUE(Settle(s.facts, GraphRules(), "2026-01-01").conflicts.empty());
  // Values compare folded: "ceo" is "CEO".
  EXPECT_TRUE(Settle({F(1, "role", "CEO"), F(2, "role", "ceo", "2026-03")}, GraphRules(), "2026-06-01")
                  .conflicts.empty());
}

TEST(GraphSettle, AnUndatedFactThatRestatesADatedOneHoldsFromItsStart) {
  // Frontmatter "role: COO"; timeline: head of operations from 2020, COO from 2024.
  const std::vector<Fact> facts = {F(1, "role", "COO"), F(2, "role", "head of operations", "2020-02-01"),
                                   F(3, "role", "COO", "2024-01-15")};
  EXPECT_TRUE(Settle(facts, GraphRules(), "2022-01-01").conflicts.empty()) << "COO did not hold in 2022";
  FactSheet now = Settle(facts, GraphRules(), "2026-01-01");
  EXPECT_TRUE(now.conflicts.empty());
  EXPECT_TRUE(ById(now, 1).holds);
  EXPECT_EQ(ById(now, 1).valid_from, "") << "what the page wrote is shown as written";
  // An undated value no dated fact restates holds from an unknown start: a stale frontmatter is a conflict.
  EXPECT_EQ(Settle({F(1, "role", "CTO"), F(2, "role", "CEO", "2025")}, GraphRules(), "2026-01-01").conflicts.size(),
            1u);
}

TEST(GraphSettle, MultiValuedPredicatesNeverCloseOrConflict) {
  FactSheet s = Settle({F(1, "invested_by", "A", "2020"), F(2, "invested_by", "B", "2024")}, GraphRules(),
                       "2026-01-01");
  EXPECT_TRUE(ById(s, 1).holds);
  EXPECT_TRUE(ById(s, 2).holds);
  EXPECT_TRUE(s.conflicts.empty());
  GraphRules rules;
  rules.options.single_valued = {"invested_by"};  // the list is the brain's to configure ([graph] single_valued)
  EXPECT_FALSE(Settle(s.facts, rules, "2026-01-01").facts.front().holds);
}

TEST(GraphSettle, FactDatesAreNormalisedOrRefused) {
  EXPECT_EQ(NormalizeFactDate("2026-3"), "2026-03");
  EXPECT_EQ(NormalizeFactDate("2026-03"), "2026-03");
  EXPECT_EQ(NormalizeFactDate("2026年3月"), "2026-03");
  EXPECT_EQ(NormalizeFactDate(" 2026-03-12 "), "2026-03-12");
  EXPECT_EQ(NormalizeFactDate("last week"), "");
  EXPECT_EQ(NormalizeFactDate("2026-02-30"), "");
}

class GraphStore : public ::testing::Test {
 protected:
  void Put(const std::string& path, const std::string& content) {
    ASSERT_TRUE(engine_->PutPage(Prepare(path, content)).ok()) << path;
  }
  TempDir dir_;
  std::unique_ptr<Engine> engine_ = OpenFresh(dir_);
};

TEST_F(GraphStore, FactsAboutAPageResolveTheirEntitiesAndShowTheConflict) {
  Put("companies/acme.md", "---\ntitle: Acme Corp\ntype: company\naliases: [Acme]\n---\nA company.\n");
  Put("companies/globex.md", "---\ntype: company\n---\nAnother.\n");
  Put("people/li-wei.md",
      "---\ntitle: Li Wei\ntype: person\nrole: CEO\ncompany: \"[[companies/globex]]\"\n---\n\nLi Wei.\n\n"
      "## Timeline\n\n- **2019-02** | Joined Acme Corp as Engineer\n- **2026-03** | Promoted to CTO\n"
      "- **2026-04** | Left [[acme]]\n");
  auto sheet = FactsAbout(*engine_, ReadScope::All(kDefaultSource), "people/li-wei", GraphRules(), "2026-06-01");
  ASSERT_TRUE(sheet.ok()) << sheet.status().ToString();
  std::vector<std::string> seen;
  for (const Fact& f : sheet->facts) {
    seen.push_back(f.predicate + "=" + f.value + (f.value_slug.empty() ? "" : "<" + f.value_slug + ">") + " " +
                   f.valid_from + ".." + f.valid_until + (f.holds ? " holds" : ""));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{
                      "role=CEO .. holds", "role=Engineer 2019-02..2026-03", "role=CTO 2026-03.. holds",
                      "works_at=globex<companies/globex> .. holds",
                      "works_at=Acme Corp<companies/acme> ..2026-04",
                      "works_at=Acme Corp<companies/acme> 2019-02..2026-04"}));
  ASSERT_EQ(sheet->conflicts.size(), 1u) << "CEO (frontmatter) and CTO (timeline) both hold";
  EXPECT_EQ(sheet->conflicts[0].predicate, "role");
  // Every conflict of the brain: the same one.
  auto all = AllConflicts(*engine_, ReadScope::All(kDefaultSource), GraphRules(), "2026-06-01");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].subject_slug, "people/li-wei");
  // Fixing the Markdown resolves it.
  Put("people/li-wei.md", "---\ntitle: Li Wei\ntype: person\nrole: CTO\n---\n\nLi Wei.\n");
  all = AllConflicts(*engine_, ReadScope::All(kDefaultSource), GraphRules(), "2026-06-01");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty());
}

TEST_F(GraphStore, FactsStatedOnOtherPagesAreAboutTheirSubjectAndPointAtTheirValue) {
  Put("companies/acme.md", "---\ntitle: Acme\ntype: company\n---\nA company.\n");
  Put("companies/beta.md", "---\ntitle: Beta\ntype: company\n---\nAnother.\n");
  Put("people/bob.md", "---\ntitle: Bob\ntype: person\n---\nFounded [[companies/acme]] in 2015.\n");
  Put("meetings/m1.md", "---\ntype: meeting\ndate: 2025-06-01\n---\n[[bob]] also founded [[companies/beta]].\n"
                        "[[people/ann]] works at [[companies/acme]].\n");
  Put("people/ann.md", "---\ntitle: Ann\ntype: person\n---\nAnn.\n\n## Timeline\n\n"
                       "- **2026-02** | Joined [[companies/beta]] as CFO\n");
  const ReadScope all = ReadScope::All(kDefaultSource);
  auto bob = FactsAbout(*engine_, all, "people/bob", GraphRules(), "2026-06-01");
  ASSERT_TRUE(bob.ok()) << bob.status().ToString();
  std::vector<std::string> seen;
  for (const Fact& f : bob->facts) {
    seen.push_back(f.predicate + "=" + f.value_slug + " " + f.valid_from + " from " + f.source_slug);
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::string>{"founded=companies/acme  from people/bob",
                                            "founded=companies/beta 2025-06-01 from meetings/m1"}))
      << "a dated note's sentence holds from the note's date";
  EXPECT_TRUE(bob->conflicts.empty()) << "founding two companies is no conflict, unlike two founding dates";
  // Who founded Acme; who works at Acme now (Ann moved on to Beta in 2026-02).
  auto founders = FactsPointingAt(*engine_, all, "companies/acme", GraphRules(), "2026-06-01");
  ASSERT_TRUE(founders.ok()) << founders.status().ToString();
  std::vector<std::string> pointing;
  for (const Fact& f : *founders) pointing.push_back(f.subject_slug + " " + f.predicate + (f.holds ? " holds" : ""));
  EXPECT_EQ(pointing, (std::vector<std::string>{"people/bob founded holds", "people/ann works_at"}));
  auto before = FactsPointingAt(*engine_, all, "companies/acme", GraphRules(), "2026-01-01");
  ASSERT_TRUE(before.ok());
  ASSERT_EQ(before->size(), 2u);
  EXPECT_TRUE((*before)[1].holds) << "before she joined Beta, Ann worked at Acme";
}

TEST_F(GraphStore, APublicScopeSeesNeitherPrivateFactsNorPrivateEntities) {
  Put("people/secret.md", "---\ntype: person\nvisibility: private\nrole: Spy\n---\nHidden.\n");
  Put("people/boss.md", "---\ntype: person\nreports_to: \"[[people/secret]]\"\n---\nVisible.\n");
  const ReadScope pub = ReadScope::Public(kDefaultSource);
  EXPECT_EQ(FactsAbout(*engine_, pub, "people/secret", GraphRules(), "").status().code(), StatusCode::kNotFound);
  auto boss = FactsAbout(*engine_, pub, "people/boss", GraphRules(), "");
  ASSERT_TRUE(boss.ok()) << boss.status().ToString();
  ASSERT_EQ(boss->facts.size(), 1u);
  EXPECT_EQ(boss->facts[0].value_slug, "") << "a private page is not resolved for a public caller";
  auto owner = FactsAbout(*engine_, ReadScope::All(kDefaultSource), "people/boss", GraphRules(), "");
  ASSERT_TRUE(owner.ok());
  EXPECT_EQ(owner->facts[0].value_slug, "people/secret");
  auto names = ResolveEntity(*engine_, pub, "secret", GraphRules());
  ASSERT_TRUE(names.ok());
  EXPECT_TRUE(names->empty());
}

TEST_F(GraphStore, ANameResolvesToEveryPageOfItsStrongestMatchWithTheReason) {
  Put("people/zhang-san.md", "---\ntitle: 张三\ntype: person\naliases: [Zhang San]\n---\nx\n");
  Put("people/li-wei.md", "---\ntitle: Li Wei\ntype: person\naliases: [Wei]\n---\nx\n");
  Put("notes/wei.md", "---\ntitle: Wei (a note)\n---\nx\n");
  Put("companies/xinghe.md", "---\ntitle: 星河智能\ntype: company\naliases: [Xinghe AI]\n---\nx\n");
  const ReadScope all = ReadScope::All(kDefaultSource);
  auto reason = [&](const std::string& name) {
    auto r = ResolveEntity(*engine_, all, name, GraphRules());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::string out;
    for (const auto& c : *r) out += (out.empty() ? "" : " | ") + c.slug + " by " + c.reason;
    return out;
  };
  EXPECT_EQ(reason("people/zhang-san"), "people/zhang-san by slug");
  EXPECT_EQ(reason("zhang san"), "people/zhang-san by alias 'Zhang San'");
  EXPECT_EQ(reason("張三"), "people/zhang-san by title '张三' (case, width or Traditional/Simplified)");
  EXPECT_EQ(reason("ZhangSan"), "people/zhang-san by alias 'Zhang San' (spelled without spaces or punctuation)");
  EXPECT_EQ(reason("ＸＩＮＧＨＥ ＡＩ"), "companies/xinghe by alias 'Xinghe AI' (case, width or Traditional/Simplified)");
  // The file name of the note and the alias of the person are different levels: the file name wins.
  EXPECT_EQ(reason("wei"), "notes/wei by file name");
  EXPECT_EQ(reason("nobody"), "");
  EXPECT_EQ(ResolveEntity(*engine_, all, "  ", GraphRules()).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ResolveEntity(*engine_, all, std::string(2000, 'a'), GraphRules()).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(GraphStore, ResolutionSeesEveryWriteAndEveryStore) {
  // Names are looked up in an index kept per store and generation: a write is seen at once…
  const ReadScope all = ReadScope::All(kDefaultSource);
  Put("people/a.md", "---\ntitle: Ann\ntype: person\n---\nx\n");
  auto before = ResolveEntity(*engine_, all, "Annie", GraphRules());
  ASSERT_TRUE(before.ok());
  EXPECT_TRUE(before->empty());
  Put("people/a.md", "---\ntitle: Ann\ntype: person\naliases: [Annie]\n---\nx\n");
  auto after = ResolveEntity(*engine_, all, "annie", GraphRules());
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 1u);
  EXPECT_EQ((*after)[0].reason, "alias 'Annie'");
  // …and another store with the same generation (at the same address, maybe) has its own names.
  TempDir other_dir;
  engine_.reset();
  engine_ = OpenFresh(other_dir);
  Put("people/b.md", "---\ntitle: Bob\ntype: person\n---\nx\n");
  Put("people/c.md", "---\ntitle: Cy\ntype: person\n---\nx\n");
  auto fresh = ResolveEntity(*engine_, all, "annie", GraphRules());
  ASSERT_TRUE(fresh.ok());
  EXPECT_TRUE(fresh->empty());
  // A private page's names are in the owner's index only.
  Put("people/d.md", "---\ntitle: Dee\ntype: person\nvisibility: private\n---\nx\n");
  EXPECT_EQ(ResolveEntity(*engine_, ReadScope::Public(kDefaultSource), "Dee", GraphRules())->size(), 0u);
  EXPECT_EQ(ResolveEntity(*engine_, all, "Dee", GraphRules())->size(), 1u);
}

TEST_F(GraphStore, TwoPagesClaimingOneAliasAreBothCandidates) {
  Put("people/li-wei.md", "---\ntype: person\naliases: [Wei]\n---\nx\n");
  Put("people/wang-wei.md", "---\ntype: person\naliases: [wei]\n---\nx\n");
  auto r = ResolveEntity(*engine_, ReadScope::All(kDefaultSource), "Wei", GraphRules());
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].slug, "people/li-wei");
  EXPECT_EQ((*r)[1].slug, "people/wang-wei");
  EXPECT_TRUE((*r)[0].is_entity);
}

TEST_F(GraphStore, EntityTypesAreTheBrainsToConfigure) {
  Put("teams/alpha.md", "---\ntype: team\naliases: [Core]\n---\nx\n");
  Put("people/kim.md", "---\ntype: person\n---\nx\n");
  Put("notes/core-notes.md", "---\naliases: [core]\n---\nx\n");
  const ReadScope all = ReadScope::All(kDefaultSource);
  auto entities = [&](const GraphRules& rules, const std::string& name) {
    auto r = ResolveEntity(*engine_, all, name, rules);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::string out;
    for (const auto& c : *r) out += (out.empty() ? "" : " ") + c.slug + (c.is_entity ? "*" : "");
    return out;
  };
  // By default a team is no entity: of the two pages with the alias, the note sorts first.
  EXPECT_EQ(entities(GraphRules(), "Core"), "notes/core-notes teams/alpha");
  GraphRules teams;
  teams.options.entity_types = {"team"};
  EXPECT_EQ(entities(teams, "Core"), "teams/alpha* notes/core-notes");
  // …and a person is no longer one when the list leaves it out.
  EXPECT_EQ(entities(teams, "people/kim"), "people/kim");
  EXPECT_EQ(entities(GraphRules(), "people/kim"), "people/kim*");
  auto named = EntitiesNamedIn(*engine_, all, "what does core do", 3, teams);
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(*named, std::vector<std::string>{"teams/alpha"});
}

// The graph walks read (graph/link_graph.h) must be what the store says when
// it reads links: each page's edges from a depth-1 walk equal its
// ResolvedLinks and Backlinks, for the owner and for a public reader, after
// every step of a random sequence of writes and deletes. Names are chosen to
// collide: one file name in three folders, case variants, relative links,
// frontmatter slugs, private pages, dead links, self-links.
// Issue 32: the graph a process keeps for a database follows writes by
// re-reading only the pages they changed; after every one of 150 random
// writes (new pages, edits, renames, deletions, pages turning private and
// back, slugs set in frontmatter) it is, arc for arc and in order, the graph
// built from nothing — for both scopes — and it was updated, not rebuilt.
TEST_F(GraphStore, TheSharedGraphFollowsWritesExactlyAsARebuild) {
  const std::vector<std::string> paths = {"a.md",        "notes/a.md", "notes/deep/a.md", "Team/Bob.md", "people/bob.md",
                                          "notes/b.md",  "x/y/c.md",   "c.md",            "slugged.md",  "notes/self.md",
                                          "People/Zed.md", "zed.md"};
  const std::vector<std::string> targets = {"a",          "notes/a",  "deep/a",  "bob",       "people/bob",
                                            "People/Bob", "b",        "c",       "y/c",       "x/y/c",
                                            "custom-slug", "self",    "notes/self", "missing", "a#Part",
                                            "zed",        "People/Zed", "moved"};
  std::mt19937 rng(23);
  auto pick = [&](const auto& v) { return v[rng() % v.size()]; };
  std::map<std::string, std::string> live;  // slug -> path
  const LinkGraphCounters before = LinkGraphCountersNow();
  for (int step = 0; step < 150; ++step) {
    const std::string path = pick(paths);
    const std::string slug = Prepare(path, "x").page.slug;
    const int action = static_cast<int>(rng() % 8);
    if (action == 0 && !live.empty()) {
      auto victim = std::next(live.begin(), static_cast<std::ptrdiff_t>(rng() % live.size()));
      ASSERT_TRUE(engine_->DeletePage(kDefaultSource, victim->first).ok());
      live.erase(victim);
    } else if (action == 1 && !live.empty()) {
      auto moved = std::next(live.begin(), static_cast<std::ptrdiff_t>(rng() % live.size()));
      const std::string to = "moved/" + std::to_string(step);
      if (engine_->RenamePage(kDefaultSource, moved->first, to, to + ".md").ok()) {
        live.erase(moved);
        live[to] = to + ".md";
      }
    } else {
      std::string body = rng() % 4 == 0 ? "---\nvisibility: private\n---\n" : "";
      if (path == "slugged.md") body = "---\nslug: custom-slug\n---\n";
      for (int i = 0, n = static_cast<int>(rng() % 4); i < n; ++i) body += "See [[" + pick(targets) + "]].\n";
      const PageWrite w = Prepare(path, body);
      if (!engine_->PutPage(w).ok()) continue;
      live[w.page.slug] = path;
    }
    for (const ReadScope& scope : {ReadScope::All(kDefaultSource), ReadScope::Public(kDefaultSource)}) {
      auto shared = LinkGraphFor(*engine_, scope);
      ASSERT_TRUE(shared.ok()) << shared.status().ToString();
      auto fresh = BuildLinkGraph(*engine_, scope);
      ASSERT_TRUE(fresh.ok());
      ASSERT_EQ(DescribeLinkGraph(**shared), DescribeLinkGraph(**fresh))
          << "step " << step << (scope.include_private ? "" : " (public)");
    }
  }
  const LinkGraphCounters after = LinkGraphCountersNow();
  // One fresh build per scope at the start (and the oracle's 300); every other step an update.
  EXPECT_LE(after.builds - before.builds, 300 + 2 + 4) << "rebuilt instead of updated";
  EXPECT_GE(after.updates - before.updates, 250);
}

// Issue 32: every connection of a process to one database walks one graph.
TEST_F(GraphStore, ConnectionsToOneDatabaseShareOneGraph) {
  Put("a.md", "See [[b]].\n");
  Put("b.md", "Back to [[a]].\n");
  auto other = testing::OpenFresh(dir_);  // a second engine on the same database file
  ASSERT_NE(other, nullptr);
  ASSERT_EQ(engine_->StoreIdentity(), other->StoreIdentity());
  const ReadScope all = ReadScope::All(kDefaultSource);
  ASSERT_TRUE(LinkGraphFor(*engine_, all).ok());
  const LinkGraphCounters first = LinkGraphCountersNow();
  auto view = LinkGraphFor(*other, all);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(LinkGraphCountersNow().builds, first.builds) << "the second connection built its own graph";
  EXPECT_EQ((*view)->links, 2u);
}

TEST_F(GraphStore, WalksSeeExactlyTheLinksTheStoreResolves) {
  const std::vector<std::string> paths = {"a.md",          "notes/a.md",    "notes/deep/a.md", "Team/Bob.md",
                                          "people/bob.md", "notes/b.md",    "x/y/c.md",        "c.md",
                                          "slugged.md",    "notes/self.md"};
  const std::vector<std::string> targets = {"a",          "notes/a",   "deep/a",  "bob",   "people/bob", "People/Bob",
                                            "b",          "c",         "y/c",     "x/y/c", "custom-slug", "self",
                                            "notes/self", "missing",   "a#Part",  "notes/deep/a"};
  std::mt19937 rng(17);
  auto pick = [&](const auto& v) { return v[rng() % v.size()]; };
  std::map<std::string, std::string> live;  // path -> slug
  for (int step = 0; step < 60; ++step) {
    const std::string path = pick(paths);
    if (live.count(path) && rng() % 5 == 0) {
      ASSERT_TRUE(engine_->DeletePage(kDefaultSource, live[path]).ok()) << path;
      live.erase(path);
    } else {
      std::string body = (rng() % 3 == 0 ? "---\nvisibility: private\n---\n" : std::string(""));
      if (path == "slugged.md") body = "---\nslug: custom-slug\n---\n";
      for (int i = 0, n = 1 + static_cast<int>(rng() % 4); i < n; ++i) body += "See [[" + pick(targets) + "]].\n";
      Put(path, body);
      live[path] = Prepare(path, body).page.slug;
    }
    for (const ReadScope& scope : {ReadScope::All(kDefaultSource), ReadScope::Public(kDefaultSource)}) {
      auto pages = engine_->AllPageNames(scope);
      ASSERT_TRUE(pages.ok());
      for (const PageNames& p : *pages) {
        std::vector<Edge> want;
        auto out = engine_->ResolvedLinks(scope, p.id);
        ASSERT_TRUE(out.ok());
        for (const ResolvedLink& l : *out) {
          if (!l.to_slug.empty()) want.push_back({p.slug, l.to_slug, l.type, l.context});
        }
        auto in = engine_->Backlinks(scope, p.slug);
        ASSERT_TRUE(in.ok());
        for (const LinkRecord& l : *in) {
          if (l.from_slug != p.slug) want.push_back({l.from_slug, p.slug, l.type, l.context});
        }
        WalkLimits one;
        auto n = Explore(*engine_, scope, p.slug, one);
        ASSERT_TRUE(n.ok()) << n.status().ToString();
        std::vector<Edge> got = n->edges;
        // A walk lists each (from, to, type) once; the store lists every link.
        std::set<std::tuple<std::string, std::string, std::string>> seen;
        std::erase_if(want, [&](const Edge& e) { return !seen.insert({e.from, e.to, e.type}).second; });
        auto order = [](const Edge& a, const Edge& b) { return std::tie(a.from, a.to, a.type) < std::tie(b.from, b.to, b.type); };
        std::sort(want.begin(), want.end(), order);
        std::sort(got.begin(), got.end(), order);
        ASSERT_EQ(got, want) << "step " << step << ", page " << p.slug << (scope.include_private ? "" : " (public)");
      }
      // Orphans read the same graph: the pages no link of the store joins to another page.
      auto links = engine_->ResolvedLinks(scope, std::nullopt);
      ASSERT_TRUE(links.ok());
      std::set<std::string> linked;
      for (const ResolvedLink& l : *links) {
        if (l.to_slug.empty() || l.to_slug == l.from_slug) continue;
        linked.insert(l.from_slug);
        linked.insert(l.to_slug);
      }
      std::vector<std::string> want_orphans, got_orphans;
      for (const PageNames& p : *pages) {
        if (!linked.count(p.slug)) want_orphans.push_back(p.slug);
      }
      auto orphans = Orphans(*engine_, scope);
      ASSERT_TRUE(orphans.ok());
      for (const PageNames& p : *orphans) got_orphans.push_back(p.slug);
      ASSERT_EQ(got_orphans, want_orphans) << "step " << step << (scope.include_private ? "" : " (public)");
    }
  }
}

TEST_F(GraphStore, AWalkFollowsLinksBothWaysToItsDepthThroughCyclesAndSelfLinks) {
  Put("a.md", "---\ncompany: \"[[b]]\"\n---\nA links [[b]] and itself [[a]].\n");
  Put("b.md", "B links [[c]].\n");
  Put("c.md", "C links back to [[a]] and to [[missing]].\n");
  Put("d.md", "D links [[c]].\n");
  Put("e.md", "Nothing.\n");
  const ReadScope all = ReadScope::All(kDefaultSource);
  WalkLimits one;
  auto n = Explore(*engine_, all, "a", one);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  std::vector<std::string> nodes;
  for (const Node& node : n->nodes) nodes.push_back(node.slug + "@" + std::to_string(node.depth));
  EXPECT_EQ(nodes, (std::vector<std::string>{"a@0", "b@1", "c@1"}));  // c links to a: inbound counts
  WalkLimits two;
  two.depth = 2;
  n = Explore(*engine_, all, "a", two);
  ASSERT_TRUE(n.ok());
  nodes.clear();
  for (const Node& node : n->nodes) nodes.push_back(node.slug + "@" + std::to_string(node.depth));
  EXPECT_EQ(nodes, (std::vector<std::string>{"a@0", "b@1", "c@1", "d@2"}));
  EXPECT_FALSE(n->truncated);
  // The typed link from the frontmatter only.
  WalkLimits typed;
  typed.relation = "works_at";
  n = Explore(*engine_, all, "a", typed);
  ASSERT_TRUE(n.ok());
  ASSERT_EQ(n->edges.size(), 1u);
  EXPECT_EQ(n->edges[0], (Edge{"a", "b", "works_at", "company: [[b]]"}));
  // Bounds: a depth outside 1..6 is refused, a node cap truncates.
  WalkLimits deep;
  deep.depth = 50;
  EXPECT_EQ(Explore(*engine_, all, "a", deep).status().code(), StatusCode::kInvalidArgument);
  WalkLimits capped;
  capped.depth = 6;
  capped.max_nodes = 2;
  n = Explore(*engine_, all, "a", capped);
  ASSERT_TRUE(n.ok());
  EXPECT_TRUE(n->truncated);
  EXPECT_EQ(n->nodes.size(), 2u);
}

TEST_F(GraphStore, AShortestPathWithItsEvidenceAndTheLinksThatReachNothing) {
  Put("a.md", "A works with [[b]].\n");
  Put("b.md", "B reports to [[c]].\n");
  Put("c.md", "C.\n");
  Put("far.md", "Far links [[nowhere]].\n");
  const ReadScope all = ReadScope::All(kDefaultSource);
  auto p = ShortestPath(*engine_, all, "a", "c", WalkLimits());
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_TRUE(p->found);
  ASSERT_EQ(p->edges.size(), 2u);
  EXPECT_EQ(p->edges[0], (Edge{"a", "b", "mentions", "A works with [[b]]."}));
  EXPECT_EQ(p->edges[1].to, "c");
  // Backwards along the links is a path too.
  p = ShortestPath(*engine_, all, "c", "a", WalkLimits());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->edges.size(), 2u);
  p = ShortestPath(*engine_, all, "a", "far", WalkLimits());
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->found);
  EXPECT_FALSE(p->truncated);
  auto dead = DeadLinks(*engine_, all);
  ASSERT_TRUE(dead.ok());
  ASSERT_EQ(dead->size(), 1u);
  EXPECT_EQ((*dead)[0].from_slug, "far");
  EXPECT_EQ((*dead)[0].target, "nowhere");
  auto orphans = Orphans(*engine_, all);
  ASSERT_TRUE(orphans.ok());
  ASSERT_EQ(orphans->size(), 1u);
  EXPECT_EQ((*orphans)[0].slug, "far") << "its one link reaches nothing";
}

TEST_F(GraphStore, APublicWalkNeverStepsOntoAPrivatePage) {
  Put("a.md", "A links [[secret]].\n");
  Put("secret.md", "---\nvisibility: private\n---\nSecret links [[b]].\n");
  Put("b.md", "B.\n");
  const ReadScope pub = ReadScope::Public(kDefaultSource);
  WalkLimits deep;
  deep.depth = 3;
  auto n = Explore(*engine_, pub, "a", deep);
  ASSERT_TRUE(n.ok());
  ASSERT_EQ(n->nodes.size(), 1u) << "the only way on is through the private page";
  auto p = ShortestPath(*engine_, pub, "a", "b", WalkLimits());
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->found);
  EXPECT_EQ(ShortestPath(*engine_, pub, "a", "secret", WalkLimits()).status().code(), StatusCode::kNotFound);
  auto dead = DeadLinks(*engine_, pub);
  ASSERT_TRUE(dead.ok());
  // As if the private page were absent (issue 32): its link is dead for this caller, exactly as it would be
  // in a brain without it, so the list tells nothing of what exists.
  ASSERT_EQ(dead->size(), 1u);
  EXPECT_EQ(dead->front().from_slug, "a");
  EXPECT_EQ(dead->front().target, "secret");
  EXPECT_TRUE(dead->front().to_slug.empty());
  // The owner sees the whole chain.
  p = ShortestPath(*engine_, ReadScope::All(kDefaultSource), "a", "b", WalkLimits());
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->edges.size(), 2u);
}

TEST_F(GraphStore, OneTimelineMergedAcrossPagesByDateAndAboutAnEntity) {
  Put("companies/acme.md", "---\ntitle: Acme Corp\naliases: [Acme, A]\n---\nAcme.\n\n## Timeline\n\n"
                           "- **2026-03-12** | Series A closed\n- **2019** | Founded\n");
  Put("people/li.md", "Li works at [[companies/acme]].\n\n## Timeline\n\n- **2026-03** | Joined Acme as CTO\n"
                      "- **2026-04-01** | Gave a talk\n");
  Put("notes/other.md", "## Timeline\n\n- **2026-03-20** | Acme mentioned on a page that does not link it\n");
  Put("notes/secret.md", "---\nvisibility: private\n---\nAbout [[companies/acme]].\n\n## Timeline\n\n"
                         "- **2026-03-15** | Acme's private news\n");
  const ReadScope pub = ReadScope::Public(kDefaultSource);
  auto brief = [](const std::vector<DatedEntry>& entries) {
    std::vector<std::string> out;
    for (const DatedEntry& e : entries) out.push_back(e.entry.date + " " + e.page_slug);
    return out;
  };
  auto all = MergedTimeline(*engine_, pub, "", "", "", 100);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(brief(*all), (std::vector<std::string>{"2019 companies/acme", "2026-03 people/li",
                                                   "2026-03-12 companies/acme", "2026-03-20 notes/other",
                                                   "2026-04-01 people/li"}));
  // Through March (all of it), from the 5th of March: "2026-03" is in, at its own precision.
  auto march = MergedTimeline(*engine_, pub, "", "2026-03-05", "2026-03", 100);
  ASSERT_TRUE(march.ok());
  EXPECT_EQ(brief(*march), (std::vector<std::string>{"2026-03 people/li", "2026-03-12 companies/acme",
                                                     "2026-03-20 notes/other"}));
  // About Acme: its own entries and the linking page's line that names it; not the page that does not link
  // it, not the talk, not the private page for a public caller; "A" is too short an alias to count.
  auto acme = MergedTimeline(*engine_, pub, "companies/acme", "", "", 100);
  ASSERT_TRUE(acme.ok());
  EXPECT_EQ(brief(*acme), (std::vector<std::string>{"2019 companies/acme", "2026-03 people/li",
                                                    "2026-03-12 companies/acme"}));
  auto owner = MergedTimeline(*engine_, ReadScope::All(kDefaultSource), "companies/acme", "", "", 100);
  ASSERT_TRUE(owner.ok());
  EXPECT_EQ(owner->size(), 4u);
  auto limited = MergedTimeline(*engine_, pub, "", "", "", 2);
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited->size(), 2u);
  EXPECT_EQ(MergedTimeline(*engine_, pub, "notes/secret", "", "", 10).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace engram::graph
