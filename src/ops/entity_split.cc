// `entity split`: one page that holds two entities becomes two, in the
// Markdown — see PageModule::SplitEntity. The inverse of `entity merge`
// (entity_merge.cc) when the page named is a redirect that merge left.
#include <nlohmann/json.hpp>
#include <set>

#include "common/files.h"
#include "graph/entities.h"
#include "ops/git_writes.h"
#include "ops/page_module.h"
#include "ops/page_names.h"
#include "text/page_edit.h"
#include "text/page_parser.h"
#include "text/slug.h"

namespace engram::ops {

namespace {

using Json = nlohmann::json;

// A YAML double-quoted scalar: JSON's string escapes are YAML's.
std::string Quoted(const std::string& s) { return Json(s).dump(); }

// What the split has decided before it writes anything.
struct SplitPlan {
  StoredPage from;                 // the page that keeps its slug and loses names and sections
  std::string into;                // the page made, or the redirect restored
  std::optional<StoredPage> stub;  // the redirect, when a merge is undone
  std::string title, type;
  std::vector<std::string> names;               // moved to `into` (the restored title among them)
  std::function<bool(std::string_view)> picks;  // the sections moved
  std::set<std::string> headings_found;
};


Json SplitReportJson(const SplitReport& r) {
  return {{"from", r.from},
          {"into", r.into},
          {"restored", r.restored},
          {"names_moved", r.names_moved},
          {"sections_moved", r.sections_moved},
          {"pages_rewritten", r.pages_rewritten},
          {"links_rewritten", r.links_rewritten}};
}

SplitReport SplitReportOf(const std::string& json) {
  const Json j = Json::parse(json, nullptr, false);
  SplitReport r;
  if (!j.is_object()) return r;
  r.from = j.value("from", "");
  r.into = j.value("into", "");
  r.restored = j.value("restored", false);
  r.names_moved = j.value("names_moved", std::vector<std::string>());
  r.sections_moved = j.value("sections_moved", size_t{0});
  r.pages_rewritten = j.value("pages_rewritten", std::vector<std::string>());
  r.links_rewritten = j.value("links_rewritten", size_t{0});
  return r;
}

}  // namespace

Result<SplitReport> PageModule::SplitEntity(const OperationContext& ctx, const SplitRequest& request) {
  ENGRAM_ASSIGN_OR_RETURN(auto held, LockForPageWrite("split " + request.page));
  const Json args = {{"page", request.page},     {"into", request.into},         {"names", request.names},
                     {"sections", request.sections}, {"title", request.title}, {"publish", request.publish}};
  // Run again after it was interrupted: taking the lock finished it, and its report is the answer.
  for (const JournalEntry& e : held->finished) {
    if (e.operation == "split" && Json::parse(e.args, nullptr, false) == args) return SplitReportOf(e.report);
  }
  const ReadScope scope = ReadScopeOf(ctx);
  const ReadScope all = ReadScope::All(scope.source);
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, ResolvePage(brain_.engine(), scope, request.page));
  SplitPlan plan;  // the section picker records in it what it found; it outlives every use
  if (page.type == "redirect") {
    // Undo a merge: the redirect gets back its names and the section merge wrote.
    const std::vector<std::string> into = text::FrontmatterStrings(page.frontmatter_json, {"merged_into"});
    const std::string merged_into = into.empty() ? "" : into.front();
    if (merged_into.empty()) {
      return Status::InvalidArgument(page.slug + " is a redirect that `entity merge` did not write (no merged_into)");
    }
    if (!request.into.empty() && request.into != page.slug) {
      return Status::InvalidArgument(page.slug + " is a merged page: splitting it restores it; give no new slug");
    }
    ENGRAM_ASSIGN_OR_RETURN(plan.from, brain_.engine().GetPage(all, merged_into));
    plan.into = page.slug;
    plan.stub = page;
    plan.title = page.title;
    const std::vector<std::string> types = text::FrontmatterStrings(page.frontmatter_json, {"merged_type"});
    plan.type = types.empty() ? plan.from.type : types.front();
    plan.names = request.names;
    if (plan.names.empty()) {
      plan.names = {page.title};
      for (const std::string& n : text::FrontmatterStrings(page.frontmatter_json, {"merged_names"})) {
        plan.names.push_back(n);
      }
    }
    const std::string prefix = "Merged from " + page.title + " (";
    plan.picks = [found = &plan.headings_found, prefix, wanted = request.sections](std::string_view heading) {
      bool pick = heading.substr(0, prefix.size()) == prefix;
      for (const std::string& w : wanted) pick = pick || common::ToLower(heading) == common::ToLower(w);
      if (pick) found->insert(std::string(heading));
      return pick;
    };
  } else {
    if (request.into.empty()) {
      return Status::InvalidArgument("entity split " + page.slug +
                                     " needs the new page's slug (only a merged page is restored without one)");
    }
    if (request.names.empty() && request.sections.empty()) {
      return Status::InvalidArgument("entity split: name what moves to " + request.into +
                                     ": at least one alias (--name) or section (--section)");
    }
    if (brain_.engine().GetPage(all, request.into).ok()) {
      return Status::InvalidArgument(request.into + " already exists: a split makes a new page");
    }
    plan.from = page;
    plan.into = request.into;
    plan.names = request.names;
    plan.title = !request.title.empty() ? request.title : !request.names.empty() ? request.names.front() : "";
    if (plan.title.empty()) return Status::InvalidArgument("entity split: give the new page a --title or a --name");
    plan.type = page.type;
    plan.picks = [found = &plan.headings_found, wanted = request.sections](std::string_view heading) {
      for (const std::string& w : wanted) {
        if (common::ToLower(heading) == common::ToLower(common::TrimSpace(w))) {
          found->insert(common::ToLower(heading));
          return true;
        }
      }
      return false;
    };
  }
  if (plan.from.id == page.id && plan.stub) {
    return Status::InvalidArgument(page.slug + " names itself as merged_into");
  }
  if (plan.from.is_private && !page.is_private && plan.stub && !request.publish) {
    return Status::InvalidArgument("restoring public " + page.slug + " from private " + plan.from.slug +
                                      " would show remote callers the sections and names it takes back from it; "
                                      "pass --publish (publish: true) to restore it anyway");
  }
  if (plan.title.find('\n') != std::string::npos || plan.title.size() > 200) {
    return Status::InvalidArgument("entity split: a title is one line of at most 200 bytes");
  }
  // 1. Cut what moves out of `from` (the checks run before anything is written).
  const std::vector<std::string> from_aliases = text::FrontmatterStrings(plan.from.frontmatter_json, {"aliases"});
  std::vector<std::string> remove;
  for (const std::string& n : plan.names) {
    const bool alias = std::any_of(from_aliases.begin(), from_aliases.end(),
                                   [&](const std::string& a) { return common::ToLower(a) == common::ToLower(n); });
    // A merge that is undone takes back the names it added; a split moves only aliases the page has.
    if (alias) {
      remove.push_back(n);
    } else if (!plan.stub) {
      return Status::InvalidArgument(
          "'" + n + "' is not an alias of " + plan.from.slug +
          (common::ToLower(n) == common::ToLower(plan.from.title) ? " (it is its title)" : ""));
    }
  }
  ENGRAM_ASSIGN_OR_RETURN(std::string cut, text::RemoveAliases(plan.from.path, plan.from.content, remove));
  ENGRAM_ASSIGN_OR_RETURN(auto taken, text::TakeSections(plan.from.path, cut, plan.picks));
  if (!plan.stub) {
    for (const std::string& w : request.sections) {
      if (!plan.headings_found.count(common::ToLower(common::TrimSpace(w)))) {
        return Status::InvalidArgument(plan.from.slug + " has no section '" + w + "'");
      }
    }
  }
  SplitReport report{
      plan.from.slug, plan.into, plan.stub.has_value(), remove, plan.headings_found.size(), {}, 0, {}};
  // 2. The page made (or restored): its title, type, the names moved and the sections.
  const std::string date = common::NowIso8601().substr(0, 10);
  std::string aliases;
  for (const std::string& n : plan.names) {
    if (common::ToLower(n) == common::ToLower(plan.title)) continue;
    aliases += (aliases.empty() ? "" : ", ") + Quoted(n);
  }
  const bool is_private = plan.stub ? plan.stub->is_private : plan.from.is_private;
  std::string body = taken.second;
  if (plan.stub && body.rfind("## Merged from ", 0) == 0) {  // the heading merge wrote goes
    const size_t nl = body.find('\n');
    body = nl == std::string::npos ? "" : body.substr(nl + 1);
    while (!body.empty() && body.front() == '\n') body.erase(0, 1);
  }
  std::string content =
      "---\ntitle: " + Quoted(plan.title) + "\n" + (plan.type.empty() ? "" : "type: " + Quoted(plan.type) + "\n") +
      (aliases.empty() ? "" : "aliases: [" + aliases + "]\n") + (is_private ? "visibility: private\n" : "") + "---\n\n";
  if (!plan.stub) content += "Split from [[" + plan.from.slug + "]] on " + date + ".\n\n";
  content += body;
  WritePlan writes;
  if (plan.stub) {
    ENGRAM_RETURN_IF_ERROR(PlanEdit(ctx, *held, &writes, plan.into, [&](const StoredPage&) -> Result<std::string> {
                             return content;
                           }).status());
  } else {
    ENGRAM_ASSIGN_OR_RETURN(PlannedFile made, PlanPut(ctx, *held, plan.into, content));
    writes.by_path.emplace(made.path, 0);
    writes.files.push_back(std::move(made));
  }
  ENGRAM_RETURN_IF_ERROR(
      PlanEdit(ctx, *held, &writes, plan.from.slug, [&](const StoredPage& p) -> Result<std::string> {
        ENGRAM_ASSIGN_OR_RETURN(std::string out, text::RemoveAliases(p.path, p.content, remove));
        ENGRAM_ASSIGN_OR_RETURN(auto t, text::TakeSections(p.path, out, plan.picks));
        return t.first;
      }).status());
  // 3. Links to `from` shown as a moved name (or, for a restored page, as its
  //    slug, path or file name, which merge kept as the shown text) now reach `into`.
  ENGRAM_ASSIGN_OR_RETURN(std::vector<PageNames> pages, brain_.engine().AllPageNames(all));
  PageNames into_names;
  if (plan.stub) {
    into_names = {plan.stub->slug, plan.stub->path, plan.title, {}, is_private, plan.type, plan.stub->id};
  } else {  // the page made is not indexed yet: its names as it will be, among the pages links resolve to
    const std::string path = writes.files.front().path;
    into_names = {text::SlugFromPath(path), path, plan.title, {}, is_private, plan.type, PageId()};
    pages.push_back(into_names);
  }
  std::set<std::string> shown;
  for (const std::string& n : plan.names) shown.insert(graph::FoldName(n));
  shown.insert(graph::FoldName(plan.title));
  if (plan.stub) {
    shown.insert(graph::FoldName(into_names.slug));
    std::string path = into_names.path;
    if (path.size() > 3 && path.substr(path.size() - 3) == ".md") path.resize(path.size() - 3);
    shown.insert(graph::FoldName(path));
    shown.insert(graph::FoldName(path.substr(path.rfind('/') + 1)));  // rfind npos + 1 == 0: the whole path
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<LinkRecord> inbound, brain_.engine().Backlinks(all, plan.from.slug));
  std::set<std::string> linking;
  for (const LinkRecord& l : inbound) {
    // `from` itself too: a merge made its links to the merged page links to itself.
    if (l.from_slug != into_names.slug) linking.insert(l.from_slug);
  }
  ENGRAM_ASSIGN_OR_RETURN(report.links_rewritten,
                          PlanRetargetLinks(ctx, *held, &writes, linking, plan.from.slug, into_names, pages,
                                            [&](const std::string& label) { return shown.count(graph::FoldName(label)) > 0; }));
  for (const PlannedFile& f : writes.files) report.pages_rewritten.push_back(text::SlugFromPath(f.path));
  ENGRAM_ASSIGN_OR_RETURN(std::vector<PutReport> written,
                          RunPlanned(ctx, *held, "split", args, SplitReportJson(report), writes.files));
  for (const PutReport& r : written) {
    if (!r.commit.empty()) report.commits.push_back(r.commit);
  }
  return report;
}

}  // namespace engram::ops
