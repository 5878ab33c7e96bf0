#include "page_commands.h"

#include <cstdio>
#include <iostream>
#include <memory>

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

int RunPut(const PageArgs& a, bool json, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  const uint64_t max_bytes = (*brain)->options().import_max_file_bytes;
  Result<std::string> content = a.file.empty() ? ReadStdin(max_bytes) : ReadInputFile(a.file, max_bytes);
  if (!content.ok()) return Fail(content.status(), json);
  auto r = (*brain)->Put(OperationContext{}, a.slug, *content);
  if (!r.ok()) return Fail(r.status(), json);
  if (json) {
    Print(ToJson(*r));
  } else {
    std::cout << (r->created ? "Created " : "Updated ") << r->slug << " (" << r->path << ")";
    if (!r->commit.empty()) std::cout << ", committed " << r->commit.substr(0, 12);
    std::cout << "\n";
    for (const auto& w : r->warnings) std::cerr << "warning: " << w << "\n";
  }
  return 0;
}

int RunGet(const PageArgs& a, bool json, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  auto r = (*brain)->Get(OperationContext{}, a.slug);
  if (!r.ok()) return Fail(r.status(), json);
  if (json) Print(ToJson(*r));
  else std::cout << r->content << (r->content.empty() || r->content.back() == '\n' ? "" : "\n");
  return 0;
}

int RunList(const PageArgs& a, bool json, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  auto r = (*brain)->List(OperationContext{}, a.filter);
  if (!r.ok()) return Fail(r.status(), json);
  if (json) Print(ToJson(*r));
  else std::fputs(FormatList(*r).c_str(), stdout);
  return 0;
}

int RunDelete(const PageArgs& a, bool json, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  Status st = (*brain)->Delete(OperationContext{}, a.slug);
  if (!st.ok()) return Fail(st, json);
  if (json) Print({{"deleted", a.slug}});
  else std::cout << "Deleted " << a.slug << "\n";
  return 0;
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
  get->callback([a, json, brain_dir, exit_code] { *exit_code = RunGet(*a, *json, *brain_dir); });

  auto* list = app.add_subcommand("list", "List pages, optionally by type or tag");
  list->add_option("--type", a->filter.type, "Only pages of this type (person, company, meeting, concept, ...)");
  list->add_option("--tag", a->filter.tag, "Only pages with this tag");
  a->filter.limit = 100;
  list->add_option("--limit", a->filter.limit, "At most this many pages (default 100)")->check(CLI::Range(1, 1000000));
  list->callback([a, json, brain_dir, exit_code] { *exit_code = RunList(*a, *json, *brain_dir); });

  auto* del = app.add_subcommand("delete", "Delete a page and its Markdown file");
  del->add_option("SLUG", a->slug, "Page slug")->required();
  del->callback([a, json, brain_dir, exit_code] { *exit_code = RunDelete(*a, *json, *brain_dir); });
}

}  // namespace engram::cli
