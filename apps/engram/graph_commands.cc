#include "graph_commands.h"

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "command_support.h"

namespace engram::cli {

namespace {

using Json = nlohmann::json;

std::string Str(const Json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

void PrintCandidates(const Json& r) {
  const Json& list = r["candidates"];
  if (list.empty()) {
    std::cout << "no page is named '" << Str(r, "name") << "'\n";
    return;
  }
  if (list.size() > 1) std::cout << "'" << Str(r, "name") << "' is ambiguous: " << list.size() << " pages\n";
  for (const Json& c : list) {
    std::cout << Str(c, "slug") << "  " << Str(c, "title") << "  [" << Str(c, "type") << "]  by " << Str(c, "reason")
              << "\n";
  }
}

// "2024-03 .. 2026-01" / "since 2024-03" / "until 2023" / "".
std::string Interval(const Json& f) {
  const std::string from = Str(f, "valid_from"), until = Str(f, "valid_until");
  if (!from.empty() && !until.empty()) return from + " .. " + until;
  if (!from.empty()) return "since " + from;
  if (!until.empty()) return "until " + until;
  return "";
}

void PrintFact(const Json& f, const char* indent) {
  const std::string when = Interval(f);
  std::cout << indent << Str(f, "predicate") << ": " << Str(f, "value");
  if (f["entity"].is_string() && f["entity"].get<std::string>() != Str(f, "value")) {
    std::cout << " (" << f["entity"].get<std::string>() << ")";
  }
  if (!when.empty()) std::cout << "  [" << when << "]";
  if (!f["holds"].get<bool>()) std::cout << "  (past)";
  if (f.contains("in_conflict")) std::cout << "  CONFLICT";
  const Json& s = f["source"];
  std::cout << "  — " << Str(s, "path") << ":" << s["line"].get<int>() << " (" << Str(s, "origin") << ")\n";
}

void PrintConflicts(const Json& conflicts) {
  for (const Json& c : conflicts) {
    std::cout << Str(c, "subject_title") << " (" << Str(c, "subject") << "): " << Str(c, "predicate")
              << " has " << c["facts"].size() << " values at once\n";
    for (const Json& f : c["facts"]) PrintFact(f, "  ");
  }
}

void PrintFacts(const Json& r) {
  const std::string as_of = Str(r, "as_of");
  std::cout << Str(r, "title") << " (" << Str(r, "slug") << ")" << (as_of.empty() ? "" : ", as of " + as_of) << "\n";
  if (r["facts"].empty()) std::cout << "  no facts\n";
  for (const Json& f : r["facts"]) PrintFact(f, "  ");
  if (!r["conflicts"].empty()) {
    std::cout << "conflicts:\n";
    PrintConflicts(r["conflicts"]);
  }
}

void PrintAllConflicts(const Json& r) {
  if (r["conflicts"].empty()) {
    std::cout << "no conflicts\n";
    return;
  }
  PrintConflicts(r["conflicts"]);
}

struct GraphArgs {
  std::string name;
  std::string as_of;
};

}  // namespace

void AddGraphCommands(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto a = std::make_shared<GraphArgs>();
  auto* entity = app.add_subcommand("entity", "Entities: which page a name means");
  entity->require_subcommand(1);
  auto* resolve = entity->add_subcommand("resolve", "List the pages a name may mean, each with the reason");
  resolve->add_option("NAME", a->name, "A name as people write it: slug, file name, title or alias")->required();
  resolve->footer(
      "Strongest match first: slug or path, file name, title, alias, then the same folded (case, full/half\n"
      "width, Traditional/Simplified Chinese), then spelled without spaces or punctuation (\"zhangsan\" for\n"
      "an alias \"Zhang San\"). Every page matched at the strongest level is listed; two or more means the\n"
      "name is ambiguous and none is chosen.");
  resolve->callback([a, json, brain_dir, exit_code] {
    *exit_code = RunOperation("resolve_entity", {{"name", a->name}}, *json, *brain_dir, PrintCandidates);
  });

  auto* facts = app.add_subcommand("facts", "Show the facts about a page, with their sources and the time they hold");
  facts->add_option("SLUG", a->name, "The page: slug, path, title or alias")->required();
  facts->add_option("--as-of", a->as_of, "Settle the facts at this date instead of today (2025-06, 2025-06-30)");
  facts->footer(
      "Facts come from frontmatter fields (role: CEO, company: \"[[companies/x]]\", born: 1990-05-01), from\n"
      "'- fact: role: CTO (since 2024-03)' lines and list items under a '## Facts' heading, and from dated\n"
      "timeline lines that say a change ('joined [[x]] as CTO', '加入[[x]]担任 CTO', 'left [[x]]').\n"
      "For role, works_at, location, status, born, died, founded and reports_to a newer value closes the\n"
      "older one; two values that hold at once are shown as a CONFLICT. '(past)' marks a fact that no\n"
      "longer holds at the date.");
  facts->callback([a, json, brain_dir, exit_code] {
    Json args = {{"slug", a->name}};
    if (!a->as_of.empty()) args["as_of"] = a->as_of;
    *exit_code = RunOperation("get_facts", args, *json, *brain_dir, PrintFacts);
  });

  auto* conflicts = app.add_subcommand("conflicts", "List facts that disagree, with both sources");
  conflicts->add_option("--as-of", a->as_of, "Look at this date instead of today (2025-06, 2025-06-30)");
  conflicts->footer("A conflict is resolved by editing the Markdown the sources name.");
  conflicts->callback([a, json, brain_dir, exit_code] {
    Json args = Json::object();
    if (!a->as_of.empty()) args["as_of"] = a->as_of;
    *exit_code = RunOperation("list_conflicts", args, *json, *brain_dir, PrintAllConflicts);
  });
}

}  // namespace engram::cli
