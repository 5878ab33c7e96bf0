#include "kb/entry_reader.h"

#include "common/json_limits.h"
#include "common/utf8.h"

namespace engram::kb {

using Json = nlohmann::json;

namespace {

Status LineError(int line, const std::string& why) {
  return Status::InvalidArgument("line " + std::to_string(line) + ": " + why);
}

Status CheckText(int line, std::string_view what, std::string_view s) {
  if (const size_t bad = common::FindInvalidUtf8(s); bad != std::string::npos) {
    return LineError(line, std::string(what) + " is not valid UTF-8 (byte " + std::to_string(bad) + ")");
  }
  return Status::Ok();
}

Result<std::string> StringField(const Json& o, const char* key, int line, bool required) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) {
    if (required) return LineError(line, std::string("\"") + key + "\" is missing");
    return std::string();
  }
  if (!it->is_string()) return LineError(line, std::string("\"") + key + "\" must be a string");
  return it->get<std::string>();
}

// One CSV record from *pos; false at the end of the data. *line advances over the record's line breaks.
Result<bool> NextRecord(std::string_view data, size_t* pos, int* line, std::vector<std::string>* fields) {
  fields->clear();
  if (*pos >= data.size()) return false;
  const int start = *line;
  std::string field;
  bool quoted = false, was_quoted = false;
  size_t i = *pos;
  for (; i < data.size(); ++i) {
    const char c = data[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < data.size() && data[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++*line;
        field += c;
      }
      continue;
    }
    if (c == '"') {
      if (!field.empty() || was_quoted) return LineError(*line, "a quote inside an unquoted field");
      quoted = was_quoted = true;
    } else if (c == ',') {
      fields->push_back(std::move(field));
      field.clear();
      was_quoted = false;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < data.size() && data[i + 1] == '\n') ++i;
      ++i;
      break;
    } else {
      if (was_quoted) return LineError(*line, "text after a closing quote");
      field += c;
    }
  }
  if (quoted) return LineError(start, "a quoted field that never ends");
  fields->push_back(std::move(field));
  ++*line;
  *pos = i;
  return true;
}

}  // namespace

Result<std::vector<ReadEntry>> ReadJsonl(std::string_view data) {
  std::vector<ReadEntry> out;
  int line = 0;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t end = data.find('\n', pos);
    if (end == std::string_view::npos) end = data.size();
    std::string_view text = data.substr(pos, end - pos);
    pos = end + 1;
    ++line;
    if (common::TrimSpace(text).empty()) continue;
    ENGRAM_RETURN_IF_ERROR(CheckText(line, "the line", text));
    if (Status st = common::CheckJsonLimits(text, "the line"); !st.ok()) return LineError(line, st.message());
    Json o = Json::parse(text, nullptr, false);
    if (o.is_discarded()) return LineError(line, "not valid JSON");
    if (!o.is_object()) return LineError(line, "expected a JSON object {\"text\": ...}");
    ReadEntry e;
    e.line = line;
    ENGRAM_ASSIGN_OR_RETURN(e.id, StringField(o, "id", line, false));
    ENGRAM_ASSIGN_OR_RETURN(e.text, StringField(o, "text", line, true));
    ENGRAM_ASSIGN_OR_RETURN(e.source, StringField(o, "source", line, false));
    auto meta = o.find("meta");
    if (meta != o.end() && !meta->is_null()) {
      if (!meta->is_object()) return LineError(line, "\"meta\" must be an object");
      e.meta = *meta;
    }
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<ReadEntry>> ReadCsv(std::string_view data) {
  if (data.substr(0, 3) == "\xEF\xBB\xBF") data.remove_prefix(3);
  if (const size_t bad = common::FindInvalidUtf8(data); bad != std::string_view::npos) {
    int line = 1;
    for (size_t i = 0; i < bad; ++i) line += data[i] == '\n';
    return LineError(line, "not valid UTF-8");
  }
  size_t pos = 0;
  int line = 1;
  std::vector<std::string> header, fields;
  ENGRAM_ASSIGN_OR_RETURN(bool any, NextRecord(data, &pos, &line, &header));
  if (!any) return LineError(1, "the file is empty (expected a header row with a text column)");
  int text_col = -1, id_col = -1, source_col = -1;
  for (size_t c = 0; c < header.size(); ++c) {
    const std::string name(common::TrimSpace(header[c]));
    header[c] = name;
    if (name == "text") text_col = static_cast<int>(c);
    if (name == "id") id_col = static_cast<int>(c);
    if (name == "source") source_col = static_cast<int>(c);
  }
  if (text_col < 0) return LineError(1, "the header row has no \"text\" column");
  std::vector<ReadEntry> out;
  while (true) {
    const int start = line;
    ENGRAM_ASSIGN_OR_RETURN(bool more, NextRecord(data, &pos, &line, &fields));
    if (!more) break;
    if (fields.size() == 1 && fields[0].empty()) continue;  // a blank line
    if (fields.size() != header.size()) {
      return LineError(start, std::to_string(fields.size()) + " fields where the header has " +
                                  std::to_string(header.size()));
    }
    ReadEntry e;
    e.line = start;
    e.text = fields[static_cast<size_t>(text_col)];
    if (id_col >= 0) e.id = fields[static_cast<size_t>(id_col)];
    if (source_col >= 0) e.source = fields[static_cast<size_t>(source_col)];
    for (size_t c = 0; c < header.size(); ++c) {
      const int col = static_cast<int>(c);
      if (col == text_col || col == id_col || col == source_col || fields[c].empty()) continue;
      e.meta[header[c]] = fields[c];
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace engram::kb
