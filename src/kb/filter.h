// Filters over knowledge entries' fields, as callers write them:
//
//   {"type": ["a", "b"], "source": ["x"]}            value IN the list, AND across fields (the original's form)
//   {"type": {"not_in": ["c"]}}                       value NOT IN the list (an entry without the field passes)
//   {"level": {"gte": 2, "lt": 5}}                    number ranges: gt, gte, lt, lte
//   {"published": {"gte": "2026-01-01"}}              date ranges, on ISO 8601 dates (YYYY-MM-DD[Thh:mm:ss…])
//
// A field must be declared by the collection (`source` always is); the
// conditions must suit its type: IN / NOT IN on any type, ranges on numbers
// and dates only. An entry's value of a field is its meta key of that name
// (`source` is the entry's source), read with the field's type: a number
// field takes JSON numbers and numeric strings, a date field ISO dates; a
// value that does not read as the type is treated as absent, and an absent
// value fails IN and ranges.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engram/status.h"
#include "engram/store/kb_store.h"

namespace engram::kb {

// The value of one field of one entry: absent, a string (strings and dates)
// or a number.
using FieldValue = std::variant<std::monostate, std::string, double>;

// An entry's values of a collection's fields: [0] is source, then the
// declared fields in order.
struct EntryValues {
  std::vector<FieldValue> values;
};

// The fields a collection filters on: source first, then its declared ones.
std::vector<KbField> FilterableFields(const KbCollection& collection);

// Reads an entry's values (meta: its flat JSON object; unreadable meta reads as no fields).
EntryValues ReadEntryValues(const std::vector<KbField>& fields, std::string_view source, std::string_view meta);

class Filter {
 public:
  // Parses a filter object (null or {} = everything passes). InvalidArgument
  // naming the field for an undeclared field, a condition its type does not
  // take, or a value of the wrong type.
  static Result<Filter> Parse(const std::vector<KbField>& fields, const nlohmann::json& filters);

  bool empty() const { return conditions_.empty(); }
  bool Matches(const EntryValues& entry) const;

 private:
  struct Condition {
    size_t field = 0;
    KbFieldType type = KbFieldType::kString;
    std::optional<std::vector<FieldValue>> in;
    std::vector<FieldValue> not_in;
    std::optional<FieldValue> gt, gte, lt, lte;
  };
  std::vector<Condition> conditions_;
};

}  // namespace engram::kb
