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

// Runs one page operation on the brain and prints its JSON (--json) or,
// from the same JSON, the text.
int RunPageOperation(std::string_view op, const Json& args, bool json, const std::string& brain_dir,
                     void (*print_text)(const Json&)) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  auto r = CallOperation(**brain, op, args);
  if (!r.ok()) return Fail(r.status(), json);
  if (json) Print(*r);
  else print_text(*r);
  return 0;
}

void PrintPut(const Json& r) {
  std::cout << (r["created"].get<bool>() ? "Created " : "Updated ") << r["slug"].get<std::string>() << " ("
            << r["path"].get<std::string>() << ")";
  if (r.contains("commit")) std::cout << ", committed " << r["commit"].get<std::string>().substr(0, 12);
  std::cout << "\n";
  for (const auto& w : r["warnings"]) std::cerr << "warning: " << w.get<std::string>() << "\n";
}

void PrintGet(const Json& page) {
  const std::string content = page["content"].get<std::string>();
  std::cout << content << (content.empty() || content.back() == '\n' ? "" : "\n");
}

void PrintList(const Json& list) { std::fputs(FormatList(list).c_str(), stdout); }

void PrintDelete(const Json& r) { std::cout << "Deleted " << r["deleted"].get<std::string>() << "\n"; }

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
  return RunPageOperation("list_pages", args, json, brain_dir, PrintList);
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
    *exit_code = RunPageOperation("get_page", {{"slug", a->slug}}, *json, *brain_dir, PrintGet);
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
    *exit_code = RunPageOperation("delete_page", {{"slug", a->slug}}, *json, *brain_dir, PrintDelete);
  });
}

}  // namespace engram::cli
