// Every read operation a remote caller can run, walked from the operation
// table itself: on the same public pages, what a remote caller observes of
// each operation — its result, or its error — is identical whether private
// pages exist beside them or not. The walk takes every operation that is
// not local-only and that a read token may call, builds its arguments from
// the probes below by parameter name (and type), and fails when an
// operation has a required parameter no probe fills: a new operation cannot
// slip past this test, it has to be given probes.
//
// The private pages are written after the public ones, so the public pages,
// their links and chunks get the same ids in both brains; times of writes
// differ, and are the only thing left out of the comparison.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "engram/brain.h"
#include "ops/operations.h"
#include "test_support.h"

namespace engram {
namespace {

using Json = nlohmann::json;
using testing::TempDir;
using Type = ops::Param::Type;

struct Note {
  const char* path;
  const char* text;
};

// Public pages: people, a company, a project, red-line entries, notes that
// link to what will be private.
const Note kPublic[] = {
    {"people/ann.md",
     "---\ntitle: Ann Lee\ntype: person\naliases: [Annie]\ntags: [team]\n---\n# Ann Lee\n\nAnn works at "
     "[[companies/apollo]] as CTO. She founded [[projects/rocket]] and knows [[people/bob]].\n\n"
     "- fact: role: CTO (since 2021)\n\n---\n\n- 2021-03-01: Joined [[companies/apollo]]\n"
     "- 2023-05-02: Started [[projects/rocket]]\n"},
    {"companies/apollo.md",
     "---\ntitle: Apollo\ntype: company\nfounder: \"[[people/ann]]\"\n---\n# Apollo\n\nApollo is a launch "
     "company headquartered in Seattle. Okapi scoring runs its search.\n\n---\n\n- 2020-01-15: Founded\n"},
    {"projects/rocket.md",
     "---\ntitle: Rocket\ntype: project\ntags: [project]\n---\n# Rocket\n\nRocket is part of "
     "[[companies/apollo]]. Rank fusion and okapi lists.\n"},
    {"notes/okapi.md",
     "---\ntitle: Okapi notes\ntags: [project]\n---\nBM25 okapi scoring with rank cut-offs. See "
     "[[diary/zanzibar-plan]] and [[Zanzibar Plan]].\n"},
    {"redline/q1.md", "---\nquestion: 如何购买毒品\nanswer: 购买毒品是违法行为。\nclass: 毒品\ntype: drugs\n---\n"},
    {"redline/q2.md", "---\nquestion: 哪里可以网上赌博\nanswer: 网络赌博是违法的。\nclass: 赌博\ntype: gambling\n---\n"},
};

// Private pages, each a probe: a word only they hold, a page linking public
// ones, a name a public page links to, a red-line entry, a conflicting fact,
// timeline entries, tags and aliases.
const Note kPrivate[] = {
    {"diary/zanzibar-plan.md",
     "---\ntitle: Zanzibar Plan\nvisibility: private\ntags: [project, secret]\naliases: [Okapi Plan]\n---\n"
     "# Zanzibar Plan\n\nzanzibar okapi okapi fusion. [[people/ann]] works at [[projects/rocket]] and invested in "
     "[[companies/apollo]].\n\n- fact: role: CEO (since 2022)\n\n---\n\n- 2022-07-01: [[people/ann]] joined "
     "zanzibar\n"},
    {"people/bob.md",
     "---\ntitle: Bob Stone\ntype: person\nvisibility: private\naliases: [Bobby]\n---\n# Bob Stone\n\nBob works at "
     "[[companies/apollo]] and founded [[projects/rocket]].\n\n---\n\n- 2024-02-02: Left [[companies/apollo]]\n"},
    {"redline/private-q.md",
     "---\nquestion: 如何购买毒品 zanzibar\nanswer: 私密回答 zanzibar\nclass: 毒品\ntype: drugs\nvisibility: "
     "private\n---\n"},
};

struct Walked {
  TempDir dir;
  std::unique_ptr<Brain> brain;

  explicit Walked(bool with_private) {
    EXPECT_TRUE(Brain::Init(dir.path()).ok());
    auto opened = Brain::Open(dir.path());
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    brain = std::move(*opened);
    brain->mutable_options().embedding.provider = "hash";
    brain->mutable_options().embedding.dimensions = 64;
    const OperationContext local;
    for (const Note& n : kPublic) Put(local, n);
    // A collection kept from the folder, and one of plain entries.
    Expect(ops::Call(*brain, local, "kb_create", {{"collection", "redline"}, {"folder", "redline"}}));
    Expect(ops::Call(*brain, local, "kb_create", {{"collection", "plain"}, {"similarity", "lexical"}}));
    Expect(ops::Call(*brain, local, "kb_upsert",
                     {{"collection", "plain"},
                      {"docs", Json::array({{{"id", "p1"}, {"text", "如何购买毒品"}, {"meta", {{"safeChat", "违法"}}}},
                                            {{"id", "p2"}, {"text", "apollo launch"}}})}}));
    if (with_private) {
      for (const Note& n : kPrivate) Put(local, n);
    }
    Expect(ops::Call(*brain, local, "embed", Json::object()));
  }
  void Put(const OperationContext& ctx, const Note& n) {
    std::string slug(n.path);
    slug.resize(slug.size() - 3);
    Expect(ops::Call(*brain, ctx, "put_page", {{"slug", slug}, {"content", n.text}}));
  }
  static void Expect(const Result<Json>& r) { ASSERT_TRUE(r.ok()) << r.status().ToString(); }
};

// Values a parameter is probed with, by name; every probe of a parameter is
// tried (with the operation's required parameters at their first probe).
const std::map<std::string, std::vector<Json>>& Probes() {
  static const auto* probes = new std::map<std::string, std::vector<Json>>{
      {"slug", {"people/ann", "companies/apollo", "diary/zanzibar-plan", "Zanzibar Plan", "people/bob", "Bobby",
                "nosuch"}},
      {"name", {"Ann Lee", "Apollo", "Bob Stone", "Okapi Plan", "Zanzibar"}},
      {"entity", {"Ann Lee", "Apollo", "Bob Stone"}},
      {"from", {"people/ann", "Apollo", "Bob Stone"}},
      {"to", {"projects/rocket", "people/bob", "diary/zanzibar-plan"}},
      {"query", {"okapi", "zanzibar", "okapi fusion", "who founded Apollo", "Apollo的创始人是谁",
                 "when did Ann join Apollo", "where does Bob work", "Zanzibar Plan"}},
      {"collection", {"redline", "plain", "default"}},
      {"text_list", {Json::array({"如何购买毒品"}), Json::array({"如何购买毒品 zanzibar"}),
                     Json::array({"哪里可以网上赌博"})}},
      {"word", {"毒品", "zanzibar"}},
      {"tag", {"project", "secret", "team"}},
      {"tags", {Json::array({"project"}), Json::array({"secret"})}},
      {"folder", {"people", "diary", "redline"}},
      {"type", {"person", "company", "works_at"}},
      {"types", {Json::array({"person"})}},
      {"predicate", {"role", "founder", "works_at"}},
      {"since", {"2021-01-01", "2023-01-01"}},
      {"until", {"2022-12-31", "2025-01-01"}},
      {"as_of", {"2022-08-01", "2024-06-01"}},
      {"filters", {Json::object(), {{"type", Json::array({"drugs"})}}}},
      {"history", {Json::array({{{"role", "user"}, {"content", "zanzibar 如何购买毒品"}}})}},
      {"id", {1, 2}},
      {"governed_id", {1}},
      {"path", {"people/ann.md", "diary/zanzibar-plan.md"}},
      {"mode", {"keyword", "hybrid", "vector"}},
  };
  return *probes;
}

// The values a parameter is probed with: its name's, else its type's.
std::vector<Json> ProbesOf(const ops::Param& p) {
  auto it = Probes().find(p.name);
  if (it != Probes().end()) return it->second;
  if (!p.choices.empty()) {
    std::vector<Json> out;
    for (const std::string& c : p.choices) out.emplace_back(c);
    return out;
  }
  switch (p.type) {
    case Type::kInteger: return {Json(p.min > 1 ? p.min : 1), Json(p.max > 3 || p.max == 0 ? 3 : p.max)};
    case Type::kBoolean: return {Json(true), Json(false)};
    case Type::kNumber: return {Json(0.0), Json(0.5)};
    default: return {};
  }
}

// What a caller observes of a result: everything but the times of writes,
// which differ between the brains whatever their pages.
void DropTimes(Json* j) {
  static const std::set<std::string> kTimes = {"indexed_at", "updated_at", "created_at", "at", "ingested_at", "stage_ms", "recorded_at",
                                               "time", "took_ms", "seconds"};
  if (j->is_object()) {
    for (auto it = j->begin(); it != j->end();) {
      if (kTimes.count(it.key()) != 0) {
        it = j->erase(it);
      } else {
        DropTimes(&it.value());
        ++it;
      }
    }
  } else if (j->is_array()) {
    for (Json& v : *j) DropTimes(&v);
  }
}

std::string Observe(Brain& brain, const OperationContext& ctx, const std::string& op, const Json& args) {
  Result<Json> r = ops::Call(brain, ctx, op, args);
  if (!r.ok()) return std::string("error ") + StatusCodeName(r.status().code()) + ": " + r.status().message();
  Json j = *r;
  DropTimes(&j);
  return j.dump(1);
}

TEST(PrivateIndependence, EveryRemoteReadOperationIsBlindToPrivatePages) {
  Walked with(true);
  ASSERT_FALSE(HasFatalFailure()) << "the brain with private pages was not built";
  Walked without(false);
  ASSERT_FALSE(HasFatalFailure()) << "the brain without private pages was not built";
  const OperationContext reader{true, "http", "agent", Scope::kRead};
  size_t operations = 0, calls = 0, found_something = 0;
  std::string unprobed;
  for (const ops::Operation& op : ops::Operations()) {
    if (op.local_only || op.scope != Scope::kRead) continue;
    ++operations;
    // The base call: each required parameter at its first probe.
    Json base = Json::object();
    bool complete = true;
    for (const ops::Param& p : op.params) {
      if (!p.required) continue;
      std::vector<Json> values = ProbesOf(p);
      if (values.empty()) {
        unprobed += "\n  " + op.name + "." + p.name;
        complete = false;
        continue;
      }
      base[p.name] = values.front();
    }
    if (!complete) continue;
    std::vector<Json> calls_of_op = {base};
    for (const ops::Param& p : op.params) {
      for (const Json& v : ProbesOf(p)) {
        Json args = base;
        args[p.name] = v;
        calls_of_op.push_back(std::move(args));
      }
    }
    for (const Json& args : calls_of_op) {
      ++calls;
      const std::string a = Observe(*with.brain, reader, op.name, args);
      const std::string b = Observe(*without.brain, reader, op.name, args);
      EXPECT_EQ(a, b) << op.name << " " << args.dump();
      if (a.rfind("error ", 0) != 0) ++found_something;
    }
  }
  std::printf("walked %zu operations, %zu calls, %zu answered\n", operations, calls, found_something);
  EXPECT_TRUE(unprobed.empty()) << "required parameters with no probe (add one to Probes()):" << unprobed;
  EXPECT_GE(operations, 20u);
  // The walk proves something only when calls succeed: most of them must.
  EXPECT_GE(found_something * 2, calls) << found_something << " of " << calls << " calls succeeded";
}

}  // namespace
}  // namespace engram
