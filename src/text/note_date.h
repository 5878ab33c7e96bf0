// A note's own dates, as its frontmatter writes them (`updated`, `date`,
// `created`): what `--since/--until`, `get` and the context block show
// instead of the moment engram indexed the note.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "engram/page.h"

namespace engram::text {

// Normalises a date written in frontmatter, or nothing when it is not one.
//   "2024-05-01", "2024-5-1"                 -> "2024-05-01" (a day: no zone is invented)
//   "2024-05-01T10:00:00Z", "2024-05-01 10:00", "2024-05-01t10:00:00.5",
//   "2024-05-01 10:00:00 +08:00", "...-0530", "...+8"
//                                            -> "2024-05-01T10:00:00Z" (UTC; a time
//                                               without a zone is UTC, as YAML says)
//   "2024/5/1", "2024年5月1日", "May 1, 2024" -> "2024-05-01" (timeline date forms
//                                               naming a whole day)
// Surrounding whitespace is ignored. Impossible dates (2023-02-29, hour 24)
// and partial ones ("2024-05", "2024") are not dates. Both forms compare as
// strings in time order, a day before any time of that day.
std::optional<std::string> NormalizeNoteDate(std::string_view value);

// Sets page->date and page->created from the frontmatter fields `updated`,
// `date` and `created` (see Page). A field that is there but not a date (a
// list, a number, "last week") adds a warning naming it and is passed over;
// an empty one (`date:`) is simply absent.
void ReadNoteDates(const nlohmann::json& frontmatter, Page* page);

}  // namespace engram::text
