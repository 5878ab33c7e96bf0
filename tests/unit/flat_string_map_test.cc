#include "common/flat_string_map.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace engram::common {
namespace {

// (Built with append: GCC 12 warns falsely on "k" + std::to_string(n).)
std::string Key(unsigned n) {
  std::string k = "k";
  k += std::to_string(n);
  return k;
}

// Oracle: random puts, overwrites and erases agree with std::map.
TEST(FlatStringMap, AgreesWithStdMapUnderRandomOperations) {
  FlatStringMap<int> flat(16);
  std::map<std::string, int> oracle;
  std::mt19937 rng(3);
  for (int op = 0; op < 20000; ++op) {
    std::string key = Key(rng() % 3000);
    if (rng() % 4 == 0) {
      flat.Erase(key);
      oracle.erase(key);
    } else {
      int v = static_cast<int>(rng());
      flat.Put(key, v);
      oracle[key] = v;
    }
  }
  EXPECT_EQ(flat.size(), oracle.size());
  for (int k = 0; k < 3000; ++k) {
    std::string key = Key(static_cast<unsigned>(k));
    auto it = oracle.find(key);
    const int* got = flat.Find(key);
    if (it == oracle.end()) {
      EXPECT_EQ(got, nullptr) << key;
    } else {
      ASSERT_NE(got, nullptr) << key;
      EXPECT_EQ(*got, it->second) << key;
    }
  }
}

TEST(FlatStringMap, ClearEmptiesAndLongKeysWork) {
  FlatStringMap<std::string> m;
  std::string long_key(100, 'z');
  m.Put(long_key, "v");
  m.Put("", "empty");
  EXPECT_EQ(*m.Find(long_key), "v");
  EXPECT_EQ(*m.Find(""), "empty");
  m.Clear();
  EXPECT_EQ(m.Find(long_key), nullptr);
  EXPECT_EQ(m.size(), 0u);
}

}  // namespace
}  // namespace engram::common
