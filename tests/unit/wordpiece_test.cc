#include "embed/wordpiece.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace engram::embed {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

fs::path ModelsDir() { return fs::path(ENGRAM_SOURCE_DIR) / ".." / "shared" / "models"; }

// Every published golden tokenisation in ../shared/models (see its README):
// the vocabulary and normaliser named by the case, ids compared exactly.
TEST(WordPiece, MatchesEveryGoldenTokenization) {
  fs::path golden = ModelsDir() / "golden_tokenization.jsonl";
  if (!fs::exists(golden)) GTEST_SKIP() << "no " << golden;
  struct Setup {
    const char* vocab;
    bool lowercase;
  };
  const std::map<std::string, Setup> setups = {
      {"uncased", {"bert-base-uncased/vocab.txt", true}},
      {"zh_cased", {"bge-small-zh-v1.5/vocab.txt", false}},
      {"zh_lower", {"bge-small-zh-v1.5/vocab.txt", true}},
  };
  std::map<std::string, std::unique_ptr<WordPieceTokenizer>> tokenizers;
  std::ifstream in(golden);
  std::string line;
  int cases = 0, failures = 0;
  while (std::getline(in, line)) {
    Json c = Json::parse(line);
    std::string normalizer = c["normalizer"];
    const Setup& setup = setups.at(normalizer);
    size_t max_length = c.contains("max_length") ? c["max_length"].get<size_t>() : 100000;
    std::string key = normalizer + "/" + std::to_string(max_length);
    if (!tokenizers.count(key)) {
      WordPieceOptions o;
      o.lowercase = setup.lowercase;
      o.strip_accents = setup.lowercase;
      o.max_length = max_length;
      auto t = WordPieceTokenizer::FromVocabFile(ModelsDir() / setup.vocab, o);
      ASSERT_TRUE(t.ok()) << t.status().ToString();
      tokenizers[key] = std::move(t).value();
    }
    const WordPieceTokenizer& t = *tokenizers[key];
    std::string text = c["text"];
    bool pair = c.contains("text_pair");
    std::vector<int32_t> ids;
    std::vector<int32_t> type_ids;
    if (!c["add_special_tokens"].get<bool>()) {
      ids = t.Tokenize(text);
      if (pair) {
        auto b = t.Tokenize(c["text_pair"].get<std::string>());
        ids.insert(ids.end(), b.begin(), b.end());
      }
    } else {
      Encoding e = pair ? t.EncodePair(text, c["text_pair"].get<std::string>()) : t.Encode(text);
      ids = e.ids;
      type_ids = e.type_ids;
      if (c.contains("padding") && c["padding"] == "max_length") {
        ids.resize(max_length, t.pad_id());
        type_ids.resize(max_length, 0);
      }
    }
    ++cases;
    std::vector<int32_t> want = c["ids"].get<std::vector<int32_t>>();
    if (ids != want) {
      ++failures;
      ADD_FAILURE() << normalizer << " " << (pair ? "pair " : "") << "text: " << text.substr(0, 80);
    }
    if (c.contains("token_type_ids") && !type_ids.empty()) {
      EXPECT_EQ(type_ids, c["token_type_ids"].get<std::vector<int32_t>>()) << text.substr(0, 80);
    }
  }
  EXPECT_EQ(cases, 186);
  EXPECT_EQ(failures, 0);
}

TEST(WordPiece, RejectsAVocabularyWithoutSpecialTokens) {
  EXPECT_FALSE(WordPieceTokenizer::FromVocab("a\nb\nc\n", {}).ok());
}

TEST(WordPiece, GreedyLongestMatchAndWholeWordUnknown) {
  auto t = WordPieceTokenizer::FromVocab("[PAD]\n[UNK]\n[CLS]\n[SEP]\nun\n##aff\n##able\nab\n", {});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)->Tokenize("unaffable"), (std::vector<int32_t>{4, 5, 6}));
  EXPECT_EQ((*t)->Tokenize("abx"), (std::vector<int32_t>{1})) << "an unmatched rest makes the word [UNK]";
  EXPECT_EQ((*t)->Tokenize(std::string(101, 'a')), (std::vector<int32_t>{1}));
  EXPECT_EQ((*t)->Encode("un").ids, (std::vector<int32_t>{2, 4, 3}));
}

}  // namespace
}  // namespace engram::embed
