#include "kb/page_entry.h"

#include <cctype>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/utf8.h"

namespace engram::kb {

namespace {

using Json = nlohmann::json;

// The first string (or number) among keys of object.
std::string Field(const Json& object, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    auto it = object.find(key);
    if (it == object.end()) continue;
    if (it->is_string()) return std::string(common::TrimSpace(it->get<std::string>()));
    if (it->is_number()) return it->dump();
  }
  return "";
}

// The heading's title when line is a Markdown ATX heading, else nothing.
std::optional<std::string_view> Heading(std::string_view line) {
  size_t level = 0;
  while (level < line.size() && line[level] == '#') ++level;
  if (level == 0 || level > 6 || (level < line.size() && line[level] != ' ' && line[level] != '\t')) {
    return std::nullopt;
  }
  return common::TrimSpace(line.substr(level));
}

bool IsOneOf(std::string_view title, std::initializer_list<std::string_view> names) {
  std::string lower(title);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view n : names) {
    if (lower == n) return true;
  }
  return false;
}

// The body's "## Q" and "## A" sections (after the frontmatter block).
void BodySections(std::string_view content, std::string* question, std::string* answer) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start <= content.size();) {
    size_t end = content.find('\n', start);
    if (end == std::string_view::npos) end = content.size();
    std::string_view line = content.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  size_t i = 0;
  if (!lines.empty() && lines[0] == "---") {  // the frontmatter block
    for (i = 1; i < lines.size() && lines[i] != "---" && lines[i] != "..."; ++i) {
    }
    ++i;
  }
  std::string* into = nullptr;
  std::string section;
  auto flush = [&] {
    if (into != nullptr && into->empty()) *into = std::string(common::TrimSpace(section));
    section.clear();
  };
  for (; i < lines.size(); ++i) {
    if (auto title = Heading(lines[i])) {
      flush();
      into = IsOneOf(*title, {"q", "question", "问题", "问"})   ? question
             : IsOneOf(*title, {"a", "answer", "回答", "答"}) ? answer
                                                              : nullptr;
      continue;
    }
    if (into != nullptr) section.append(lines[i]).push_back('\n');
  }
  flush();
}

}  // namespace

bool InFolder(std::string_view path, std::string_view folder) {
  while (!folder.empty() && folder.back() == '/') folder.remove_suffix(1);
  if (folder.empty()) return false;
  return path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 && path[folder.size()] == '/';
}

std::optional<PageEntry> ReadPageEntry(std::string_view frontmatter_json, std::string_view content) {
  Json fm = frontmatter_json.empty() ? Json::object() : Json::parse(frontmatter_json, nullptr, false);
  if (!fm.is_object()) fm = Json::object();
  PageEntry e;
  e.question = Field(fm, {"question"});
  e.answer = Field(fm, {"answer", "safeChat"});
  e.class_name = Field(fm, {"class", "className", "class_name"});
  e.type = Field(fm, {"type"});
  std::string status = Field(fm, {"status"});
  for (char& c : status) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  e.online = status != "offline";
  if (e.question.empty() || e.answer.empty()) BodySections(content, &e.question, &e.answer);
  if (e.question.empty()) return std::nullopt;
  return e;
}

}  // namespace engram::kb
