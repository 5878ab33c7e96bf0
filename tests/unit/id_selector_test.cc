// The id selectors every search arm takes, against a std::set oracle.
#include "engram/store/id_selector.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <type_traits>
#include <unordered_set>

namespace engram {
namespace {

TEST(IdSelector, ListNotInAndAgreeWithSets) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<int64_t> a, b;
    for (int i = 0; i < 40; ++i) a.push_back(static_cast<int64_t>(rng() % 100));  // duplicates and any order
    for (int i = 0; i < 30; ++i) b.push_back(static_cast<int64_t>(rng() % 100));
    const std::set<int64_t> sa(a.begin(), a.end()), sb(b.begin(), b.end());
    const IdListSelector<int64_t> list(a);
    const IdNotInSelector<int64_t> not_in(b);
    const IdAndSelector<int64_t> both(&list, &not_in), left_only(&list, nullptr), none(nullptr, nullptr);
    for (int64_t id = -1; id <= 100; ++id) {
      EXPECT_EQ(list.Contains(id), sa.count(id) == 1) << id;
      EXPECT_EQ(not_in.Contains(id), sb.count(id) == 0) << id;
      EXPECT_EQ(both.Contains(id), sa.count(id) == 1 && sb.count(id) == 0) << id;
      EXPECT_EQ(left_only.Contains(id), sa.count(id) == 1) << id;
      EXPECT_TRUE(none.Contains(id));
    }
    ASSERT_NE(list.Candidates(), nullptr);
    EXPECT_EQ(*list.Candidates(), std::vector<int64_t>(sa.begin(), sa.end())) << "sorted, distinct";
    EXPECT_EQ(not_in.Candidates(), nullptr) << "an exclusion has no finite candidates";
    EXPECT_EQ(both.Candidates(), list.Candidates());
    EXPECT_EQ(none.Candidates(), nullptr);
    std::vector<int64_t> left_out(sb.begin(), sb.end());
    EXPECT_EQ(not_in.left_out(), left_out) << "sorted, distinct: what VisibleSize walks";
  }
}

TEST(IdSelector, TheShorterCandidateListIsWalked) {
  const IdListSelector<int64_t> wide(std::vector<int64_t>{1, 2, 3, 4, 5, 6}), narrow(std::vector<int64_t>{4, 9});
  const IdAndSelector<int64_t> a(&wide, &narrow), b(&narrow, &wide);
  EXPECT_EQ(a.Candidates(), narrow.Candidates());
  EXPECT_EQ(b.Candidates(), narrow.Candidates());
  EXPECT_TRUE(a.Contains(4));
  EXPECT_FALSE(a.Contains(9));
  EXPECT_FALSE(a.Contains(1));
}

// A page id and a chunk id are not interchangeable, neither with each other
// nor with a bare integer, and a selector of one is no selector of the other:
// passing the wrong one is a compile error, not a filter that matches nothing.
static_assert(!std::is_convertible_v<int64_t, PageId> && !std::is_convertible_v<int64_t, ChunkId>);
static_assert(!std::is_convertible_v<PageId, ChunkId> && !std::is_convertible_v<ChunkId, PageId>);
static_assert(!std::is_convertible_v<PageId, int64_t>);
static_assert(!std::is_convertible_v<const PageSelector*, const ChunkSelector*>);
static_assert(sizeof(PageId) == sizeof(int64_t) && std::is_trivially_copyable_v<ChunkId>);

TEST(StrongIds, CompareHashAndSelectLikeTheirValues) {
  const std::vector<PageId> ids{PageId(9), PageId(2), PageId(2), PageId(5)};
  const IdListSelector<PageId> pages(ids);
  EXPECT_TRUE(pages.Contains(PageId(2)));
  EXPECT_FALSE(pages.Contains(PageId(3)));
  EXPECT_EQ(IdValues(*pages.Candidates()), (std::vector<int64_t>{2, 5, 9})) << "sorted by value, distinct";
  EXPECT_EQ(ToIds<PageId>(std::vector<int64_t>{2, 5, 9}), *pages.Candidates());
  const std::unordered_set<ChunkId> chunks{ChunkId(1), ChunkId(1), ChunkId(7)};
  EXPECT_EQ(chunks.size(), 2u);
  EXPECT_FALSE(ChunkId().valid()) << "0 is no id";
  EXPECT_TRUE(ChunkId(7).valid());
}

}  // namespace
}  // namespace engram
