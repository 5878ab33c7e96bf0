#include <gtest/gtest.h>

#include "text/page_parser.h"

namespace engram::text {
namespace {

struct DateCase {
  const char* input;
  const char* want;  // "" = not a date
  size_t consumed;
};

TEST(TimelineDate, ParsesEnglishAndChineseForms) {
  const DateCase cases[] = {
      {"2026-04-07 | x", "2026-04-07", 10},
      {"2026/4/7 x", "2026-04-07", 8},
      {"2026.04.07", "2026-04-07", 10},
      {"2026-04", "2026-04", 7},
      {"2026 launched", "2026", 4},
      {"2026年4月7日：签约", "2026-04-07", 15},
      {"2026年4月7号", "2026-04-07", 15},
      {"2026年12月", "2026-12", 12},
      {"2026年", "2026", 7},
      {"April 7, 2026", "2026-04-07", 13},
      {"Apr 2026", "2026-04", 8},
      {"Sept. 3 2025", "2025-09-03", 12},
      {"7 April 2026", "2026-04-07", 12},
      {"2026-13-01", "", 0},
      {"2026-02-30", "", 0},
      {"20260", "", 0},
      {"Mayday 2026", "", 0},
      {"hello", "", 0},
      {"", "", 0},
  };
  for (const DateCase& c : cases) {
    size_t used = 0;
    EXPECT_EQ(ParseLeadingDate(c.input, &used), c.want) << c.input;
    if (*c.want) {
      EXPECT_EQ(used, c.consumed) << c.input;
    }
  }
}

}  // namespace
}  // namespace engram::text
