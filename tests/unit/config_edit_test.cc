#include "ops/config_edit.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "ops/config.h"
#include "test_support.h"

namespace engram::ops {
namespace {

namespace fs = std::filesystem;

const SettingInfo& Info(std::string_view name) {
  auto s = FindSetting(name);
  EXPECT_TRUE(s.ok()) << name;
  return **s;
}

TomlValue Value(std::string_view name, std::string_view text) {
  auto v = ParseSettingArgument(Info(name), text);
  EXPECT_TRUE(v.ok()) << name << " " << text << ": " << v.status().ToString();
  return v.ok() ? *v : TomlValue{};
}

// The text with `name` set, asserting it parses afterwards.
std::string Set(const std::string& text, std::string_view name, std::string_view value) {
  auto r = SetInConfigText(text, Info(name), Value(name, value), "c");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : text;
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) out.push_back(line);
  return out;
}

// A value the catalogue accepts that differs from the default (used by the
// round trip over every key).
std::string OtherValue(const SettingInfo& s) {
  switch (s.type) {
    case SettingType::kInteger: return s.name == "chunker.overlap_words" ? "7" : FormatTomlNumber(s.max);
    case SettingType::kNumber: return FormatTomlNumber(s.max / 4);
    case SettingType::kList:
      if (s.name == "quarantine.disable") return R"(["cn_mobile", "name:secret"])";
      if (s.name == "server.allowed_origins") return R"(["https://notes.example"])";
      if (s.name == "server.allowed_hosts") return R"(["brain.lan", "10.0.0.2"])";
      return R"(["04_Archive", "Templates/日记"])";
    case SettingType::kString:
      if (!s.allowed.empty()) return s.allowed.back();
      if (s.name == "llm.base_url") return "http://llm.example:8080/v1";  // validated when loaded
      return "value \"quoted\" \\ 中文";
  }
  return "";
}

TEST(ConfigCatalogue, ListsEveryKeyOfTheDefaultFileInItsOrder) {
  auto entries = ParseTomlSubset(DefaultConfigToml(), "default");
  ASSERT_TRUE(entries.ok());
  const auto& catalogue = SettingCatalogue();
  ASSERT_EQ(catalogue.size(), entries->size()) << "a setting that config.toml does not document, or the reverse";
  for (size_t i = 0; i < catalogue.size(); ++i) {
    EXPECT_EQ(catalogue[i].name, (*entries)[i].table + "." + (*entries)[i].key);
  }
}

TEST(ConfigCatalogue, DefaultValuesAreTheBuiltInOptions) {
  auto from_file = ParseConfig(DefaultConfigToml(), "default");
  ASSERT_TRUE(from_file.ok());
  auto entries = ParseTomlSubset(DefaultConfigToml(), "default");
  ASSERT_TRUE(entries.ok());
  for (size_t i = 0; i < entries->size(); ++i) {
    const SettingInfo& s = SettingCatalogue()[i];
    EXPECT_EQ(SettingValueToml(SettingValue(BrainOptions{}, s)), SettingValueToml((*entries)[i].value)) << s.name;
  }
}

TEST(ConfigCatalogue, AllowedValuesAgreeWithLoading) {
  for (const SettingInfo& s : SettingCatalogue()) {
    if (s.allowed.empty()) continue;
    std::string prefix = "[embedding]\nmodel = \"m\"\n";
    for (const std::string& v : s.allowed) {
      std::string text = prefix;
      if (s.section != "embedding") text.append("[").append(s.section).append("]\n");
      text.append(s.key).append(" = \"").append(v).append("\"\n");
      EXPECT_TRUE(ParseConfig(text, "c").ok()) << s.name << " = " << v;
    }
    std::string bad = prefix;
    if (s.section != "embedding") bad.append("[").append(s.section).append("]\n");
    bad.append(s.key).append(" = \"nonsense\"\n");
    auto r = ParseConfig(bad, "c");
    ASSERT_FALSE(r.ok()) << s.name;
    for (const std::string& v : s.allowed) {
      if (v.empty()) continue;
      std::string quoted = "\"";
      quoted.append(v).append("\"");
      EXPECT_NE(r.status().message().find(quoted), std::string::npos) << r.status().message();
    }
  }
}

TEST(ConfigEdit, EveryKeyRoundTripsThroughTheFileAndLoading) {
  const std::string base = DefaultConfigToml();
  for (const SettingInfo& s : SettingCatalogue()) {
    const std::string value = OtherValue(s);
    std::string edited = Set(base, s.name, value);
    if (s.name == "embedding.provider") edited = Set(edited, "embedding.model", "m");
    if (s.name == "search.expansion") edited = Set(edited, "llm.model", "m");
    if (s.name == "chunker.overlap_words") edited = Set(edited, "chunker.target_words", "20");
    auto loaded = ParseConfig(edited, "c");
    ASSERT_TRUE(loaded.ok()) << s.name << " = " << value << ": " << loaded.status().ToString();
    EXPECT_EQ(SettingValueToml(SettingValue(*loaded, s)), SettingValueToml(Value(s.name, value))) << s.name;
    // Unset gives the default back (unless another setting needs this one).
    auto unset = UnsetInConfigText(edited, s, "c");
    ASSERT_TRUE(unset.ok());
    auto defaults = ParseConfig(*unset, "c");
    if (defaults.ok()) {
      EXPECT_EQ(SettingValueToml(SettingValue(*defaults, s)), SettingValueToml(SettingValue(BrainOptions{}, s)));
    }
  }
}

TEST(ConfigEdit, SetChangesOnlyTheValueOfItsLine) {
  const std::string base = DefaultConfigToml();
  const std::string edited = Set(base, "search.limit", "25");
  const auto before = Lines(base), after = Lines(edited);
  ASSERT_EQ(before.size(), after.size());
  size_t changed = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    if (before[i] == after[i]) continue;
    ++changed;
    EXPECT_EQ(before[i], "limit = 10");
    EXPECT_EQ(after[i], "limit = 25");
  }
  EXPECT_EQ(changed, 1u);
  EXPECT_EQ(edited.size(), base.size());
}

TEST(ConfigEdit, TrailingCommentSpacingAndLineEndingsAreKept) {
  const std::string text = "# top\r\n\r\n[search]\r\n  limit   =   10   # how many\r\nmode = \"a # b\" # c\r\n";
  EXPECT_EQ(Set(text, "search.limit", "5"), "# top\r\n\r\n[search]\r\n  limit   =   5   # how many\r\nmode = \"a # b\" # c\r\n");
  EXPECT_EQ(Set(text, "search.mode", "vector"),
            "# top\r\n\r\n[search]\r\n  limit   =   10   # how many\r\nmode = \"vector\" # c\r\n");
  // A new key: after the last key of its section, indented like it, CRLF like the file.
  EXPECT_EQ(Set(text, "search.bm25_b", "0.75"),
            "# top\r\n\r\n[search]\r\n  limit   =   10   # how many\r\nmode = \"a # b\" # c\r\nbm25_b = 0.75\r\n");
}

TEST(ConfigEdit, AMissingKeyGoesAtTheEndOfItsSectionAndAMissingSectionAtTheEnd) {
  const std::string text = "[search]\nlimit = 10\n\n# about llm\n[llm]\n# a chat server\n\n[vector]\nm = 16";
  EXPECT_EQ(Set(text, "search.bm25_k1", "1.2"),
            "[search]\nlimit = 10\nbm25_k1 = 1.2\n\n# about llm\n[llm]\n# a chat server\n\n[vector]\nm = 16");
  EXPECT_EQ(Set(text, "llm.model", "qwen"),
            "[search]\nlimit = 10\n\n# about llm\n[llm]\n# a chat server\nmodel = \"qwen\"\n\n[vector]\nm = 16");
  EXPECT_EQ(Set(text, "vector.ef_search", "80"),
            "[search]\nlimit = 10\n\n# about llm\n[llm]\n# a chat server\n\n[vector]\nm = 16\nef_search = 80\n");
  EXPECT_EQ(Set(text, "store.busy_timeout_ms", "100"), text + "\n\n[store]\nbusy_timeout_ms = 100\n");
  EXPECT_EQ(Set("", "store.busy_timeout_ms", "100"), "[store]\nbusy_timeout_ms = 100\n");
  EXPECT_EQ(Set("[a_b]\n", "store.busy_timeout_ms", "1"), "[a_b]\n\n[store]\nbusy_timeout_ms = 1\n");
}

TEST(ConfigEdit, UnsetRemovesOnlyTheKeysLine) {
  const std::string text = "[search]\n# how many\nlimit = 10 # ten\nmode = \"vector\"\n";
  auto r = UnsetInConfigText(text, Info("search.limit"), "c");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "[search]\n# how many\nmode = \"vector\"\n");
  auto absent = UnsetInConfigText(*r, Info("search.limit"), "c");
  ASSERT_TRUE(absent.ok());
  EXPECT_EQ(*absent, *r);
}

TEST(ConfigEdit, HostileStringsCannotInjectKeysOrSections) {
  const std::vector<std::string> hostile = {
      "x\"\nlimit = 1",  "x\"]\n[search]\nlimit = 1", "\\\"\n", "a\\", "\"", "# not a comment", "tab\there",
      "]\n[server]\nhost = \"0.0.0.0\"", "\u4e2d\u6587 \"q\" \\n",
  };
  for (const std::string& h : hostile) {
    std::string edited = Set(DefaultConfigToml(), "llm.model", h);
    auto loaded = ParseConfig(edited, "c");
    ASSERT_TRUE(loaded.ok()) << h << ": " << loaded.status().ToString();
    EXPECT_EQ(loaded->llm.model, h);
    EXPECT_EQ(loaded->search.limit, 10) << h;
    EXPECT_EQ(loaded->server.host, "127.0.0.1") << h;
    EXPECT_EQ(Lines(edited).size(), Lines(DefaultConfigToml()).size()) << h;
    // The same inside a list.
    std::string list = "[\"ok\", ";
    list.append(nlohmann::json(h).dump()).append("]");
    edited = Set(DefaultConfigToml(), "scope.skip_files", list);
    loaded = ParseConfig(edited, "c");
    ASSERT_TRUE(loaded.ok()) << h << ": " << loaded.status().ToString();
    EXPECT_EQ(loaded->scope.skip_files, (std::vector<std::string>{"ok", h}));
  }
}

TEST(ConfigEdit, InvalidUtf8AndControlCharactersAreRefused) {
  for (const std::string& bad : {std::string("a\xff"), std::string("\xc3"), std::string("a\x01z"), std::string("\r"),
                                std::string("a\x7f"), std::string("\0", 1)}) {
    auto r = SetInConfigText(DefaultConfigToml(), Info("embedding.model"), Value("embedding.model", bad), "c");
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  }
  EXPECT_FALSE(ParseSettingArgument(Info("scope.exclude"), "[\"a\xff\"]").ok());
}

// Oracle for the writer: any byte string is either refused or read back by
// the file's parser as exactly itself, alone on its line.
TEST(ConfigEdit, EveryStringIsRefusedOrReadBackExactly) {
  std::mt19937 rng(14);
  const std::string alphabet = std::string("ab \"\\#[]=\n\t\r\x01\x7f", 15) + "\xe4\xb8\xad\xff";
  int written = 0;
  for (int i = 0; i < 5000; ++i) {
    std::string s;
    const size_t n = rng() % 12;
    for (size_t j = 0; j < n; ++j) s.push_back(alphabet[rng() % alphabet.size()]);
    auto quoted = FormatTomlString(s);
    if (!quoted.ok()) continue;
    ++written;
    std::string text = "[t]\nk = ";
    text.append(*quoted).append(" # c\nafter = 1\n");
    auto entries = ParseTomlSubset(text, "c");
    ASSERT_TRUE(entries.ok()) << *quoted << ": " << entries.status().ToString();
    ASSERT_EQ(entries->size(), 2u);
    EXPECT_EQ(std::get<std::string>((*entries)[0].value.value), s);
    EXPECT_EQ((*entries)[1].key, "after");
  }
  EXPECT_GT(written, 500);
}

TEST(ConfigEdit, ArgumentsAreParsedByType) {
  EXPECT_EQ(SettingValueToml(Value("import.max_file_bytes", "5_242_880")), "5242880");
  EXPECT_EQ(SettingValueToml(Value("search.bm25_k1", "1.25")), "1.25");
  EXPECT_EQ(SettingValueToml(Value("scope.exclude", R"(["04_Archive", "Templates"])")), R"(["04_Archive", "Templates"])");
  EXPECT_EQ(SettingValueToml(Value("scope.exclude", R"([ "a", "b", ])")), R"(["a", "b"])") << "TOML";
  EXPECT_EQ(SettingValueToml(Value("scope.exclude", "[]")), "[]");
  EXPECT_EQ(SettingValueToml(Value("search.mode", "")), "\"\"");
  for (const char* bad : {"ten", "", "1 2", "true", "\"5\"", "5\nmode = 1", "inf", "0x10"}) {
    auto r = ParseSettingArgument(Info("search.limit"), bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("[1, 1000]"), std::string::npos) << r.status().message();
  }
  for (const char* bad : {"04_Archive", "[1, 2]", "[\"a\"]\n[x]", "{\"a\": 1}", "[\"a\""}) {
    EXPECT_FALSE(ParseSettingArgument(Info("scope.exclude"), bad).ok()) << bad;
  }
}

TEST(ConfigEdit, UnknownKeysNameTheClosestOnes) {
  auto r = FindSetting("embeding.provider");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("did you mean embedding.provider"), std::string::npos) << r.status().message();
  r = FindSetting("provider");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("embedding.provider"), std::string::npos) << r.status().message();
  r = FindSetting("zzzzzzzzzzzzzzzzzzzzzz");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("engram config list"), std::string::npos) << r.status().message();
}

class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = dir_.path() / "config.toml";
    testing::WriteFile(file_, DefaultConfigToml());
  }
  engram::testing::TempDir dir_;
  fs::path file_;
};

TEST_F(ConfigFileTest, SetThenLoadGivesTheValue) {
  auto r = SetSetting(file_, Info("embedding.model"), "text-embedding-3-small");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->changed);
  ASSERT_TRUE(SetSetting(file_, Info("embedding.provider"), "openai").ok());
  ASSERT_TRUE(SetSetting(file_, Info("embedding.base_url"), "http://127.0.0.1:8080/v1").ok());
  auto o = LoadConfig(file_);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->embedding.provider, "openai");
  EXPECT_EQ(o->embedding.model, "text-embedding-3-small");
  EXPECT_EQ(o->embedding.base_url, "http://127.0.0.1:8080/v1");
  auto again = SetSetting(file_, Info("embedding.provider"), "openai");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->changed);
  EXPECT_FALSE(fs::exists(dir_.path() / "config.toml.tmp")) << "no temp file left";
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_.path())) ++files;
  EXPECT_EQ(files, 1u);
}

TEST_F(ConfigFileTest, BadValuesAreRefusedWithTheRangeAndTheFileIsUntouched) {
  const std::string before = ReadAll(file_);
  struct Case {
    const char* key;
    const char* value;
    const char* says;
  };
  const Case cases[] = {
      {"search.limit", "0", "out of range [1, 1000]"},
      {"search.limit", "2.5", "whole number"},
      {"search.bm25_b", "1.5", "[0, 1]"},
      {"embedding.provider", "bertt", "\"none\", \"bert\", \"openai\" or \"hash\""},
      {"embedding.provider", "bert", "change embedding.model first"},
      {"search.expansion", "1", "change llm.model first"},
      {"chunker.overlap_words", "200", "change chunker.target_words first"},
      {"pages.title", "h1", "\"file_name\" or \"heading\""},
      {"embedding.precision", "fp16", "\"fp32\" or \"bf16\""},
      {"search.mode", "fast", "\"keyword\", \"vector\" or \"hybrid\""},
      {"scope.exclude", "[\"../x\"]", "scope"},
      {"git.message", "two\nlines", "git.message must be one non-empty line"},
      {"server.allowed_hosts", "[\"*\"]", "server.allowed_hosts"},
  };
  for (const Case& c : cases) {
    auto r = SetSetting(file_, Info(c.key), c.value);
    ASSERT_FALSE(r.ok()) << c.key << " = " << c.value;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().message();
    EXPECT_EQ(ReadAll(file_), before) << c.key;
  }
}

TEST_F(ConfigFileTest, UnsetOfASettingAnotherNeedsIsRefused) {
  ASSERT_TRUE(SetSetting(file_, Info("embedding.model"), "m").ok());
  ASSERT_TRUE(SetSetting(file_, Info("embedding.provider"), "openai").ok());
  const std::string before = ReadAll(file_);
  auto r = UnsetSetting(file_, Info("embedding.model"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("change embedding.provider first"), std::string::npos) << r.status().message();
  EXPECT_EQ(ReadAll(file_), before);
  ASSERT_TRUE(UnsetSetting(file_, Info("embedding.provider")).ok());
  ASSERT_TRUE(UnsetSetting(file_, Info("embedding.model")).ok());
  auto o = LoadConfig(file_);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->embedding.provider, "none");
}

TEST_F(ConfigFileTest, AFileThatDoesNotParseIsRefusedUntouched) {
  const std::string broken = "[search]\nlimit = = 3\n# keep me\n";
  testing::WriteFile(file_, broken);
  auto r = SetSetting(file_, Info("search.limit"), "5");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(r.status().message().find("config.toml:2"), std::string::npos) << r.status().message();
  EXPECT_FALSE(UnsetSetting(file_, Info("search.limit")).ok());
  EXPECT_FALSE(EffectiveSettings(file_).ok());
  EXPECT_EQ(ReadAll(file_), broken);
}

TEST_F(ConfigFileTest, AValueLoadingRefusesCanBeRepairedWithSet) {
  testing::WriteFile(file_, "[search]\nlimit = 0\n");
  ASSERT_FALSE(LoadConfig(file_).ok());
  ASSERT_TRUE(SetSetting(file_, Info("search.limit"), "7").ok());
  EXPECT_EQ(ReadAll(file_), "[search]\nlimit = 7\n");
}

TEST_F(ConfigFileTest, AMissingFileIsCreatedBySet) {
  fs::remove(file_);
  ASSERT_TRUE(SetSetting(file_, Info("search.limit"), "3").ok());
  EXPECT_EQ(ReadAll(file_), "[search]\nlimit = 3\n");
}

TEST_F(ConfigFileTest, EffectiveSettingsNameTheirSource) {
  testing::WriteFile(file_, "[search]\nlimit = 12\nmode = \"keyword\"\n");
  ::setenv("ENGRAM_SEARCH_MODE", "vector", 1);
  auto list = EffectiveSettings(file_);
  ::unsetenv("ENGRAM_SEARCH_MODE");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), SettingCatalogue().size());
  for (const EffectiveSetting& e : *list) {
    if (e.setting->name == "search.limit") {
      EXPECT_EQ(e.source, SettingSource::kFile);
      EXPECT_EQ(SettingValueText(e.value), "12");
    } else if (e.setting->name == "search.mode") {
      EXPECT_EQ(e.source, SettingSource::kEnvironment);
      EXPECT_EQ(SettingValueText(e.value), "vector");
    } else {
      EXPECT_EQ(e.source, SettingSource::kDefault) << e.setting->name;
    }
  }
}

}  // namespace
}  // namespace engram::ops
