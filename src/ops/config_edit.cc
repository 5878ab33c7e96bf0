#include "ops/config_edit.h"

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/files.h"

namespace engram::ops {

namespace fs = std::filesystem;

namespace {

constexpr size_t kNoLine = static_cast<size_t>(-1);

// Levenshtein distance, for "did you mean".
size_t Distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Up to three names close to what was typed: a small edit distance, or the
// same key (or section) without the rest.
std::vector<std::string> CloseNames(std::string_view typed) {
  std::string lower(typed.substr(0, 200));
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<std::pair<size_t, std::string>> ranked;
  for (const SettingInfo& s : SettingCatalogue()) {
    size_t d = Distance(lower, s.name);
    if (lower == s.key || lower == s.section) d = std::min<size_t>(d, 1);
    if (d <= std::max<size_t>(2, s.name.size() / 4)) ranked.emplace_back(d, s.name);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < ranked.size() && i < 3; ++i) out.push_back(ranked[i].second);
  return out;
}

Result<std::string> ReadConfigText(const fs::path& file) {
  auto text = common::ReadFile(file, kMaxTomlBytes);
  if (text.ok()) return std::move(*text);
  if (text.status().code() == StatusCode::kNotFound) return std::string();
  return text.status();
}

// The file's entries; a text that is not TOML is refused before any edit.
Result<std::vector<TomlEntry>> ParseForEdit(std::string_view text, const std::string& file_name) {
  auto entries = ParseTomlSubset(text, file_name);
  if (!entries.ok()) {
    return Status::FailedPrecondition(entries.status().message() + " (nothing was changed: fix the file by hand)");
  }
  return entries;
}

const TomlEntry* FindEntry(const std::vector<TomlEntry>& entries, const SettingInfo& setting) {
  for (const TomlEntry& e : entries) {
    if (e.table == setting.section && e.key == setting.key) return &e;
  }
  return nullptr;
}

// The text split on '\n' (the pieces keep a '\r'); JoinLines gives back the
// same bytes.
std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string_view::npos; start = end + 1) {
    lines.emplace_back(text.substr(start, end - start));
  }
  lines.emplace_back(text.substr(start));
  return lines;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out.push_back('\n');
    out.append(lines[i]);
  }
  return out;
}

std::string_view TrimStart(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

bool IsBlank(std::string_view line) {
  line = TrimStart(line);
  return line.empty() || line == "\r";
}

// True for a [table] line; *name is its table. Only called on parsed text,
// where a line starting with '[' is always a table (arrays never start a line).
bool IsHeader(std::string_view line, std::string* name) {
  line = TrimStart(line);
  if (line.empty() || line.front() != '[') return false;
  line.remove_prefix(1);
  line = TrimStart(line);
  size_t end = 0;
  while (end < line.size() && line[end] != ']' && line[end] != ' ' && line[end] != '\t') ++end;
  *name = std::string(line.substr(0, end));
  return true;
}

// [begin, end) of the value on a key line that parsed: from after '=' and
// its spaces to before the spaces, comment or '\r' after it.
std::pair<size_t, size_t> ValueSpan(std::string_view line) {
  size_t begin = line.find('=') + 1;
  while (begin < line.size() && (line[begin] == ' ' || line[begin] == '\t')) ++begin;
  size_t end = begin;
  bool in_string = false;
  for (; end < line.size(); ++end) {
    const char c = line[end];
    if (in_string && c == '\\') {
      ++end;  // the escaped character
    } else if (c == '"') {
      in_string = !in_string;
    } else if (!in_string && (c == '#' || c == '\r')) {
      break;
    }
  }
  end = std::min(end, line.size());
  while (end > begin && (line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
  return {begin, end};
}

// Adds line to [section]: after its last key, else after the header and the
// comments right under it, else (no such table) in a new table at the end.
void InsertLine(std::vector<std::string>* lines, const std::vector<TomlEntry>& entries, const std::string& section,
                std::string line, const std::string& cr) {
  size_t header = kNoLine;
  std::string name;
  for (size_t i = 0; i < lines->size() && header == kNoLine; ++i) {
    if (IsHeader((*lines)[i], &name) && name == section) header = i;
  }
  if (header == kNoLine) {
    if (lines->back().empty()) lines->pop_back();  // the piece after the final newline
    if (!lines->empty() && !IsBlank(lines->back())) lines->push_back(cr);
    std::string table_line = "[";
    table_line.append(section).append("]").append(cr);
    lines->push_back(table_line);
    lines->push_back(line + cr);
    lines->push_back("");
    return;
  }
  size_t last_key = kNoLine;
  for (const TomlEntry& e : entries) {
    if (e.table == section) last_key = static_cast<size_t>(e.line - 1);
  }
  size_t at = header + 1;
  if (last_key != kNoLine) {
    at = last_key + 1;
    const std::string& above = (*lines)[last_key];
    line.insert(0, above.substr(0, above.size() - TrimStart(above).size()));  // its indentation
  } else {
    while (at < lines->size() && TrimStart((*lines)[at]).starts_with("#")) ++at;
  }
  lines->insert(lines->begin() + static_cast<std::ptrdiff_t>(at), line + cr);
  if (at + 1 == lines->size()) lines->push_back("");  // end the file with a newline
}

// True when text names `name` as a whole word ("vector.m" is not in "vector.max").
bool Mentions(std::string_view text, std::string_view name) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const bool starts = at == 0 || !word(text[at - 1]);
    const size_t after = at + name.size();
    const bool ends = after == text.size() || !(word(text[after]) && text[after] != '.');
    if (starts && ends) return true;
  }
  return false;
}

// The edited text must load exactly as a brain would load it. When the
// refusal names other settings (a rule that ties them together), say which
// to change first: settings are edited one at a time, each step valid.
Status CheckLoads(const std::string& text, const SettingInfo& setting) {
  auto loaded = ParseConfig(text, "config.toml");
  if (loaded.ok()) return Status::Ok();
  const std::string why = loaded.status().message();
  std::string others;
  for (const SettingInfo& s : SettingCatalogue()) {
    if (&s == &setting || !Mentions(why, s.name)) continue;
    if (!others.empty()) others.append(" or ");
    others.append(s.name);
  }
  std::string message = setting.name;
  message.append(" was not changed: ").append(why);
  if (!others.empty()) message.append(" (change ").append(others).append(" first)");
  return Status::InvalidArgument(message);
}

// Writes text over file atomically, through a symbolic link to its target,
// keeping the file's permissions.
Status WriteConfig(const fs::path& file, const std::string& text) {
  std::error_code ec;
  fs::path target = fs::is_symlink(file, ec) ? fs::canonical(file, ec) : file;
  if (ec) target = file;
  const auto old = fs::status(target, ec);
  const bool existed = !ec && fs::exists(old);
  ENGRAM_RETURN_IF_ERROR(common::WriteFileAtomic(target, text));
  if (existed) fs::permissions(target, old.permissions(), ec);
  return Status::Ok();
}

// Parses text as the one value of a TOML line (the file's own parser), or
// nothing when it is not a single value: a newline could start a new key.
std::optional<TomlValue> ParseTomlValue(std::string_view text) {
  if (text.find_first_of("\r\n") != std::string_view::npos) return std::nullopt;
  std::string line = "v = ";
  line.append(text);
  auto parsed = ParseTomlSubset(line, "value");
  if (!parsed.ok() || parsed->size() != 1) return std::nullopt;
  return (*parsed)[0].value;
}

Result<TomlValue> ParseNumberArgument(const SettingInfo& setting, std::string_view text) {
  std::optional<TomlValue> v = ParseTomlValue(text);
  if (v && std::holds_alternative<double>(v->value)) return *v;
  std::string message = setting.name;
  message.append(" takes a ")
      .append(setting.type == SettingType::kInteger ? "whole number" : "number")
      .append(" in [")
      .append(FormatTomlNumber(setting.min))
      .append(", ")
      .append(FormatTomlNumber(setting.max))
      .append("], not '")
      .append(text)
      .append("'");
  return Status::InvalidArgument(message);
}

// JSON first (what scripts produce), then TOML (what the file shows).
Result<TomlValue> ParseListArgument(const SettingInfo& setting, std::string_view text) {
  const nlohmann::json json = nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_array() && std::all_of(json.begin(), json.end(), [](const auto& j) { return j.is_string(); })) {
    std::vector<std::string> items;
    for (const auto& j : json) items.push_back(j.get<std::string>());
    TomlValue v;
    v.value = std::move(items);
    return v;
  }
  std::optional<TomlValue> v = ParseTomlValue(text);
  if (v && std::holds_alternative<std::vector<std::string>>(v->value)) return *v;
  std::string message = setting.name;
  message.append(" takes a list of strings in JSON or TOML, e.g. '[\"04_Archive\", \"Templates\"]' or '[]', not '")
      .append(text)
      .append("'");
  return Status::InvalidArgument(message);
}

}  // namespace

const char* SettingSourceName(SettingSource source) {
  switch (source) {
    case SettingSource::kDefault: return "default";
    case SettingSource::kFile: return "config.toml";
    case SettingSource::kEnvironment: return "environment";
  }
  return "default";
}

Result<const SettingInfo*> FindSetting(std::string_view name) {
  for (const SettingInfo& s : SettingCatalogue()) {
    if (s.name == name) return &s;
  }
  std::string message = "unknown setting '";
  message.append(name).append("'");
  const std::vector<std::string> close = CloseNames(name);
  for (size_t i = 0; i < close.size(); ++i) {
    message.append(i == 0 ? "; did you mean " : i + 1 == close.size() ? " or " : ", ").append(close[i]);
  }
  message.append(close.empty() ? " (`engram config list` shows every setting)" : "?");
  return Status::NotFound(message);
}

Result<std::vector<EffectiveSetting>> EffectiveSettings(const fs::path& config_file) {
  ENGRAM_ASSIGN_OR_RETURN(std::string text, ReadConfigText(config_file));
  auto options = ParseConfig(text, config_file.string());
  if (!options.ok()) return Status::FailedPrecondition(options.status().message());
  if (Status env = ApplyEnvironment(&*options); !env.ok()) {
    return Status::FailedPrecondition("the environment: " + env.message());
  }
  auto entries = ParseTomlSubset(text, config_file.string());  // parsed above
  std::vector<EffectiveSetting> out;
  for (const SettingInfo& s : SettingCatalogue()) {
    EffectiveSetting e{&s, SettingValue(*options, s), SettingSource::kDefault};
    if (!s.env.empty() && std::getenv(s.env.c_str()) != nullptr) {
      e.source = SettingSource::kEnvironment;
    } else if (entries.ok() && FindEntry(*entries, s) != nullptr) {
      e.source = SettingSource::kFile;
    }
    out.push_back(std::move(e));
  }
  return out;
}

Result<TomlValue> ParseSettingArgument(const SettingInfo& setting, std::string_view text) {
  switch (setting.type) {
    case SettingType::kInteger:
    case SettingType::kNumber: return ParseNumberArgument(setting, text);
    case SettingType::kList: return ParseListArgument(setting, text);
    case SettingType::kString: break;
  }
  TomlValue v;
  v.value = std::string(text);
  return v;
}

std::string SettingValueToml(const TomlValue& value) {
  auto toml = FormatTomlValue(value);
  if (toml.ok()) return *toml;
  // Only a value from the environment can hold what TOML cannot (invalid
  // UTF-8, control characters): shown JSON-escaped, never written.
  nlohmann::json j;
  if (const auto* text = std::get_if<std::string>(&value.value)) j = *text;
  if (const auto* list = std::get_if<std::vector<std::string>>(&value.value)) j = *list;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string SettingValueText(const TomlValue& value) {
  if (const auto* text = std::get_if<std::string>(&value.value)) return *text;
  return SettingValueToml(value);
}

Result<std::string> SetInConfigText(std::string_view text, const SettingInfo& setting, const TomlValue& value,
                                    const std::string& file_name) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<TomlEntry> entries, ParseForEdit(text, file_name));
  auto toml = FormatTomlValue(value);
  if (!toml.ok()) return toml.status().WithContext(setting.name);
  std::vector<std::string> lines = SplitLines(text);
  if (const TomlEntry* e = FindEntry(entries, setting)) {
    std::string& line = lines[static_cast<size_t>(e->line - 1)];
    const auto [begin, end] = ValueSpan(line);
    line.replace(begin, end - begin, *toml);
    return JoinLines(lines);
  }
  const std::string cr = text.find("\r\n") != std::string_view::npos ? "\r" : "";
  std::string line = setting.key;
  line.append(" = ").append(*toml);
  InsertLine(&lines, entries, setting.section, line, cr);
  return JoinLines(lines);
}

Result<std::string> UnsetInConfigText(std::string_view text, const SettingInfo& setting,
                                      const std::string& file_name) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<TomlEntry> entries, ParseForEdit(text, file_name));
  const TomlEntry* e = FindEntry(entries, setting);
  if (e == nullptr) return std::string(text);
  std::vector<std::string> lines = SplitLines(text);
  lines.erase(lines.begin() + (e->line - 1));
  return JoinLines(lines);
}

Result<ConfigEditReport> SetSetting(const fs::path& config_file, const SettingInfo& setting,
                                    std::string_view value_text) {
  ENGRAM_ASSIGN_OR_RETURN(TomlValue value, ParseSettingArgument(setting, value_text));
  ENGRAM_ASSIGN_OR_RETURN(std::string before, ReadConfigText(config_file));
  ENGRAM_ASSIGN_OR_RETURN(std::string after, SetInConfigText(before, setting, value, config_file.string()));
  ENGRAM_RETURN_IF_ERROR(CheckLoads(after, setting));
  ConfigEditReport report;
  report.value = value;
  report.changed = after != before;
  if (report.changed) ENGRAM_RETURN_IF_ERROR(WriteConfig(config_file, after));
  return report;
}

Result<ConfigEditReport> UnsetSetting(const fs::path& config_file, const SettingInfo& setting) {
  ENGRAM_ASSIGN_OR_RETURN(std::string before, ReadConfigText(config_file));
  ENGRAM_ASSIGN_OR_RETURN(std::string after, UnsetInConfigText(before, setting, config_file.string()));
  ENGRAM_RETURN_IF_ERROR(CheckLoads(after, setting));
  ConfigEditReport report;
  report.value = SettingValue(BrainOptions{}, setting);
  report.changed = after != before;
  if (report.changed) ENGRAM_RETURN_IF_ERROR(WriteConfig(config_file, after));
  return report;
}

}  // namespace engram::ops
