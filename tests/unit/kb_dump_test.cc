// JoySafety's governance table from a MySQL dump: the reader on dumps as
// mysqldump writes them (multi-row INSERTs, escapes, comments, CREATE TABLE
// column order) and on broken ones (line and reason, nothing read), and the
// import into governed entries: versions, status and people kept, only the
// latest online version searchable, a re-import converging.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <set>

#include "common/hash.h"
#include "engram/brain.h"
#include "kb/mysql_dump.h"
#include "ops/kb_module.h"
#include "test_support.h"

namespace engram {
namespace {

const char kDump[] = R"SQL(-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)
--
-- Host: 127.0.0.1    Database: safety
/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET NAMES utf8mb4 */;
DROP TABLE IF EXISTS `red_line_knowledge`;
CREATE TABLE `red_line_knowledge` (
  `id` bigint NOT NULL AUTO_INCREMENT,
  `uniq_id` varchar(64) NOT NULL COMMENT 'md5(question); it''s the identity',
  `business_scene` varchar(64) NOT NULL,
  `question` text NOT NULL,
  `answer` text,
  `metadata` json DEFAULT NULL,
  `class_name` varchar(255) DEFAULT '',
  `class_no` varchar(64) DEFAULT '',
  `source` varchar(64) DEFAULT '',
  `type` varchar(64) DEFAULT '',
  `desc` varchar(255) DEFAULT '',
  `version` int NOT NULL DEFAULT '1',
  `status` varchar(16) NOT NULL DEFAULT 'online',
  `editor` varchar(64) DEFAULT NULL,
  `create_time` datetime DEFAULT CURRENT_TIMESTAMP,
  `update_time` datetime DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  PRIMARY KEY (`id`),
  UNIQUE KEY `uk_uniq_scene_version` (`uniq_id`,`business_scene`,`version`),
  KEY `idx_status` (`status`)
) ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=utf8mb4;

LOCK TABLES `red_line_knowledge` WRITE;
/*!40000 ALTER TABLE `red_line_knowledge` DISABLE KEYS */;
INSERT INTO `red_line_knowledge` VALUES (1,'u1','chat','如何购买毒品','购买毒品是违法行为，请远离毒品。','{\"level\": 2}','违法/毒品','A01','manual','drugs','',1,'online','张三','2025-01-02 03:04:05','2025-01-02 03:04:05'),(2,'u1','chat','如何购买毒品?','购买、吸食毒品均属违法。\r\n请远离毒品。','{}','违法/毒品','A01','manual','drugs','v2',2,'online','李四','2025-01-02 03:04:05','2025-02-01 00:00:00'),(3,'u2','chat','where can I bet on football online','Online gambling is illegal here; it\'s also a \"scam\" risk.',NULL,'违法/赌博','A02','',NULL,'',1,'offline',NULL,'2025-01-03 00:00:00','2025-01-03 00:00:00');
INSERT INTO `red_line_knowledge` VALUES (4,'u3','game','网上赌球的渠道','赌博违法。\\ 远离赌博。','{}','违法/赌博','A02','','gambling','',1,1,NULL,'2025-01-04 00:00:00','2025-01-04 00:00:00');
/*!40000 ALTER TABLE `red_line_knowledge` ENABLE KEYS */;
UNLOCK TABLES;
INSERT INTO `other_table` VALUES (1,'not ours; with a ; inside');
)SQL";

TEST(MysqlDump, ReadsMysqldumpOutput) {
  auto table = kb::ReadMysqlInserts(kDump, "red_line_knowledge");
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_EQ(table->columns.size(), 16u);
  EXPECT_EQ(table->columns[10], "desc");
  ASSERT_EQ(table->rows.size(), 4u);
  EXPECT_EQ(table->rows[0].line, 31);
  EXPECT_EQ(table->rows[3].line, 32);
  EXPECT_EQ(*table->rows[1].values[4], "购买、吸食毒品均属违法。\r\n请远离毒品。");
  EXPECT_EQ(*table->rows[2].values[4], "Online gambling is illegal here; it's also a \"scam\" risk.");
  EXPECT_FALSE(table->rows[2].values[5].has_value());  // NULL
  EXPECT_EQ(*table->rows[3].values[4], "赌博违法。\\ 远离赌博。");

  auto rows = kb::ReadRedLineDump(kDump);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 4u);
  const GovernedEntry& first = (*rows)[0];
  EXPECT_EQ(first.uniq_id, "u1");
  EXPECT_EQ(first.class_name, "违法/毒品");
  EXPECT_EQ(first.metadata, R"({"level": 2})");
  EXPECT_EQ(first.editor, "张三");
  EXPECT_EQ(first.create_time, "2025-01-02 03:04:05");
  EXPECT_EQ((*rows)[1].version, 2);
  EXPECT_EQ((*rows)[2].status, "offline");
  EXPECT_EQ((*rows)[2].metadata, "{}");
  EXPECT_EQ((*rows)[3].status, "online");  // status 1
}

TEST(MysqlDump, ColumnListsCharsetsHexAndOtherForms) {
  const std::string dump =
      "INSERT IGNORE INTO `safety`.`red_line_knowledge` (`business_scene`, `question`, answer, `status`) VALUES\n"
      "  ('chat', _utf8mb4'怎么洗钱', X'E8BF9DE6B395', 'OFFLINE'),\n"
      "  ('chat', 'a''b', 0x6F6B, DEFAULT_VALUE) ON DUPLICATE KEY UPDATE answer = VALUES(answer);\n"
      "# a comment\nREPLACE INTO red_line_knowledge (business_scene, question) VALUE ('x', 'y');";
  // The REPLACE names other columns than the first INSERT: refused, naming its line.
  auto governed = kb::ReadRedLineDump(dump);
  ASSERT_FALSE(governed.ok());
  EXPECT_EQ(governed.status().message(), "line 5: this INSERT's columns differ from the first INSERT's");
  auto same = kb::ReadRedLineDump(dump.substr(0, dump.find("# a comment")));
  ASSERT_FALSE(same.ok());  // DEFAULT_VALUE is no status
  EXPECT_EQ(same.status().message(), "line 3: status 'DEFAULT_VALUE' is neither online nor offline (nor 1 or 0)");
  auto two = kb::ReadMysqlInserts(dump.substr(0, dump.find("# a comment")), "red_line_knowledge");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(*two->rows[0].values[1], "怎么洗钱");
  EXPECT_EQ(*two->rows[0].values[2], "违法");
  EXPECT_EQ(*two->rows[1].values[1], "a'b");
  EXPECT_EQ(*two->rows[1].values[2], "ok");
  EXPECT_EQ(common::Md5Hex("怎么洗钱"), kb::ReadRedLineDump(
      "INSERT INTO red_line_knowledge (business_scene, question) VALUES ('c', '怎么洗钱');")->front().uniq_id);
}

TEST(MysqlDump, ABrokenDumpSaysWhereAndReadsNothing) {
  auto why = [](const std::string& dump) {
    auto r = kb::ReadRedLineDump(dump);
    EXPECT_FALSE(r.ok()) << dump;
    return r.ok() ? std::string() : r.status().message();
  };
  const std::string head = "INSERT INTO `red_line_knowledge` (`business_scene`,`question`) VALUES ";
  // Cut short: inside a string, inside a row, after a row.
  EXPECT_EQ(why(head + "('chat','how to"), "line 1: a string never ends (is the dump cut short?)");
  EXPECT_EQ(why(head + "('chat',"), "line 1: the dump ends inside a row (is it cut short?)");
  EXPECT_EQ(why(head + "('chat','q'),\n('chat','r')"), "line 2: the INSERT never ends with ';' (is the dump cut short?)");
  EXPECT_EQ(why(head + "('chat','q'),\n"), "line 2: the dump ends inside an INSERT (is it cut short?)");
  EXPECT_EQ(why(head + "('chat','q','extra');"), "line 1: a row has 3 values for 2 columns");
  EXPECT_EQ(why(head + "('chat' 'q');"), "line 1: ',' or ')' was expected between a row's values");
  EXPECT_EQ(why(head + "('chat',NULL);"), "line 1: question is empty or NULL");
  EXPECT_EQ(why(head + "('chat','\xff\xfe');"), "line 1: question is not valid UTF-8");
  EXPECT_EQ(why("INSERT INTO `red_line_knowledge` (`question`) VALUES ('q');"),
            "line 1: the INSERTs of red_line_knowledge have no business_scene column");
  EXPECT_EQ(why("\n\nINSERT INTO red_line_knowledge VALUES (1,'q');"),
            "line 3: an INSERT INTO `red_line_knowledge` names no columns and no CREATE TABLE for it comes before it");
  EXPECT_EQ(why("/* never closed"), "line 1: a /* comment never ends");
  EXPECT_EQ(why("INSERT INTO `red_line_knowledge` (`business_scene`,`question`,`version`) VALUES ('c','q','2x');"),
            "line 1: version '2x' is not a whole number >= 1");
  EXPECT_EQ(why("INSERT INTO `red_line_knowledge` (`business_scene`,`question`,`metadata`) VALUES ('c','q','[1]');"),
            "line 1: metadata is not a JSON object");
  // No INSERT of the table: nothing to import, not an error.
  auto none = kb::ReadRedLineDump("CREATE TABLE t (a int);\nINSERT INTO t VALUES (1);");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

class KbImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(Brain::Init(dir_.path()).ok());
    auto b = Brain::Open(dir_.path());
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    brain_ = std::move(*b);
    KbCollection c;
    c.name = "redline";
    c.fields = {{"className", KbFieldType::kString}, {"type", KbFieldType::kString}};
    ASSERT_TRUE(Kb().Create(OperationContext{}, c, false).ok());
  }
  ops::KbModule& Kb() { return brain_->Module<ops::KbModule>(); }
  ops::KbModule::ImportCounts Import(std::vector<GovernedEntry> rows, size_t batch = 1000) {
    auto r = Kb().GovernedImport(OperationContext{}, std::move(rows), "redline", batch, nullptr);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ops::KbModule::ImportCounts{};
  }
  std::set<std::string> Searchable() {
    std::set<std::string> ids;
    for (int64_t after = 0;;) {
      auto page = Kb().Scan(ReadScope::All(kDefaultSource), "redline", after, 100);
      EXPECT_TRUE(page.ok());
      for (const KbEntry& e : *page) ids.insert(e.id);
      if (page->size() < 100) break;
      after = page->back().key;
    }
    return ids;
  }
  testing::TempDir dir_;
  std::unique_ptr<Brain> brain_;
};

TEST_F(KbImportTest, KeepsVersionsAndStatusAndOnlyTheLatestOnlineIsSearchable) {
  auto rows = kb::ReadRedLineDump(kDump);
  ASSERT_TRUE(rows.ok());
  ops::KbModule::ImportCounts counts = Import(*rows, 1);
  EXPECT_EQ(counts.imported, 4u);
  EXPECT_EQ(Searchable(), (std::set<std::string>{"chat_u1_2", "game_u3_1"}));  // u1 v1 is old, u2 offline
  auto hits = Kb().Search(ReadScope::All(kDefaultSource), "redline", "如何购买毒品", nullptr, {5, 0.5});
  ASSERT_TRUE(hits.ok());
  ASSERT_FALSE(hits->empty());
  EXPECT_EQ(hits->front().entry.id, "chat_u1_2");
  auto found = Kb().GovernedFind("购买毒品", 10);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(found->front().version, 2);
  EXPECT_EQ(found->front().editor, "李四");
  EXPECT_EQ(found->front().update_time, "2025-02-01 00:00:00");
  EXPECT_TRUE(Kb().CheckGoverned()->empty());
  auto audit = Kb().Audit(0, 100);
  ASSERT_TRUE(audit.ok());
  EXPECT_EQ(audit->size(), 4u);
  EXPECT_EQ(audit->front().action, "import");

  // Again: nothing new, nothing changed.
  counts = Import(*rows);
  EXPECT_EQ(counts.imported, 0u);
  EXPECT_EQ(counts.skipped, 4u);
  EXPECT_EQ(Searchable(), (std::set<std::string>{"chat_u1_2", "game_u3_1"}));
  EXPECT_EQ(Kb().Audit(0, 100)->size(), 4u);
}

TEST_F(KbImportTest, AnInterruptedImportConvergesWhenRunAgain) {
  auto rows = kb::ReadRedLineDump(kDump);
  ASSERT_TRUE(rows.ok());
  // As if the first run stopped after u1's first version: the rest comes in on the second run.
  Import({(*rows)[0]});
  EXPECT_EQ(Searchable(), (std::set<std::string>{"chat_u1_1"}));
  ops::KbModule::ImportCounts counts = Import(*rows);
  EXPECT_EQ(counts.imported, 3u);
  EXPECT_EQ(counts.skipped, 1u);
  EXPECT_EQ(Searchable(), (std::set<std::string>{"chat_u1_2", "game_u3_1"}));
  EXPECT_TRUE(Kb().CheckGoverned()->empty());
}

TEST_F(KbImportTest, OfTwoRowsOfOneVersionTheLaterCounts) {
  auto rows = kb::ReadRedLineDump(
      "INSERT INTO red_line_knowledge (business_scene, question, answer, version) VALUES "
      "('chat', '如何购买毒品', 'first', 1), ('chat', '如何购买毒品', 'second', 1);");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ops::KbModule::ImportCounts counts = Import(*rows);
  EXPECT_EQ(counts.imported, 1u);
  auto found = Kb().GovernedFind("购买毒品", 10);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(found->front().answer, "second");
}

TEST_F(KbImportTest, ABadRowImportsNothing) {
  auto rows = kb::ReadRedLineDump(kDump);
  ASSERT_TRUE(rows.ok());
  (*rows)[2].business_scene = " ";
  auto r = Kb().GovernedImport(OperationContext{}, *rows, "redline", 1, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "row 3: business_scene is empty");
  EXPECT_TRUE(Kb().Audit(0, 100)->empty());
}

}  // namespace
}  // namespace engram
