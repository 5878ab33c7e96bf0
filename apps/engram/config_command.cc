#include "config_command.h"

#include <cstdlib>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "engram/brain.h"
#include "ops/config_edit.h"
#include "ops/render.h"
#include "output.h"

namespace engram::cli {

namespace {

using Json = nlohmann::json;

struct ConfigArgs {
  std::string key;
  std::string value;
};

Result<std::filesystem::path> ConfigFile(const std::string& brain_dir) {
  ENGRAM_ASSIGN_OR_RETURN(std::filesystem::path root, Brain::Locate(brain_dir));
  return root / ".engram" / "config.toml";
}

// A value as JSON: whole numbers of integer settings as integers.
Json ValueJson(const ops::SettingInfo& s, const ops::TomlValue& v) {
  if (const double* number = std::get_if<double>(&v.value)) {
    if (s.type == ops::SettingType::kInteger) return static_cast<int64_t>(*number);
    return *number;
  }
  if (const auto* text = std::get_if<std::string>(&v.value)) return *text;
  if (const auto* list = std::get_if<std::vector<std::string>>(&v.value)) return *list;
  return std::get<bool>(v.value);
}

Json SettingJson(const ops::EffectiveSetting& e) {
  const ops::SettingInfo& s = *e.setting;
  Json allowed = nullptr;
  if (s.type == ops::SettingType::kInteger || s.type == ops::SettingType::kNumber) {
    allowed = {{"min", ValueJson(s, ops::TomlValue{s.min, false})}, {"max", ValueJson(s, ops::TomlValue{s.max, false})}};
  } else if (!s.allowed.empty()) {
    allowed = s.allowed;
  }
  return {{"key", s.name},         {"value", ValueJson(s, e.value)},
          {"source", ops::SettingSourceName(e.source)}, {"type", ops::SettingTypeName(s.type)},
          {"allowed", allowed},    {"default", ValueJson(s, ops::SettingValue(BrainOptions{}, s))},
          {"env", s.env.empty() ? Json(nullptr) : Json(s.env)},
          {"reindexes", s.reindexes}};
}

// "# default", "# config.toml", "# environment (ENGRAM_SEARCH_LIMIT)", with
// ", default 10" when the value is not the built-in one.
std::string SourceNote(const ops::EffectiveSetting& e) {
  std::string note = "# ";
  note.append(ops::SettingSourceName(e.source));
  if (e.source == ops::SettingSource::kEnvironment) note.append(" (").append(e.setting->env).append(")");
  const std::string builtin = ops::SettingValueToml(ops::SettingValue(BrainOptions{}, *e.setting));
  if (ops::SettingValueToml(e.value) != builtin) note.append(", default ").append(builtin);
  return note;
}

int RunList(bool json, const std::string& brain_dir) {
  auto file = ConfigFile(brain_dir);
  if (!file.ok()) return Fail(file.status(), json);
  auto settings = ops::EffectiveSettings(*file);
  if (!settings.ok()) return Fail(settings.status(), json);
  if (json) {
    Json list = Json::array();
    for (const auto& e : *settings) list.push_back(SettingJson(e));
    std::cout << ops::Dump(list, 2) << "\n";
    return 0;
  }
  std::vector<std::string> lines;
  size_t width = 0;
  for (const auto& e : *settings) {
    std::string line = e.setting->name;
    line.append(" = ").append(ops::SettingValueToml(e.value));
    if (line.size() <= 48) width = std::max(width, line.size());
    lines.push_back(std::move(line));
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t pad = lines[i].size() < width ? width - lines[i].size() : 0;
    std::cout << lines[i] << std::string(pad + 2, ' ') << SourceNote((*settings)[i]) << "\n";
  }
  return 0;
}

int RunGet(const ConfigArgs& a, bool json, const std::string& brain_dir) {
  auto setting = ops::FindSetting(a.key);
  if (!setting.ok()) return Fail(setting.status(), json);
  auto file = ConfigFile(brain_dir);
  if (!file.ok()) return Fail(file.status(), json);
  auto settings = ops::EffectiveSettings(*file);
  if (!settings.ok()) return Fail(settings.status(), json);
  for (const auto& e : *settings) {
    if (e.setting != *setting) continue;
    if (json) std::cout << ops::Dump(SettingJson(e), 2) << "\n";
    else std::cout << ops::SettingValueText(e.value) << "\n";
  }
  return 0;
}

// What a person should know after an edit: the environment wins over the
// file, and some settings re-index pages.
void EditNotes(const ops::SettingInfo& s) {
  if (!s.env.empty() && std::getenv(s.env.c_str()) != nullptr) {
    std::cerr << "note: " << s.env << " is set in this environment and overrides config.toml\n";
  }
  if (s.reindexes) {
    std::cerr << "note: " << s.name
              << " changes how pages are indexed: the next `engram sync` or `engram import` re-indexes them\n";
  }
}

int RunSet(const ConfigArgs& a, bool json, const std::string& brain_dir, bool unset) {
  auto setting = ops::FindSetting(a.key);
  if (!setting.ok()) return Fail(setting.status(), json);
  auto file = ConfigFile(brain_dir);
  if (!file.ok()) return Fail(file.status(), json);
  auto r = unset ? ops::UnsetSetting(*file, **setting) : ops::SetSetting(*file, **setting, a.value);
  if (!r.ok()) return Fail(r.status(), json);
  const ops::SettingInfo& s = **setting;
  if (r->changed) EditNotes(s);
  if (json) {
    std::cout << ops::Dump(Json{{"key", s.name}, {unset ? "default" : "value", ValueJson(s, r->value)},
                                {"changed", r->changed}, {"file", file->string()},
                                {"reindexes", r->changed && s.reindexes}},
                           2)
              << "\n";
  } else if (unset) {
    std::cout << s.name << (r->changed ? " removed from " : " is not set in ") << file->string() << "; the default "
              << ops::SettingValueToml(r->value) << " applies\n";
  } else {
    std::cout << s.name << " = " << ops::SettingValueToml(r->value) << (r->changed ? " written to " : " already in ") << file->string()
              << "\n";
  }
  return 0;
}

}  // namespace

void AddConfigCommand(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto a = std::make_shared<ConfigArgs>();
  auto* config = app.add_subcommand("config", "Show and change settings in .engram/config.toml");
  config->require_subcommand(1);
  config->footer(
      "KEY is section.key as config.toml writes it (search.limit, embedding.provider); `engram config list`\n"
      "shows every one. set and unset rewrite the one line of the key and keep comments, blank lines and\n"
      "order; the whole file is checked exactly as a brain loads it before it is written (atomically), so a\n"
      "value loading would refuse is refused here, and a file that does not parse is left untouched.\n"
      "Settings that depend on each other are changed one at a time, each step valid: set\n"
      "embedding.model before embedding.provider = bert or openai. Precedence when a brain runs: flags, then\n"
      "ENGRAM_<SECTION>_<KEY> environment variables, then config.toml, then the built-in default.\n"
      "Exit codes: 1 unknown setting or unreadable file, 2 a value that is refused.\n"
      "Example (an OpenAI-compatible embedding server):\n"
      "  engram config set embedding.model text-embedding-3-small\n"
      "  engram config set embedding.base_url http://127.0.0.1:8080/v1\n"
      "  engram config set embedding.provider openai");

  auto* list = config->add_subcommand("list", "Every setting with its effective value and where it comes from");
  list->footer(
      "Lines read `section.key = value  # source`, the source being default, config.toml or environment\n"
      "(with the variable), and the built-in default when the value differs from it. With --json: an array\n"
      "of {\"key\", \"value\", \"source\", \"type\" (integer, number, string, list), \"allowed\" ({\"min\", \"max\"}\n"
      "for numbers, the values of a fixed set, else null), \"default\", \"env\" (the overriding variable, or\n"
      "null), \"reindexes\"}.");
  list->callback([json, brain_dir, exit_code] { *exit_code = RunList(*json, *brain_dir); });

  auto* get = config->add_subcommand("get", "Print one setting's effective value");
  get->add_option("KEY", a->key, "section.key, e.g. search.limit")->required();
  get->footer(
      "Strings are printed as they are, numbers and lists as TOML. With --json: the object `config list --json`\n"
      "gives for the key. An unknown key exits 1 and names the closest ones.");
  get->callback([a, json, brain_dir, exit_code] { *exit_code = RunGet(*a, *json, *brain_dir); });

  auto* set = config->add_subcommand("set", "Write one setting into config.toml (checked like loading)");
  set->add_option("KEY", a->key, "section.key, e.g. embedding.provider")->required();
  set->add_option("VALUE", a->value,
                  "Numbers as numbers (20, 0.5); strings as they are, no quotes needed (openai, \"\" for empty);\n"
                  "lists as a JSON or TOML array of strings ('[\"04_Archive\", \"Templates\"]', '[]')")
      ->required();
  set->footer(
      "The key's line gets the new value (a trailing comment is kept); a key the file lacks is added at the\n"
      "end of its section, the section at the end of the file when missing. Refused, with the file untouched:\n"
      "a wrong type, a number out of range (the range is named), a value outside a fixed set (the allowed\n"
      "values are named), a rule tying settings together (the one to change first is named), a string that is\n"
      "not UTF-8 or holds control characters other than newline and tab. pages.title, chunker.* and scope.*\n"
      "re-index pages at the next sync or import. A value that starts with '-' (other than a number) follows\n"
      "`--`: engram config set git.message -- '-x {path}'");
  set->callback([a, json, brain_dir, exit_code] { *exit_code = RunSet(*a, *json, *brain_dir, false); });

  auto* unset = config->add_subcommand("unset", "Remove a setting's line so the built-in default applies");
  unset->add_option("KEY", a->key, "section.key, e.g. search.mode")->required();
  unset->footer(
      "Only the key's line goes; comments stay. Refused when the file without it would not load (e.g.\n"
      "embedding.model while embedding.provider is openai). A key the file does not set is no error.");
  unset->callback([a, json, brain_dir, exit_code] { *exit_code = RunSet(*a, *json, *brain_dir, true); });
}

}  // namespace engram::cli
