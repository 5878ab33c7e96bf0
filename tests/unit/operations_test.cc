// The operation layer: argument validation names the field, scopes and the
// local-only flag are enforced for every operation, every operation has a
// JSON Schema, and calls reach the brain (write, edit, read back).
#include <gtest/gtest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "engram/brain.h"
#include "ops/operations.h"
#include "test_support.h"

namespace engram::ops {
namespace {

using Json = nlohmann::json;
using engram::testing::TempDir;

class OperationsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(Brain::Init(dir_.path()).ok());
    auto b = Brain::Open(dir_.path());
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    brain_ = std::move(*b);
  }
  Result<Json> Run(const std::string& op, const Json& args, const OperationContext& ctx = {}) {
    return Call(*brain_, ctx, op, args);
  }
  TempDir dir_;
  std::unique_ptr<Brain> brain_;
};

TEST_F(OperationsTest, EveryOperationHasASchemaAndTheToolsAreThere) {
  for (const char* name : {"search", "context", "get_page", "put_page", "delete_page", "list_pages", "get_backlinks",
                           "get_timeline", "add_timeline_entry", "add_link", "get_tags", "add_tag", "status"}) {
    const Operation* op = FindOperation(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_FALSE(op->local_only) << name;
    Json schema = InputSchema(*op);
    EXPECT_EQ(schema["type"], "object") << name;
    EXPECT_EQ(schema["additionalProperties"], false) << name;
  }
  EXPECT_EQ(InputSchema(*FindOperation("search"))["required"], Json::array({"query"}));
  EXPECT_EQ(InputSchema(*FindOperation("put_page"))["required"], Json::array({"slug", "content"}));
  EXPECT_TRUE(FindOperation("sync")->local_only);
  EXPECT_TRUE(FindOperation("import")->local_only);
  EXPECT_EQ(FindOperation("nope"), nullptr);
}

// Modules add their operations to one table; a nameless or handler-less
// operation, or a second one of a name, is refused and kept as the error.
TEST(OperationTable, RefusesDuplicatesAndIncompleteOperations) {
  auto handler = [](Brain&, const OperationContext&, const Args&) -> Result<Json> { return Json::object(); };
  OperationTable table;
  table.Add({"first", "one", Scope::kRead, false, {}, handler});
  EXPECT_TRUE(table.error().empty());
  table.Add({"first", "again", Scope::kRead, false, {}, handler});
  EXPECT_NE(table.error().find("'first' is added twice"), std::string::npos) << table.error();
  OperationTable nameless;
  nameless.Add({"", "none", Scope::kRead, false, {}, handler});
  EXPECT_FALSE(nameless.error().empty());
  OperationTable no_handler;
  no_handler.Add({"x", "no handler", Scope::kRead, false, {}, nullptr});
  EXPECT_NE(no_handler.error().find("no handler"), std::string::npos);
  EXPECT_EQ(table.Take().size(), 1u);
  // The real table: every module's operations, each once, in registrar order.
  std::set<std::string> names;
  for (const Operation& op : Operations()) EXPECT_TRUE(names.insert(op.name).second) << op.name;
  EXPECT_EQ(Operations().front().name, "search");
  EXPECT_EQ(Operations().back().name, "list_orphans");
}

// A module the brain has never heard of: what a later capability (kb,
// graph, jobs) adds without touching Brain.
struct CountingModule final : BrainModule {
  explicit CountingModule(Brain& b) : brain(&b) { ++built; }
  ~CountingModule() override { ++destroyed; }
  Brain* brain;
  int calls = 0;
  static inline int built = 0, destroyed = 0;
};

// Brain::Module<M>() builds a module on first use, from the brain it serves,
// and hands back the same one for the brain's life; each brain has its own,
// and they go with the brain.
TEST_F(OperationsTest, ModulesAreBuiltOnceOnFirstUseAndLiveWithTheirBrain) {
  CountingModule::built = CountingModule::destroyed = 0;
  EXPECT_EQ(CountingModule::built, 0) << "nothing is built before it is asked for";
  CountingModule& m = brain_->Module<CountingModule>();
  EXPECT_EQ(m.brain, brain_.get());
  ++m.calls;
  EXPECT_EQ(&brain_->Module<CountingModule>(), &m);
  EXPECT_EQ(brain_->Module<CountingModule>().calls, 1) << "the module keeps its state";
  EXPECT_EQ(CountingModule::built, 1);
  {
    auto other = Brain::Open(dir_.path());
    ASSERT_TRUE(other.ok());
    EXPECT_NE(&(*other)->Module<CountingModule>(), &m) << "one per brain (the server pools brains)";
    EXPECT_EQ(CountingModule::built, 2);
  }
  EXPECT_EQ(CountingModule::destroyed, 1) << "a brain's modules go with it";
  brain_.reset();
  EXPECT_EQ(CountingModule::destroyed, 2);
}

TEST_F(OperationsTest, BadArgumentsNameTheField) {
  struct Case {
    const char* op;
    Json args;
    const char* expect;
  };
  const std::vector<Case> cases = {
      {"get_page", Json::array(), "must be a JSON object"},
      {"get_page", Json::object(), "field 'slug' is required"},
      {"get_page", {{"slug", 5}}, "field 'slug' must be a string"},
      {"get_page", {{"slug", "a"}, {"extra", true}}, "unknown field 'extra'"},
      {"get_page", {{"slug", std::string(2000, 'a')}}, "over the limit of 1024"},
      {"search", {{"query", "x"}, {"limit", 0}}, "between 1 and 100"},
      {"search", {{"query", "x"}, {"limit", 1.5}}, "must be an integer"},
      {"search", {{"query", "x"}, {"mode", "magic"}}, "must be one of keyword, vector, hybrid"},
      {"search", {{"query", "x"}, {"filters", {{"colour", "red"}}}}, "unknown field 'filters.colour'"},
      {"search", {{"query", "x"}, {"filters", {{"type", {1, 2}}}}}, "must hold strings only"},
      {"search", {{"query", "x"}, {"explain", "yes"}}, "true or false"},
      {"search", {{"query", "\xff\xfe"}}, "not valid UTF-8"},
      {"add_link", {{"slug", "a"}, {"target", "b"}, {"type", "married_to"}}, "must be one of"},
  };
  for (const Case& c : cases) {
    auto r = Run(c.op, c.args);
    ASSERT_FALSE(r.ok()) << c.op << " " << c.args.dump();
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << c.args.dump();
    EXPECT_NE(r.status().message().find(c.expect), std::string::npos) << r.status().message();
  }
  EXPECT_EQ(Run("nope", Json::object()).status().code(), StatusCode::kNotFound);
  // null arguments read as none.
  EXPECT_TRUE(Run("status", nullptr).ok());
}

TEST_F(OperationsTest, ScopesAndLocalOnly) {
  OperationContext reader{true, "test", "agent", Scope::kRead};
  OperationContext writer{true, "test", "agent", Scope::kWrite};
  OperationContext admin{true, "test", "agent", Scope::kAdmin};
  const Json page = {{"slug", "notes/a"}, {"content", "# A\nalpha beta\n"}};
  EXPECT_EQ(Run("put_page", page, reader).status().code(), StatusCode::kPermissionDenied);
  ASSERT_TRUE(Run("put_page", page, writer).ok());
  EXPECT_TRUE(Run("get_page", {{"slug", "notes/a"}}, reader).ok());
  EXPECT_EQ(Run("add_tag", {{"slug", "notes/a"}, {"tag", "x"}}, reader).status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(Run("delete_page", {{"slug", "notes/a"}}, reader).status().code(), StatusCode::kPermissionDenied);
  // Local-only whatever the scope; fine locally.
  auto sync = Run("import", {{"dir", dir_.path().string()}}, admin);
  EXPECT_EQ(sync.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(sync.status().message().find("local-only"), std::string::npos);
  EXPECT_TRUE(Run("import", {{"dir", dir_.path().string()}, {"dry_run", true}}).ok());
  EXPECT_EQ(Run("embed", Json::object(), writer).status().code(), StatusCode::kPermissionDenied);
}

// Issue 32: who may run an operation is decided before its arguments are
// read — a read token learns nothing of a write operation's parameters — and
// an argument that reads pages (a collection kept from a folder) needs admin.
TEST_F(OperationsTest, TheCallerIsCheckedBeforeTheArguments) {
  OperationContext reader{true, "test", "agent", Scope::kRead};
  OperationContext writer{true, "test", "agent", Scope::kWrite};
  OperationContext admin{true, "test", "agent", Scope::kAdmin};
  for (const Json& args : {Json::object(), Json{{"nonsense", 1}}, Json{{"slug", 5}}}) {
    auto r = Run("put_page", args, reader);
    EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied) << args.dump() << ": " << r.status().ToString();
    EXPECT_EQ(r.status().message().find("slug"), std::string::npos) << r.status().ToString();
  }
  EXPECT_EQ(Run("merge_entities", Json::object(), admin).status().code(), StatusCode::kPermissionDenied);
  auto folder = Run("kb_create", {{"collection", "kept"}, {"folder", "redline"}}, writer);
  EXPECT_EQ(folder.status().code(), StatusCode::kPermissionDenied) << folder.status().ToString();
  EXPECT_NE(folder.status().message().find("'folder' needs the admin scope"), std::string::npos);
  EXPECT_TRUE(Run("kb_create", {{"collection", "plain"}}, writer).ok()) << "a collection of entries is a writer's";
  EXPECT_TRUE(Run("kb_create", {{"collection", "kept"}, {"folder", "redline"}}, admin).ok());
  EXPECT_EQ(Run("kb_create", {{"collection", "engram"}, {"folder", ".engram"}}).status().code(),
            StatusCode::kInvalidArgument)
      << "a hidden folder holds no pages";
}

// Issue 32: silent accepts are errors that name what is wrong.
TEST_F(OperationsTest, EmptyQuestionsAndUnknownFiltersAreRefused) {
  auto empty = Run("kb_answer", {{"text_list", Json::array({"  "})}});
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument) << empty.status().ToString();
  // The default collection, before it exists, filters on the fields it will have.
  auto unknown = Run("kb_search", {{"text_list", Json::array({"x"})}, {"filters", {{"colour", Json::array({"red"})}}}});
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument) << unknown.status().ToString();
  EXPECT_NE(unknown.status().message().find("colour"), std::string::npos);
  EXPECT_TRUE(Run("kb_search", {{"text_list", Json::array({"x"})}, {"filters", {{"type", Json::array({"a"})}}}}).ok());
}

TEST_F(OperationsTest, WriteEditReadBack) {
  OperationContext agent{true, "test", "agent", Scope::kWrite};
  ASSERT_TRUE(Run("put_page", {{"slug", "people/ann"}, {"content", "---\ntitle: Ann\n---\nAnn builds rank fusion.\n"}}, agent).ok());
  ASSERT_TRUE(Run("put_page", {{"slug", "companies/acme"}, {"content", "# Acme\nA company.\n"}}, agent).ok());
  auto tagged = Run("add_tag", {{"slug", "people/ann"}, {"tag", "engineer"}}, agent);
  ASSERT_TRUE(tagged.ok()) << tagged.status().ToString();
  EXPECT_EQ((*tagged)["changed"], true);
  EXPECT_EQ((*Run("add_tag", {{"slug", "people/ann"}, {"tag", "engineer"}}, agent))["changed"], false);
  ASSERT_TRUE(Run("add_link", {{"slug", "people/ann"}, {"target", "companies/acme"}, {"type", "works_at"}}, agent).ok());
  ASSERT_TRUE(Run("add_timeline_entry",
                  {{"slug", "people/ann"}, {"date", "2026-04-07"}, {"summary", "Joined Acme"}, {"source", "hr"}}, agent)
                  .ok());
  auto tags = Run("get_tags", {{"slug", "people/ann"}}, agent);
  EXPECT_EQ((*tags)["tags"], Json::array({"engineer"}));
  auto back = Run("get_backlinks", {{"slug", "companies/acme"}}, agent);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ((*back)["backlinks"].size(), 1u);
  EXPECT_EQ((*back)["backlinks"][0]["from"], "people/ann");
  EXPECT_EQ((*back)["backlinks"][0]["type"], "works_at");
  auto tl = Run("get_timeline", {{"slug", "people/ann"}}, agent);
  ASSERT_EQ((*tl)["timeline"].size(), 1u);
  EXPECT_EQ((*tl)["timeline"][0]["summary"], "Joined Acme");
  auto found = Run("search", {{"query", "rank fusion"}, {"limit", 3}}, agent);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ((*found)["results"][0]["slug"], "people/ann");
  auto ctx = Run("context", {{"query", "rank fusion"}, {"max_chars", 500}}, agent);
  ASSERT_TRUE(ctx.ok());
  EXPECT_NE((*ctx)["context"].get<std::string>().find("people/ann"), std::string::npos);
  auto listed = Run("list_pages", {{"type", "person"}}, agent);
  EXPECT_EQ((*listed)["count"], 1);
  auto status = Run("status", Json::object(), agent);
  EXPECT_EQ((*status)["pages"], 2);
  EXPECT_FALSE(status->contains("root"));  // remote callers do not learn where the files are
  ASSERT_TRUE(Run("delete_page", {{"slug", "companies/acme"}}, agent).ok());
  EXPECT_EQ(Run("get_page", {{"slug", "companies/acme"}}, agent).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace engram::ops
