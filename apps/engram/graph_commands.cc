#include "graph_commands.h"

#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <memory>
#include <nlohmann/json.hpp>

#include "command_support.h"
#include "output.h"

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
  if (!f["holds"].get<bool>()) std::cout << "  (not at this date)";
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
  std::string into;   // entity merge: the page kept; entity split: the new page
  std::vector<std::string> names;     // entity split: aliases moved
  std::vector<std::string> sections;  // entity split: headings moved
  std::string title;                  // entity split: the new page's title
  bool suggest = false;               // facts: ask the LLM
  bool publish = false;               // merge, split: private text may become public
  bool write = false;                 // facts --suggest: write what it keeps
  double min_confidence = 0.7;
  std::string other;
  std::string as_of;
  std::string add;    // "predicate: value" to state
  std::string since;
  std::string until;
  std::string rel;
  std::string format = "text";
  int depth = 1;
};

// A node's name in DOT and Mermaid: quoted, with quotes escaped.
std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

void PrintGraphText(const Json& r) {
  std::map<std::string, std::string> titles;
  for (const Json& n : r["nodes"]) titles[Str(n, "slug")] = Str(n, "title");
  // A tree: each page under the page it was reached from (its first edge from a shallower page).
  std::map<std::string, int> depth;
  for (const Json& n : r["nodes"]) depth[Str(n, "slug")] = n["depth"].get<int>();
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> children;  // parent -> (child, label)
  std::set<std::string> placed = {Str(r, "root")};
  for (int d = 1; d <= r["depth"].get<int>(); ++d) {
    // Typed links first: a page linked both ways is shown under its typed link.
    std::vector<Json> edges(r["edges"].begin(), r["edges"].end());
    std::stable_partition(edges.begin(), edges.end(), [](const Json& e) { return Str(e, "type") != "mentions"; });
    for (const Json& e : edges) {
      const std::string from = Str(e, "from"), to = Str(e, "to"), type = Str(e, "type");
      if (depth[to] == d && depth[from] == d - 1 && placed.insert(to).second) children[from].push_back({to, type + " →"});
      if (depth[from] == d && depth[to] == d - 1 && placed.insert(from).second) {
        children[to].push_back({from, "← " + type});
      }
    }
  }
  std::function<void(const std::string&, const std::string&)> print = [&](const std::string& at,
                                                                             const std::string& indent) {
    for (const auto& [child, label] : children[at]) {
      std::cout << indent << label << " " << titles[child] << " (" << child << ")\n";
      print(child, indent + "    ");
    }
  };
  std::cout << titles[Str(r, "root")] << " (" << Str(r, "root") << ")\n";
  print(Str(r, "root"), "  ");
  std::cout << r["nodes"].size() << " pages, " << r["edges"].size() << " links"
            << (r["truncated"].get<bool>() ? " (truncated: the walk stopped at its cap or time budget)" : "") << "\n";
}

void PrintGraphDot(const Json& r) {
  std::cout << "digraph engram {\n";
  for (const Json& n : r["nodes"]) {
    std::cout << "  " << Quoted(Str(n, "slug")) << " [label=" << Quoted(Str(n, "title")) << "];\n";
  }
  for (const Json& e : r["edges"]) {
    std::cout << "  " << Quoted(Str(e, "from")) << " -> " << Quoted(Str(e, "to")) << " [label=" << Quoted(Str(e, "type"))
              << "];\n";
  }
  std::cout << "}\n";
}

void PrintGraphMermaid(const Json& r) {
  std::map<std::string, std::string> ids;  // Mermaid ids are plain: n0, n1, ...
  std::cout << "graph LR\n";
  for (const Json& n : r["nodes"]) {
    const std::string id = "n" + std::to_string(ids.size());
    ids[Str(n, "slug")] = id;
    std::string label = Str(n, "title");
    for (char& c : label) {
      if (c == '"') c = '\'';
    }
    std::cout << "  " << id << "[\"" << label << "\"]\n";
  }
  for (const Json& e : r["edges"]) {
    std::string type = Str(e, "type");
    for (char& c : type) {
      if (c == '|' || c == '"') c = '_';
    }
    std::cout << "  " << ids[Str(e, "from")] << " -->|" << type << "| " << ids[Str(e, "to")] << "\n";
  }
}

void PrintPath(const Json& r) {
  if (!r["found"].get<bool>()) {
    std::cout << "no path from " << Str(r, "from") << " to " << Str(r, "to")
              << (r["truncated"].get<bool>() ? " found before the search's cap or time budget" : " (at most 12 links)")
              << "\n";
    return;
  }
  std::cout << Str(r, "from") << " → " << Str(r, "to") << ": " << r["hops"].get<int>() << " link(s)\n";
  for (const Json& e : r["path"]) {
    std::cout << "  " << Str(e, "from") << " —" << Str(e, "type") << "→ " << Str(e, "to") << "\n";
    if (!Str(e, "context").empty()) std::cout << "      \"" << Str(e, "context") << "\"\n";
  }
}

void PrintDeadLinks(const Json& r) {
  if (r["dead_links"].empty()) std::cout << "no dead links\n";
  for (const Json& l : r["dead_links"]) {
    std::cout << Str(l, "from") << " → [[" << Str(l, "target") << "]] (" << Str(l, "type") << ")\n";
  }
}

void PrintOrphans(const Json& r) {
  if (r["orphans"].empty()) std::cout << "no orphans\n";
  for (const Json& p : r["orphans"]) std::cout << Str(p, "slug") << "  " << Str(p, "title") << "\n";
}

}  // namespace

void AddGraphCommands(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto a = std::make_shared<GraphArgs>();
  auto* entity =
      app.add_subcommand("entity", "Entities: which page a name means, merging two pages of one, splitting one of two");
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

  auto* show = entity->add_subcommand("show", "Show one entity: names, current facts, typed links, conflicts");
  show->add_option("NAME", a->name, "The entity: slug, path, title or alias")->required();
  show->callback([a, json, brain_dir, exit_code] {
    *exit_code = RunOperation("get_entity", {{"slug", a->name}}, *json, *brain_dir,
                              [](const Json& r) { std::cout << Str(r, "card"); });
  });

  auto* merge = entity->add_subcommand("merge", "Merge the page FROM into the page INTO (one entity, two pages)");
  merge->add_option("FROM", a->name, "The page merged away: slug, path, title or alias")->required();
  merge->add_option("INTO", a->into, "The page kept")->required();
  merge->add_flag("--publish", a->publish,
                  "Merge a private FROM into a public INTO: its text, facts and names become public");
  merge->footer(
      "INTO gets FROM's title and aliases as aliases, FROM's text under '## Merged from …' (its frontmatter\n"
      "as '- fact:' lines) and FROM's timeline entries; every link to FROM in every page (private ones too)\n"
      "is rewritten to INTO, keeping its shown text; FROM becomes a redirect page (type: redirect) naming\n"
      "INTO, so its name still resolves there. Each page written is its own commit on a git brain: `git\n"
      "revert` undoes a merge. Refused: a page into itself, a public page into a private one, redirects,\n"
      "and a private page into a public one unless --publish (the refusal says what would be exposed).\n"
      "Every page is planned before the first is written; a merge that is interrupted (a crash, a kill)\n"
      "is finished by running it again, by the next write, or by `engram check --repair`.");
  merge->callback([a, json, brain_dir, exit_code] {
    Json args = {{"from", a->name}, {"into", a->into}};
    if (a->publish) args["publish"] = true;
    *exit_code = RunOperation("merge_entities", args, *json, *brain_dir,
                              [](const Json& r) {
                                std::cout << "merged " << Str(r, "from") << " into " << Str(r, "into") << ": "
                                          << r["links_rewritten"].get<size_t>() << " link(s) rewritten in "
                                          << r["pages_rewritten"].size() << " page(s) written\n";
                                for (const Json& p : r["pages_rewritten"]) std::cout << "  " << p.get<std::string>() << "\n";
                                if (!r["aliases_added"].empty()) {
                                  std::cout << "aliases added:";
                                  for (const Json& x : r["aliases_added"]) std::cout << " " << x.get<std::string>();
                                  std::cout << "\n";
                                }
                              });
  });

  auto* split = entity->add_subcommand("split", "Split a page about two entities in two, or undo a merge");
  split->add_option("PAGE", a->name, "The page split (slug, path, title or alias), or a page `merge` made a redirect")
      ->required();
  split->add_option("NEW", a->into, "The new page's slug (people/li-wei-tencent); none when PAGE is a redirect");
  split->add_option("--name", a->names, "An alias of PAGE that names the other entity (repeatable): it moves to NEW");
  split->add_option("--section", a->sections, "A heading of PAGE ('## At Tencent') whose section moves (repeatable)");
  split->add_option("--title", a->title, "NEW's title (default: the first --name)");
  split->add_flag("--publish", a->publish,
                  "Undoing a merge into a private page: restore the public PAGE (the text it takes back is public)");
  split->footer(
      "NEW gets PAGE's type, the aliases and sections named, and a line 'Split from [[PAGE]]'; PAGE loses\n"
      "them. Links to PAGE whose shown text is one of the moved names ([[people/li-wei|Li Wei (Tencent)]])\n"
      "now reach NEW; other links are left as they are. Named a redirect that `entity merge` left, it undoes\n"
      "the merge: the redirect gets back its title, type and names, the text under '## Merged from …' leaves\n"
      "the page kept, and links shown as its names or its slug reach it again (timeline entries the merge\n"
      "copied stay on the page kept). Each page written is its own commit on a git brain.");
  split->callback([a, json, brain_dir, exit_code] {
    Json args = {{"page", a->name}, {"names", a->names}, {"sections", a->sections}};
    if (!a->into.empty()) args["into"] = a->into;
    if (!a->title.empty()) args["title"] = a->title;
    if (a->publish) args["publish"] = true;
    *exit_code = RunOperation("split_entity", args, *json, *brain_dir, [](const Json& r) {
      std::cout << (r["restored"].get<bool>() ? "restored " : "split ") << Str(r, "into") << " from "
                << Str(r, "from") << ": " << r["names_moved"].size() << " name(s), "
                << r["sections_moved"].get<size_t>() << " section(s) moved, " << r["links_rewritten"].get<size_t>()
                << " link(s) rewritten\n";
      for (const Json& p : r["pages_rewritten"]) std::cout << "  " << p.get<std::string>() << "\n";
    });
  });

  auto* facts = app.add_subcommand("facts", "Show the facts about a page, with their sources and the time they hold");
  facts->add_option("SLUG", a->name, "The page: slug, path, title or alias")->required();
  facts->add_option("--as-of", a->as_of, "Settle the facts at this date instead of today (2025-06, 2025-06-30)");
  facts->add_option("--add", a->add, "State a fact instead: \"PREDICATE: VALUE\" (a line in the page's Markdown)");
  facts->add_option("--since", a->since, "With --add: when it began (2026-03)");
  facts->add_option("--until", a->until, "With --add: when it ended");
  facts->add_flag("--suggest", a->suggest,
                  "Ask the LLM ([llm] in config.toml) for the relations the page states; lists what it would add");
  facts->add_flag("--write", a->write, "With --suggest: add the ones kept as fact lines marked with the model");
  facts->add_option("--min-confidence", a->min_confidence, "With --suggest: the least confidence kept (default 0.7)")
      ->check(CLI::Range(0.0, 1.0));
  facts->footer(
      "Facts come from frontmatter fields (role: CEO, company: \"[[companies/x]]\", born: 1990-05-01), from\n"
      "'- fact: role: CTO (since 2024-03)' lines and list items under a '## Facts' heading, and from dated\n"
      "timeline lines that say a change ('joined [[x]] as CTO', '加入[[x]]担任 CTO', 'left [[x]]').\n"
      "For role, works_at, location, status, born, died, founded and reports_to ([graph] single_valued in\n"
      "config.toml) a newer value closes the older one; two values that hold at once are shown as a\n"
      "CONFLICT. '(not at this date)' marks a fact that does not hold at the date (today, or --as-of).\n"
      "--suggest (off unless asked; needs llm.model) sends the page to the model and reads back relations\n"
      "(works_at, founded, invested_in, attended, reports_to, part_of, location, acquired, advises, education,\n"
      "role). Kept: those about this page whose object is a page (or a text role or location), at or above\n"
      "--min-confidence, that the page does not already state and that no value a person wrote contradicts.\n"
      "--write appends them as '- fact: works_at: [[x]] <!-- llm MODEL 0.86 line 12 -->' (origin 'llm …').");
  facts->callback([a, json, brain_dir, exit_code] {
    if (a->write && !a->suggest) {
      *exit_code = Fail(Status::InvalidArgument("--write goes with --suggest"), *json);
      return;
    }
    if (a->suggest) {
      Json args = {{"slug", a->name}, {"write", a->write}, {"min_confidence", a->min_confidence}};
      *exit_code = RunOperation("suggest_facts", args, *json, *brain_dir, [](const Json& r) {
        std::cout << Str(r, "slug") << ": " << r["suggestions"].size() << " relation(s) from " << Str(r, "model")
                  << "\n";
        for (const Json& s : r["suggestions"]) {
          const std::string value = Str(s, "value").empty() ? Str(s, "object") : Str(s, "value");
          std::cout << "  " << Str(s, "predicate") << ": " << value << "  (line " << s["line"].get<int>()
                    << ", confidence " << s["confidence"].get<double>() << ")  " << Str(s, "verdict") << "\n";
        }
        for (const Json& d : r["dropped"]) std::cout << "  dropped: " << d.get<std::string>() << "\n";
        if (!Str(r, "commit").empty()) std::cout << "committed " << Str(r, "commit").substr(0, 12) << "\n";
      });
      return;
    }
    if (!a->add.empty()) {
      const size_t colon = a->add.find(':');
      if (colon == std::string::npos) {
        *exit_code = Fail(Status::InvalidArgument("--add: write \"PREDICATE: VALUE\", e.g. \"role: CTO\""), *json);
        return;
      }
      Json args = {{"slug", a->name}, {"predicate", a->add.substr(0, colon)}, {"value", a->add.substr(colon + 1)}};
      if (!a->since.empty()) args["valid_from"] = a->since;
      if (!a->until.empty()) args["valid_until"] = a->until;
      *exit_code = RunOperation("add_fact", args, *json, *brain_dir, PrintEdit);
      return;
    }
    if (!a->since.empty() || !a->until.empty()) {
      *exit_code = Fail(Status::InvalidArgument("--since and --until go with --add"), *json);
      return;
    }
    Json args = {{"slug", a->name}};
    if (!a->as_of.empty()) args["as_of"] = a->as_of;
    *exit_code = RunOperation("get_facts", args, *json, *brain_dir, PrintFacts);
  });

  auto* graph = app.add_subcommand("graph", "Show the pages around a page: links both ways, to a depth");
  graph->add_option("SLUG", a->name, "The page: slug, path, title or alias")->required();
  graph->add_option("--depth", a->depth, "Links away (1-6, default 1)")->check(CLI::Range(1, 6));
  graph->add_option("--rel", a->rel, "Only links of this type (works_at, founded_by, mentions, ...)");
  graph->add_option("--format", a->format, "text (a tree, the default), dot (Graphviz) or mermaid")
      ->check(CLI::IsMember({"text", "dot", "mermaid"}));
  graph->footer("Walks at most 1,000 pages in 2 s; a larger neighbourhood is marked truncated.\n"
                "`engram graph X --format dot | dot -Tsvg > x.svg` draws it.");
  graph->callback([a, json, brain_dir, exit_code] {
    Json args = {{"slug", a->name}, {"depth", a->depth}};
    if (!a->rel.empty()) args["rel"] = a->rel;
    auto print = a->format == "dot" ? PrintGraphDot : a->format == "mermaid" ? PrintGraphMermaid : PrintGraphText;
    *exit_code = RunOperation("traverse", args, *json, *brain_dir, print);
  });

  auto* path = app.add_subcommand("path", "Show the shortest chain of links between two pages, with the sentences");
  path->add_option("FROM", a->name, "A page: slug, path, title or alias")->required();
  path->add_option("TO", a->other, "Another page")->required();
  path->add_option("--rel", a->rel, "Only links of this type");
  path->callback([a, json, brain_dir, exit_code] {
    Json args = {{"from", a->name}, {"to", a->other}};
    if (!a->rel.empty()) args["rel"] = a->rel;
    *exit_code = RunOperation("find_path", args, *json, *brain_dir, PrintPath);
  });

  auto* dead = app.add_subcommand("dead-links", "List links that reach no page");
  dead->callback([json, brain_dir, exit_code] {
    *exit_code = RunOperation("list_dead_links", Json::object(), *json, *brain_dir, PrintDeadLinks);
  });
  auto* related = app.add_subcommand("related", "List pages related to a page by shared links, co-mentions and tags");
  related->add_option("SLUG", a->name, "The page: slug, path, title or alias")->required();
  related->add_option("--limit", a->depth, "How many (1-100, default 10)");
  related->footer("Score: one per page both link to and per page that links to both, a half per shared tag.");
  related->callback([a, json, brain_dir, exit_code] {
    Json args = {{"slug", a->name}};
    if (a->depth != 1) args["limit"] = a->depth;
    *exit_code = RunOperation("related", args, *json, *brain_dir, [](const Json& r) {
      if (r["related"].empty()) std::cout << "nothing related\n";
      for (const Json& p : r["related"]) {
        std::cout << Str(p, "slug") << "  " << Str(p, "title") << "  score " << p["score"].get<double>() << "\n";
        for (const char* why : {"shared_links", "co_mentions", "shared_tags"}) {
          if (p[why].empty()) continue;
          std::cout << "    " << why << ":";
          for (const Json& x : p[why]) std::cout << " " << x.get<std::string>();
          std::cout << "\n";
        }
      }
    });
  });

  auto* orphans = app.add_subcommand("orphans", "List pages no link reaches and that link to no page");
  orphans->callback([json, brain_dir, exit_code] {
    *exit_code = RunOperation("list_orphans", Json::object(), *json, *brain_dir, PrintOrphans);
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
