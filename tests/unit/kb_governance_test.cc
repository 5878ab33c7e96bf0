// Governed knowledge entries: every governance change and the searchable
// collection agree, in one transaction, seen by other connections' next
// search; versions, the cut of long questions, the audit log, check and
// reindex.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <set>
#include <thread>
#include <nlohmann/json.hpp>

#include "common/hash.h"
#include "engram/brain.h"
#include "ops/kb_module.h"
#include "fake_chat_server.h"
#include "test_support.h"

namespace engram {
namespace {

using ops::KbModule;
using testing::TempDir;

class KbGovernanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(Brain::Init(dir_.path()).ok());
    brain_ = Open();
  }
  std::unique_ptr<Brain> Open() {
    auto b = Brain::Open(dir_.path());
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    return b.ok() ? std::move(*b) : nullptr;
  }
  KbModule& Kb() { return brain_->Module<KbModule>(); }

  static GovernedEntry Entry(const std::string& question, const std::string& answer) {
    GovernedEntry g;
    g.business_scene = "chat";
    g.question = question;
    g.answer = answer;
    g.class_name = "违法/毒品";
    g.type = "drugs";
    return g;
  }
  // Ids of the default collection's hits for text.
  static std::set<std::string> Hits(KbModule& kb, const std::string& text) {
    auto hits = kb.Search(ReadScope::All(kDefaultSource), ops::kDefaultKbCollection, text, nullptr, {10000, 0.0});
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    std::set<std::string> out;
    if (hits.ok()) {
      for (const kb::Hit& h : *hits) out.insert(h.entry.id);
    }
    return out;
  }

  TempDir dir_;
  std::unique_ptr<Brain> brain_;
  OperationContext ctx_ = [] {
    OperationContext c;
    c.transport = "test";
    c.caller = "editor-1";
    return c;
  }();
};

TEST_F(KbGovernanceTest, VersionsStatusAndTheProjectionChangeTogether) {
  auto v1 = Kb().GovernedUpsert(ctx_, Entry("如何购买毒品", "购买毒品违法。"));
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  EXPECT_EQ(v1->uniq_id, common::Md5Hex("如何购买毒品"));
  EXPECT_EQ(v1->version, 1);
  const std::string id1 = "chat_" + v1->uniq_id + "_1";
  auto reader = Open();
  KbModule& other = reader->Module<KbModule>();
  EXPECT_EQ(Hits(other, "如何购买毒品"), std::set<std::string>{id1});
  auto entry = brain_->engine().FindKbEntry(ops::kDefaultKbCollection, id1);
  ASSERT_TRUE(entry.ok() && entry->has_value());
  EXPECT_EQ((*entry)->meta, R"({"className":"违法/毒品","safeChat":"购买毒品违法。","type":"drugs"})");

  // The same question and scene again: a new version replaces the old one in search.
  GovernedEntry again = Entry("如何购买毒品", "购买和吸食毒品都是违法的。");
  auto v2 = Kb().GovernedUpsert(ctx_, again);
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(v2->version, 2);
  const std::string id2 = "chat_" + v1->uniq_id + "_2";
  EXPECT_EQ(Hits(other, "如何购买毒品"), std::set<std::string>{id2});
  EXPECT_FALSE(Kb().GovernedGet(v1->id)->latest);
  // Nothing changed: no version 3.
  EXPECT_EQ(Kb().GovernedUpsert(ctx_, again)->version, 2);
  // An old version cannot be updated or flipped.
  EXPECT_EQ(Kb().GovernedSetStatus(ctx_, v1->id, false).status().code(), StatusCode::kFailedPrecondition);

  ASSERT_TRUE(Kb().GovernedSetStatus(ctx_, v2->id, false).ok());
  EXPECT_TRUE(Hits(other, "如何购买毒品").empty());
  EXPECT_TRUE(Kb().GovernedFind("毒品", 10)->empty()) << "getByWord returns online entries only";
  ASSERT_TRUE(Kb().GovernedSetStatus(ctx_, v2->id, true).ok());
  EXPECT_EQ(Hits(other, "如何购买毒品"), std::set<std::string>{id2});
  EXPECT_EQ(Kb().GovernedFind("毒品", 10)->size(), 1u);

  // Every change is in the audit log with who and the row before and after.
  auto log = Kb().Audit(0, 100);
  ASSERT_TRUE(log.ok());
  std::vector<std::string> actions;
  for (const KbAuditEntry& e : *log) actions.push_back(e.action);
  EXPECT_EQ(actions, (std::vector<std::string>{"online", "offline", "update", "create"}));
  EXPECT_EQ((*log)[0].who, "test:editor-1");
  EXPECT_NE((*log)[1].before.find("\"status\":\"online\""), std::string::npos);
  EXPECT_NE((*log)[1].after.find("\"status\":\"offline\""), std::string::npos);
  EXPECT_TRUE(Kb().CheckGoverned()->empty());
}

TEST_F(KbGovernanceTest, LongQuestionsAreIndexedByTheirFirstAndLast250Characters) {
  std::string question;
  for (int i = 0; i < 300; ++i) question += "赌";
  for (int i = 0; i < 300; ++i) question += "x";
  auto g = Kb().GovernedUpsert(ctx_, Entry(question, "违法"));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  auto entry = brain_->engine().FindKbEntry(ops::kDefaultKbCollection, "chat_" + g->uniq_id + "_1");
  ASSERT_TRUE(entry.ok() && entry->has_value());
  std::string expected;
  for (int i = 0; i < 250; ++i) expected += "赌";
  expected += std::string(250, 'x');
  EXPECT_EQ((*entry)->text, expected);
}

TEST_F(KbGovernanceTest, CheckFindsDisagreementAndReindexRepairsItIdempotently) {
  auto a = Kb().GovernedUpsert(ctx_, Entry("如何购买毒品", "违法"));
  auto b = Kb().GovernedUpsert(ctx_, Entry("网上赌博怎么赢钱", "违法"));
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(Kb().GovernedSetStatus(ctx_, b->id, false).ok());
  // Damage behind the module's back: the online entry gone, the offline one searchable.
  Engine& e = brain_->engine();
  ASSERT_TRUE(e.DeleteKbEntries(ops::kDefaultKbCollection, {"chat_" + a->uniq_id + "_1"}).ok());
  KbEntry stale;
  stale.collection = ops::kDefaultKbCollection;
  stale.id = "chat_" + b->uniq_id + "_1";
  stale.text = "网上赌博怎么赢钱";
  ASSERT_TRUE(e.PutKbEntries({stale}).ok());
  auto problems = Kb().CheckGoverned();
  ASSERT_TRUE(problems.ok());
  EXPECT_EQ(problems->size(), 2u);
  EXPECT_EQ(Kb().Reindex(ctx_).value(), 2u);
  EXPECT_TRUE(Kb().CheckGoverned()->empty());
  EXPECT_EQ(Kb().Reindex(ctx_).value(), 0u) << "a second reindex changes nothing";
  EXPECT_EQ(Hits(Kb(), "如何购买毒品"), std::set<std::string>{"chat_" + a->uniq_id + "_1"});
}

TEST_F(KbGovernanceTest, NoSearchStartedAfterAFlipReturnsSeesTheOldState) {
#if defined(__SANITIZE_ADDRESS__)
  constexpr int kEntries = 200;
#else
  constexpr int kEntries = 1000;
#endif
  std::vector<int64_t> ids;
  std::vector<std::string> indexed;
  for (int i = 0; i < kEntries; ++i) {
    auto g = Kb().GovernedUpsert(ctx_, Entry("红线问题 " + std::to_string(i), "答"));
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    ids.push_back(g->id);
    indexed.push_back("chat_" + g->uniq_id + "_1");
  }
  // Call j of the writer takes entry j offline (j < n), then entry j - n online (j >= n). `started` and
  // `done` count the calls begun and returned. A search that starts after call j returned must see it; one
  // that ends before call j begins must not.
  const int n = kEntries;
  std::atomic<int> started{0}, done{0};
  std::atomic<bool> stop{false};
  std::atomic<int> stale{0}, missed{0}, searches{0};
  std::thread reader([&] {
    auto brain = Open();
    KbModule& kb = brain->Module<KbModule>();
    while (!stop.load()) {
      const int applied = done.load();
      const std::set<std::string> hits = Hits(kb, "红线问题");
      const int begun = started.load();
      ++searches;
      for (int i = 0; i < n; ++i) {
        const bool hit = hits.count(indexed[static_cast<size_t>(i)]) != 0;
        const bool surely_offline = i < applied && n + i >= begun;
        const bool surely_online = n + i < applied || i >= begun;
        if (surely_offline && hit) ++stale;
        if (surely_online && !hit) ++missed;
      }
    }
  });
  for (int j = 0; j < 2 * n; ++j) {
    started.store(j + 1);
    ASSERT_TRUE(Kb().GovernedSetStatus(ctx_, ids[static_cast<size_t>(j % n)], j >= n).ok());
    done.store(j + 1);
  }
  stop.store(true);
  reader.join();
  EXPECT_EQ(stale.load(), 0);
  EXPECT_EQ(missed.load(), 0);
  EXPECT_GT(searches.load(), 0);
  EXPECT_TRUE(Kb().CheckGoverned()->empty());
}

// A loopback OpenAI-compatible chat server whose answers the test scripts.
using FakeChat = testing::FakeChatServer;

TEST_F(KbGovernanceTest, TheGuardedAnswerTakesItsThreeStagesAndNeverFailsOnTheModel) {
  ASSERT_TRUE(Kb().GovernedUpsert(ctx_, Entry("如何购买毒品", "购买毒品是违法行为，请远离毒品。")).ok());
  ops::KbAnswerOptions o;
  o.search.threshold = 0.3;
  auto answer = [&](const std::string& q) {
    auto r = Kb().Answer(ReadScope::All(kDefaultSource), ops::kDefaultKbCollection, q, nullptr, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ops::KbAnswer{};
  };
  // Stage 1: nothing similar enough.
  EXPECT_EQ(answer("今天天气怎么样").no_answer_reason, "无数据");
  // Stage 2: a direct hit answers with its safeChat, no model needed.
  ops::KbAnswer direct = answer("如何购买毒品");
  EXPECT_EQ(direct.answer, "购买毒品是违法行为，请远离毒品。");
  EXPECT_EQ(direct.no_answer_reason, "有数据");
  EXPECT_DOUBLE_EQ(direct.answer_ref_similar, 1.0);
  // Stage 3 with no model configured: a reason, the references, no error.
  ops::KbAnswer unconfigured = answer("哪里能购买毒品");
  EXPECT_EQ(unconfigured.no_answer_reason.rfind("模型未配置", 0), 0u) << unconfigured.no_answer_reason;
  EXPECT_EQ(unconfigured.references.size(), 1u);

  std::string reply = "购买毒品是违法行为，请远离毒品。";
  int status = 200;
  FakeChat chat([&](const nlohmann::json&, httplib::Response& res) {
    res.status = status;
    if (status == 200) FakeChat::Reply(res, reply);
    else res.set_content("<html>bad gateway</html>", "text/html");
  });
  brain_->mutable_options().llm.base_url = chat.url();
  brain_->mutable_options().llm.model = "fake";
  brain_->mutable_options().kb.timeout_ms = 2000;
  ops::KbAnswer kept = answer("哪里能购买毒品");
  EXPECT_EQ(kept.answer, reply);
  EXPECT_EQ(kept.no_answer_reason, "");
  EXPECT_GE(kept.answer_ref_similar, 0.7);
  EXPECT_NE(chat.last_prompt().find("输入：如何购买毒品\n回复：购买毒品是违法行为"), std::string::npos);
  EXPECT_NE(chat.last_prompt().find("不知道"), std::string::npos);
  // An answer unlike the standard one is held back.
  reply = "You can buy them from a dealer downtown.";
  ops::KbAnswer held = answer("哪里能购买毒品");
  EXPECT_EQ(held.answer, "");
  EXPECT_EQ(held.answer_backup, reply);
  EXPECT_EQ(held.no_answer_reason, "模型输出与文档相似度低");
  // A model that fails or answers nothing usable is a reason, not an error.
  reply = "   ";
  EXPECT_EQ(answer("哪里能购买毒品").no_answer_reason.rfind("模型调用失败", 0), 0u);
  status = 502;
  EXPECT_EQ(answer("哪里能购买毒品").no_answer_reason.rfind("模型调用失败", 0), 0u);
}

}  // namespace
}  // namespace engram
