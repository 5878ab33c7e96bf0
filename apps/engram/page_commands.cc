#include "page_commands.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <string_view>

#include "command_support.h"
#include "output.h"

namespace engram::cli {

namespace {

using Json = nlohmann::json;

struct PageArgs {
  std::string slug;
  std::string file;  // put: the Markdown's file ("" = stdin)
  ListFilter filter;
};

// The parts of a page: `backlinks`, `timeline`, `tag`, `link`.
struct PartArgs {
  std::string slug;
  std::string tag;      // tag: add this one ("" = list)
  std::string date;     // timeline: add an entry of this date ("" = list)
  std::string summary;
  std::string source;
  std::string target;   // link
  std::string type;
  std::string entity;   // timeline merged across pages
  std::string since;
  std::string until;
};

void PrintMergedTimeline(const Json& r) {
  if (r["timeline"].empty()) std::cout << "no timeline entries\n";
  for (const auto& t : r["timeline"]) {
    std::cout << t["date"].get<std::string>() << "  " << t["title"].get<std::string>() << ": "
              << t["summary"].get<std::string>();
    if (!t["source"].get<std::string>().empty()) std::cout << "  [" << t["source"].get<std::string>() << "]";
    std::cout << "  (" << t["slug"].get<std::string>() << ":" << t["line"].get<int>() << ")\n";
  }
}


void PrintGet(const Json& page) {
  const std::string content = page["content"].get<std::string>();
  std::cout << content << (content.empty() || content.back() == '\n' ? "" : "\n");
}

void PrintList(const Json& list) { std::fputs(FormatList(list).c_str(), stdout); }

void PrintDelete(const Json& r) { std::cout << "Deleted " << r["deleted"].get<std::string>() << "\n"; }

void PrintBacklinks(const Json& r) {
  if (r["backlinks"].empty()) std::cout << "No page links to " << r["slug"].get<std::string>() << "\n";
  for (const auto& l : r["backlinks"]) {
    std::cout << l["from"].get<std::string>() << " (" << l["type"].get<std::string>() << ")";
    const std::string context = l["context"].get<std::string>();
    if (!context.empty()) std::cout << ": " << context;
    std::cout << "\n";
  }
}

void PrintTimeline(const Json& r) {
  if (r["timeline"].empty()) std::cout << r["slug"].get<std::string>() << " has no timeline entries\n";
  for (const auto& t : r["timeline"]) {
    std::cout << t["date"].get<std::string>() << "  " << t["summary"].get<std::string>();
    const std::string source = t["source"].get<std::string>();
    if (!source.empty()) std::cout << "  [Source: " << source << "]";
    std::cout << "\n";
  }
}

void PrintTags(const Json& r) {
  if (r["tags"].empty()) std::cout << r["slug"].get<std::string>() << " has no tags\n";
  for (const auto& t : r["tags"]) std::cout << t.get<std::string>() << "\n";
}

int RunPut(const PageArgs& a, bool json, const std::string& brain_dir) {
  // The Markdown is read under the brain's file limit before the operation runs.
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  const uint64_t max_bytes = (*brain)->options().import.max_file_bytes;
  Result<std::string> content = a.file.empty() ? ReadStdin(max_bytes) : ReadInputFile(a.file, max_bytes);
  if (!content.ok()) return Fail(content.status(), json);
  auto r = CallOperation(**brain, "put_page", {{"slug", a.slug}, {"content", *content}});
  if (!r.ok()) return Fail(r.status(), json);
  if (json) Print(*r);
  else PrintPut(*r);
  return 0;
}

int RunList(const PageArgs& a, bool json, const std::string& brain_dir) {
  Json args = {{"limit", a.filter.limit}};
  if (!a.filter.type.empty()) args["type"] = a.filter.type;
  if (!a.filter.tag.empty()) args["tag"] = a.filter.tag;
  return RunOperation("list_pages", args, json, brain_dir, PrintList);
}

int RunTimeline(const PartArgs& a, bool json, const std::string& brain_dir) {
  if (a.date.empty()) return RunOperation("get_timeline", {{"slug", a.slug}}, json, brain_dir, PrintTimeline);
  Json args = {{"slug", a.slug}, {"date", a.date}, {"summary", a.summary}};
  if (!a.source.empty()) args["source"] = a.source;
  return RunOperation("add_timeline_entry", args, json, brain_dir, PrintEdit);
}

int RunTag(const PartArgs& a, bool json, const std::string& brain_dir) {
  if (a.tag.empty()) return RunOperation("get_tags", {{"slug", a.slug}}, json, brain_dir, PrintTags);
  return RunOperation("add_tag", {{"slug", a.slug}, {"tag", a.tag}}, json, brain_dir, PrintEdit);
}

int RunLink(const PartArgs& a, bool json, const std::string& brain_dir) {
  Json args = {{"slug", a.slug}, {"target", a.target}};
  if (!a.type.empty()) args["type"] = a.type;
  return RunOperation("add_link", args, json, brain_dir, PrintEdit);
}

// `engram backlinks | timeline | tag | link`: the operations on a page's
// parts, as agents have them over MCP and HTTP.
void AddPagePartCommands(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto a = std::make_shared<PartArgs>();
  auto* back = app.add_subcommand("backlinks", "List the pages linking to a page, with each link's type and sentence");
  back->add_option("SLUG", a->slug, "The page: slug, path, title or alias")->required();
  back->callback([a, json, brain_dir, exit_code] {
    *exit_code = RunOperation("get_backlinks", {{"slug", a->slug}}, *json, *brain_dir, PrintBacklinks);
  });

  auto* timeline = app.add_subcommand("timeline", "Show a page's dated timeline, add an entry, or show one timeline "
                                                  "merged across pages");
  timeline->add_option("SLUG", a->slug, "The page: slug, path, title or alias (none: every page's, merged)");
  timeline->add_option("DATE", a->date, "Add an entry of this date (2026-04-07, 2026-04 or 2026年4月7日)");
  timeline->add_option("SUMMARY", a->summary, "The entry: one line (required with DATE)");
  timeline->add_option("--source", a->source, "Where the entry comes from, e.g. [[meetings/2026-04-07]]");
  timeline->add_option("--entity", a->entity, "Merged: the entries of this page and of the pages linking to it "
                                              "that name it");
  timeline->add_option("--since", a->since, "Merged: from this date (2026-03, 2026-03-12)");
  timeline->add_option("--until", a->until, "Merged: through this date (2026-06 takes all of June)");
  timeline->footer("An entry is written into the page's Markdown as '- **DATE** | SUMMARY [Source: SOURCE]'.\n"
                   "Without SLUG the entries of every page are merged by date (--entity, --since, --until narrow it).");
  timeline->callback([a, json, brain_dir, exit_code] {
    if (!a->date.empty() && a->summary.empty()) {
      *exit_code = Fail(Status::InvalidArgument("timeline: a DATE needs a SUMMARY"), *json);
      return;
    }
    if (a->slug.empty() || !a->entity.empty() || !a->since.empty() || !a->until.empty()) {
      if (!a->slug.empty()) {
        *exit_code = Fail(Status::InvalidArgument("timeline: --entity, --since and --until merge every page's "
                                                  "timeline; give no SLUG (--entity names the page)"), *json);
        return;
      }
      Json args = Json::object();
      if (!a->entity.empty()) args["entity"] = a->entity;
      if (!a->since.empty()) args["since"] = a->since;
      if (!a->until.empty()) args["until"] = a->until;
      *exit_code = RunOperation("list_timeline", args, *json, *brain_dir, PrintMergedTimeline);
      return;
    }
    *exit_code = RunTimeline(*a, *json, *brain_dir);
  });

  auto* tag = app.add_subcommand("tag", "List a page's tags, or add one to its frontmatter");
  tag->add_option("SLUG", a->slug, "The page: slug, path, title or alias")->required();
  tag->add_option("TAG", a->tag, "Add this tag (letters, digits and - _ / .)");
  tag->callback([a, json, brain_dir, exit_code] { *exit_code = RunTag(*a, *json, *brain_dir); });

  auto* link = app.add_subcommand("link", "Link a page to another (a line such as '- works_at:: [[target]]')");
  link->add_option("SLUG", a->slug, "The page the link goes from")->required();
  link->add_option("TARGET", a->target, "The page linked to")->required();
  link->add_option("--type", a->type, "mentions (the default), works_at, founded, invested_in or attended");
  link->footer("The line goes into the page's Markdown, written the vault's way (the shortest name that reaches\n"
               "the target); its type is what `backlinks` and search show.");
  link->callback([a, json, brain_dir, exit_code] { *exit_code = RunLink(*a, *json, *brain_dir); });
}

}  // namespace

void AddPageCommands(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto a = std::make_shared<PageArgs>();
  auto* put = app.add_subcommand("put", "Write a page (Markdown with frontmatter) into the brain and index it");
  put->add_option("SLUG", a->slug, "Page slug, e.g. people/zhang-san (written to SLUG.md)")->required();
  put->add_option("--file,-f", a->file, "Read the Markdown from this file (default: stdin)");
  put->footer("An existing page is overwritten; its previous content is kept as a version.");
  put->callback([a, json, brain_dir, exit_code] { *exit_code = RunPut(*a, *json, *brain_dir); });

  auto* get = app.add_subcommand("get", "Print a page's Markdown (or, with --json, its fields)");
  get->add_option("SLUG", a->slug, "Page slug")->required();
  get->callback([a, json, brain_dir, exit_code] {
    *exit_code = RunOperation("get_page", {{"slug", a->slug}}, *json, *brain_dir, PrintGet);
  });

  auto* list = app.add_subcommand("list", "List pages, optionally by type or tag");
  list->add_option("--type", a->filter.type, "Only pages of this type (person, company, meeting, concept, ...)");
  list->add_option("--tag", a->filter.tag, "Only pages with this tag");
  a->filter.limit = 100;
  list->add_option("--limit", a->filter.limit, "At most this many pages (default 100)")
      ->check(OperationRange("list_pages", "limit"));
  list->callback([a, json, brain_dir, exit_code] { *exit_code = RunList(*a, *json, *brain_dir); });

  auto* del = app.add_subcommand("delete", "Delete a page and its Markdown file");
  del->add_option("SLUG", a->slug, "Page slug")->required();
  del->callback([a, json, brain_dir, exit_code] {
    *exit_code = RunOperation("delete_page", {{"slug", a->slug}}, *json, *brain_dir, PrintDelete);
  });

  AddPagePartCommands(app, json, brain_dir, exit_code);
}

}  // namespace engram::cli
