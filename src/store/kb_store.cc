// The names of knowledge-field types (engram/store/kb_store.h).
#include "engram/store/kb_store.h"

namespace engram {

const char* KbFieldTypeName(KbFieldType type) {
  switch (type) {
    case KbFieldType::kString: return "string";
    case KbFieldType::kNumber: return "number";
    case KbFieldType::kDate: return "date";
  }
  return "string";
}

std::optional<KbFieldType> ParseKbFieldType(std::string_view name) {
  if (name == "string") return KbFieldType::kString;
  if (name == "number") return KbFieldType::kNumber;
  if (name == "date") return KbFieldType::kDate;
  return std::nullopt;
}

}  // namespace engram
