#include "common/pipeline.h"

#include <gtest/gtest.h>

#include <vector>

namespace engram::common {
namespace {

TEST(Pipeline, ConsumesEveryValueInOrder) {
  std::vector<int> seen;
  Status st = RunPipelined<int>(
      10000, [](size_t i) { return static_cast<int>(i * 3); },
      [&](size_t i, int& v) {
        EXPECT_EQ(v, static_cast<int>(i * 3));
        seen.push_back(v);
        return Status::Ok();
      },
      7);
  ASSERT_TRUE(st.ok());
  ASSERT_EQ(seen.size(), 10000u);
}

TEST(Pipeline, StopsAtTheFirstConsumerError) {
  size_t consumed = 0;
  Status st = RunPipelined<std::string>(
      100000, [](size_t i) { return std::to_string(i); },
      [&](size_t i, std::string&) {
        ++consumed;
        return i == 50 ? Status::IOError("disk full") : Status::Ok();
      },
      4);
  EXPECT_EQ(st.code(), StatusCode::kIOError);
  EXPECT_EQ(consumed, 51u);
}

TEST(Pipeline, ZeroItemsIsFine) {
  EXPECT_TRUE(RunPipelined<int>(0, [](size_t) { return 0; }, [](size_t, int&) { return Status::Ok(); }).ok());
}

}  // namespace
}  // namespace engram::common
