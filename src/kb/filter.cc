#include "kb/filter.h"

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace engram::kb {

using Json = nlohmann::json;

namespace {

bool IsIsoDate(std::string_view s) {
  if (s.size() < 10) return false;
  for (size_t i = 0; i < 10; ++i) {
    const bool digit = s[i] >= '0' && s[i] <= '9';
    if (i == 4 || i == 7 ? s[i] != '-' : !digit) return false;
  }
  return s.size() == 10 || s[10] == 'T' || s[10] == ' ';
}

std::optional<double> ParseNumber(std::string_view s) {
  if (s.empty() || s.size() > 64) return std::nullopt;
  const std::string copy(s);
  char* end = nullptr;
  const double v = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// A JSON value read as a field of type: absent when it does not read as one.
FieldValue ReadValue(KbFieldType type, const Json& j) {
  switch (type) {
    case KbFieldType::kString:
      if (j.is_string()) return j.get<std::string>();
      if (j.is_number()) return j.dump();
      if (j.is_boolean()) return std::string(j.get<bool>() ? "true" : "false");
      return {};
    case KbFieldType::kNumber:
      if (j.is_number()) return j.get<double>();
      if (j.is_string()) {
        if (auto v = ParseNumber(j.get_ref<const std::string&>())) return *v;
      }
      return {};
    case KbFieldType::kDate:
      if (j.is_string() && IsIsoDate(j.get_ref<const std::string&>())) return j.get<std::string>();
      return {};
  }
  return {};
}

// A date bound of ten characters (a day) compares with the value's day only.
int Compare(const FieldValue& value, const FieldValue& bound) {
  if (const auto* v = std::get_if<double>(&value)) {
    const double b = std::get<double>(bound);
    return *v < b ? -1 : (*v > b ? 1 : 0);
  }
  std::string_view v = std::get<std::string>(value);
  const std::string& b = std::get<std::string>(bound);
  if (b.size() == 10) v = v.substr(0, 10);
  return v.compare(b) < 0 ? -1 : (v.compare(b) > 0 ? 1 : 0);
}

const char* Expected(KbFieldType type) {
  switch (type) {
    case KbFieldType::kString: return "a string";
    case KbFieldType::kNumber: return "a number";
    case KbFieldType::kDate: return "an ISO 8601 date (YYYY-MM-DD)";
  }
  return "a value";
}

Result<FieldValue> Bound(const KbField& field, std::string_view op, const Json& j) {
  FieldValue v = ReadValue(field.type, j);
  if (std::holds_alternative<std::monostate>(v)) {
    return Status::InvalidArgument("filters." + field.name + "." + std::string(op) + ": expected " +
                                   Expected(field.type) + ", got " + j.dump());
  }
  return v;
}

Result<std::vector<FieldValue>> ValueList(const KbField& field, std::string_view op, const Json& j) {
  if (!j.is_array()) {
    std::string where = "filters." + field.name;
    if (!op.empty()) where.append(".").append(op);
    return Status::InvalidArgument(where + ": expected a list of values");
  }
  if (j.size() > 1000) return Status::InvalidArgument("filters." + field.name + ": more than 1000 values");
  std::vector<FieldValue> out;
  for (const Json& item : j) {
    ENGRAM_ASSIGN_OR_RETURN(FieldValue v, Bound(field, op.empty() ? "in" : op, item));
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

std::vector<KbField> FilterableFields(const KbCollection& collection) {
  std::vector<KbField> out{{"source", KbFieldType::kString}};
  for (const KbField& f : collection.fields) {
    if (f.name != "source") out.push_back(f);
  }
  return out;
}

EntryValues ReadEntryValues(const std::vector<KbField>& fields, std::string_view source, std::string_view meta) {
  EntryValues out;
  out.values.resize(fields.size());
  if (!fields.empty()) out.values[0] = std::string(source);
  if (fields.size() <= 1) return out;
  Json m = Json::parse(meta, nullptr, false);
  if (!m.is_object()) return out;
  for (size_t i = 1; i < fields.size(); ++i) {
    auto it = m.find(fields[i].name);
    if (it != m.end()) out.values[i] = ReadValue(fields[i].type, *it);
  }
  return out;
}

Result<Filter> Filter::Parse(const std::vector<KbField>& fields, const Json& filters) {
  Filter out;
  if (filters.is_null()) return out;
  if (!filters.is_object()) return Status::InvalidArgument("filters: expected an object of field: [values]");
  for (const auto& [name, spec] : filters.items()) {
    size_t index = fields.size();
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].name == name) index = i;
    }
    if (index == fields.size()) {
      std::string declared;
      for (const KbField& f : fields) declared += (declared.empty() ? "" : ", ") + f.name;
      return Status::InvalidArgument("filters." + name + ": the collection declares no such field (it filters on " +
                                     declared + ")");
    }
    const KbField& field = fields[index];
    Condition c;
    c.field = index;
    c.type = field.type;
    if (spec.is_array()) {
      ENGRAM_ASSIGN_OR_RETURN(c.in, ValueList(field, "", spec));
    } else if (spec.is_object()) {
      for (const auto& [op, arg] : spec.items()) {
        const bool range = op == "gt" || op == "gte" || op == "lt" || op == "lte";
        if (range && field.type == KbFieldType::kString) {
          return Status::InvalidArgument("filters." + name + "." + op + ": ranges apply to number and date fields, and " +
                                         name + " is a string field");
        }
        if (op == "in") {
          ENGRAM_ASSIGN_OR_RETURN(c.in, ValueList(field, op, arg));
        } else if (op == "not_in") {
          ENGRAM_ASSIGN_OR_RETURN(c.not_in, ValueList(field, op, arg));
        } else if (range) {
          ENGRAM_ASSIGN_OR_RETURN(FieldValue v, Bound(field, op, arg));
          (op == "gt" ? c.gt : op == "gte" ? c.gte : op == "lt" ? c.lt : c.lte) = std::move(v);
        } else {
          return Status::InvalidArgument("filters." + name + "." + op +
                                         ": unknown condition (use in, not_in, gt, gte, lt or lte)");
        }
      }
    } else {
      return Status::InvalidArgument("filters." + name + ": expected a list of values or an object of conditions");
    }
    out.conditions_.push_back(std::move(c));
  }
  return out;
}

bool Filter::Matches(const EntryValues& entry) const {
  for (const Condition& c : conditions_) {
    const FieldValue& v = c.field < entry.values.size() ? entry.values[c.field] : FieldValue();
    const bool absent = std::holds_alternative<std::monostate>(v);
    if (c.in) {
      if (absent) return false;
      bool found = false;
      for (const FieldValue& x : *c.in) found = found || x == v;
      if (!found) return false;
    }
    for (const FieldValue& x : c.not_in) {
      if (!absent && x == v) return false;
    }
    if (c.gt || c.gte || c.lt || c.lte) {
      if (absent) return false;
      if (c.gt && Compare(v, *c.gt) <= 0) return false;
      if (c.gte && Compare(v, *c.gte) < 0) return false;
      if (c.lt && Compare(v, *c.lt) >= 0) return false;
      if (c.lte && Compare(v, *c.lte) > 0) return false;
    }
  }
  return true;
}

}  // namespace engram::kb
