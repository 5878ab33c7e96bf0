// `entity merge`: two pages about one entity become one, in the Markdown
// (the truth) — see PageModule::MergeEntity. Every change is a page write
// through the trust boundary and, on a git brain, its own commit.
#include <nlohmann/json.hpp>
#include <set>

#include "common/files.h"
#include "common/utf8.h"
#include "ops/git_writes.h"
#include "ops/page_module.h"
#include "ops/page_names.h"
#include "text/page_edit.h"
#include "text/page_parser.h"
#include "text/slug.h"

namespace engram::ops {

namespace {

using Json = nlohmann::json;

// Frontmatter fields that describe the note, not the entity: not moved.
bool NoteField(const std::string& key) {
  static const std::set<std::string> kNote = {"title", "type",    "aliases",     "alias",     "tags",   "tag",
                                              "slug",  "visibility", "date",     "created",   "updated", "cssclasses",
                                              "cssclass", "publish", "redirect", "merged_into", "merged_at",
                                              "merged_type", "merged_names"};
  return kNote.count(key) > 0;
}

// What `from` says, as a section of `into`: its compiled truth (its own H1
// dropped) and its frontmatter as fact lines.
std::string MergedSection(const StoredPage& from, const std::string& date) {
  std::string body(from.compiled_truth);
  if (body.rfind("# ", 0) == 0) {
    const size_t nl = body.find('\n');
    body = nl == std::string::npos ? "" : body.substr(nl + 1);
  }
  std::string facts;
  Json fm = Json::parse(from.frontmatter_json, nullptr, false);
  if (fm.is_object()) {
    for (const auto& [key, value] : fm.items()) {
      if (NoteField(key)) continue;
      auto line = [&](const Json& v) {
        if (v.is_string() && v.get<std::string>().find('\n') == std::string::npos) {
          facts += "- fact: " + key + ": " + v.get<std::string>() + "\n";
        } else if (v.is_number() || v.is_boolean()) {
          facts += "- fact: " + key + ": " + v.dump() + "\n";
        }
      };
      if (value.is_array()) {
        for (const Json& v : value) line(v);
      } else {
        line(value);
      }
    }
  }
  std::string out = "## Merged from " + from.title + " (" + date + ")\n\n";
  if (!facts.empty()) out += facts + "\n";
  out += body;
  return out;
}

}  // namespace

namespace {

Json MergeReportJson(const MergeReport& r) {
  return {{"from", r.from},
          {"into", r.into},
          {"pages_rewritten", r.pages_rewritten},
          {"links_rewritten", r.links_rewritten},
          {"aliases_added", r.aliases_added}};
}

MergeReport MergeReportOf(const std::string& json) {
  const Json j = Json::parse(json, nullptr, false);
  MergeReport r;
  if (!j.is_object()) return r;
  r.from = j.value("from", "");
  r.into = j.value("into", "");
  r.pages_rewritten = j.value("pages_rewritten", std::vector<std::string>());
  r.links_rewritten = j.value("links_rewritten", size_t{0});
  r.aliases_added = j.value("aliases_added", std::vector<std::string>());
  return r;
}

// What a merge of private `from` into public `into` would show remote
// callers; "" when it shows nothing.
std::string WhatWouldBePublished(const StoredPage& from, const Page& parsed, const std::vector<std::string>& names) {
  std::vector<std::string> parts;
  size_t lines = 0;
  for (char c : from.compiled_truth) lines += c == '\n' ? 1 : 0;
  if (!common::TrimSpace(from.compiled_truth).empty()) parts.push_back("its text (" + std::to_string(lines) + " lines)");
  std::string keys;
  Json fm = Json::parse(from.frontmatter_json, nullptr, false);
  if (fm.is_object()) {
    for (const auto& [key, value] : fm.items()) {
      if (!NoteField(key)) keys += (keys.empty() ? "" : ", ") + key;
    }
  }
  if (!keys.empty()) parts.push_back("its properties as facts (" + keys + ")");
  std::string shown;
  for (const std::string& n : names) shown += (shown.empty() ? "" : ", ") + n;
  if (!shown.empty()) parts.push_back("its names as aliases (" + shown + ")");
  if (!parsed.timeline_entries.empty()) {
    parts.push_back("its timeline (" + std::to_string(parsed.timeline_entries.size()) + " entries)");
  }
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return out;
}

}  // namespace

Result<MergeReport> PageModule::MergeEntity(const OperationContext& ctx, std::string_view from_name,
                                            std::string_view into_name, bool publish) {
  ENGRAM_ASSIGN_OR_RETURN(auto held, LockForPageWrite("merge " + std::string(from_name)));
  const Json args = {{"from", std::string(from_name)}, {"into", std::string(into_name)}, {"publish", publish}};
  // Run again after it was interrupted: taking the lock finished it, and its report is the answer.
  for (const JournalEntry& e : held->finished) {
    if (e.operation == "merge" && Json::parse(e.args, nullptr, false) == args) return MergeReportOf(e.report);
  }
  const ReadScope scope = ReadScopeOf(ctx);
  ENGRAM_ASSIGN_OR_RETURN(StoredPage from, ResolvePage(brain_.engine(), scope, from_name));
  ENGRAM_ASSIGN_OR_RETURN(StoredPage into, ResolvePage(brain_.engine(), scope, into_name));
  if (from.id == into.id) return Status::InvalidArgument("cannot merge " + from.slug + " into itself");
  if (from.type == "redirect") return Status::InvalidArgument(from.slug + " is already merged (a redirect page)");
  if (into.type == "redirect") {
    return Status::InvalidArgument(into.slug + " is a redirect page; merge into the page it names");
  }
  if (into.is_private && !from.is_private) {
    return Status::InvalidArgument("cannot merge public " + from.slug + " into private " + into.slug +
                                   ": links on public pages would lead to a page their readers cannot see");
  }
  const std::string date = common::NowIso8601().substr(0, 10);
  MergeReport report{from.slug, into.slug, {}, 0, {}, {}};
  // Who links to `from`, before anything changes: every page, private ones too (their links must keep working).
  const ReadScope all = ReadScope::All(scope.source);
  ENGRAM_ASSIGN_OR_RETURN(std::vector<LinkRecord> inbound, brain_.engine().Backlinks(all, from.slug));
  std::set<std::string> linking;
  for (const LinkRecord& l : inbound) {
    if (l.from_slug != from.slug) linking.insert(l.from_slug);
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<PageNames> pages, brain_.engine().AllPageNames(all));
  const PageNames into_names{into.slug, into.path, into.title, {}, into.is_private, into.type, into.id};
  // 1. The page kept: from's names, text, facts and timeline.
  // The names people gave it: its title and the aliases its frontmatter writes.
  std::vector<std::string> names = {from.title};
  for (std::string& a : text::FrontmatterStrings(from.frontmatter_json, {"aliases", "alias"})) {
    names.push_back(std::move(a));
  }
  ENGRAM_ASSIGN_OR_RETURN(Page from_page, text::ParsePage(from.path, from.content));
  if (from.is_private && !into.is_private && !publish) {
    const std::string exposed = WhatWouldBePublished(from, from_page, names);
    return Status::InvalidArgument(
        "merging private " + from.slug + " into public " + into.slug + " would show remote callers " +
        (exposed.empty() ? std::string("that it exists") : exposed) +
        "; pass --publish (publish: true) to merge it anyway, or make " + into.slug + " private first");
  }
  WritePlan plan;
  ENGRAM_RETURN_IF_ERROR(
      PlanEdit(ctx, *held, &plan, into.slug, [&](const StoredPage& p) -> Result<std::string> {
        ENGRAM_ASSIGN_OR_RETURN(Page before, text::ParsePage(p.path, p.content));
        ENGRAM_ASSIGN_OR_RETURN(std::string out, text::AddAliases(p.path, p.content, names));
        ENGRAM_ASSIGN_OR_RETURN(Page after, text::ParsePage(p.path, out));
        for (const std::string& a : after.aliases) {
          if (std::find(before.aliases.begin(), before.aliases.end(), a) == before.aliases.end()) {
            report.aliases_added.push_back(a);
          }
        }
        ENGRAM_ASSIGN_OR_RETURN(out, text::AppendSection(p.path, out, MergedSection(from, date)));
        for (const TimelineEntry& e : from_page.timeline_entries) {
          const bool known = std::any_of(after.timeline_entries.begin(), after.timeline_entries.end(),
                                         [&](const TimelineEntry& t) { return t.date == e.date && t.summary == e.summary; });
          if (known) continue;
          ENGRAM_ASSIGN_OR_RETURN(out, text::AddTimelineEntry(p.path, out, e.date, e.summary, e.source));
        }
        return out;
      }).status());
  // 2. Every link to `from`, in the pages that have one, now names `into`.
  ENGRAM_ASSIGN_OR_RETURN(report.links_rewritten,
                          PlanRetargetLinks(ctx, *held, &plan, linking, from.slug, into_names, pages,
                                            [](const std::string&) { return true; }));
  // 3. `from` becomes a redirect: its file stays, so a link to its name still arrives.
  ENGRAM_RETURN_IF_ERROR(
      PlanEdit(ctx, *held, &plan, from.slug, [&](const StoredPage& p) -> Result<std::string> {
        const std::string to = VaultLinkText(pages, into_names, p.path);
        std::string title = from.title;
        for (char& c : title) {
          if (c == '"' || c == '\n' || c == '\\') c = ' ';
        }
        // What `entity split` needs to undo the merge: the names and the type the page had.
        std::string merged_names;
        for (size_t i = 1; i < names.size(); ++i) merged_names += (i > 1 ? ", " : "") + Json(names[i]).dump();
        return "---\ntitle: \"" + title + "\"\ntype: redirect\nredirect: \"[[" + to + "]]\"\nmerged_into: " +
               into.slug + "\nmerged_at: " + date + "\nmerged_type: " + Json(from.type).dump() +
               "\nmerged_names: [" + merged_names + "]" + (from.is_private ? "\nvisibility: private" : "") +
               "\n---\n\nMerged into [[" + to + "]] on " + date +
               ": what this page said is there now, and its names are aliases of it. `engram entity split " +
               from.slug + "` undoes it.\n";
      }).status());
  for (const PlannedFile& f : plan.files) report.pages_rewritten.push_back(text::SlugFromPath(f.path));
  ENGRAM_ASSIGN_OR_RETURN(std::vector<PutReport> written,
                          RunPlanned(ctx, *held, "merge", args, MergeReportJson(report), plan.files));
  for (const PutReport& r : written) {
    if (!r.commit.empty()) report.commits.push_back(r.commit);
  }
  return report;
}

Result<size_t> PageModule::PlanRetargetLinks(const OperationContext& ctx, PageWriteLock& held, WritePlan* plan,
                                             const std::set<std::string>& linking, const std::string& from,
                                             const PageNames& to, const std::vector<PageNames>& pages,
                                             const std::function<bool(const std::string&)>& pick) {
  const ReadScope all = ReadScope::All(ReadScopeOf(ctx).source);
  size_t rewritten = 0;
  for (const std::string& slug : linking) {
    auto page = brain_.engine().GetPage(all, slug);
    if (!page.ok()) continue;
    if (!page->is_private && to.is_private) continue;  // a public page keeps no link to a private one
    // The targets, as this page writes them, that reach `from`.
    ENGRAM_ASSIGN_OR_RETURN(std::vector<ResolvedLink> links, brain_.engine().ResolvedLinks(all, page->id));
    std::set<std::string> targets;
    for (const ResolvedLink& l : links) {
      if (l.to_slug == from) targets.insert(l.target);
    }
    size_t n = 0;
    ENGRAM_RETURN_IF_ERROR(PlanEdit(ctx, held, plan, slug, [&](const StoredPage& p) -> Result<std::string> {
                             n = 0;
                             return text::RewriteLinks(
                                 p.path, p.content,
                                 [&](const std::string& target, const std::string& shown) {
                                   return targets.count(target) > 0 && pick(shown);
                                 },
                                 VaultLinkText(pages, to, p.path), &n);
                           }).status());
    rewritten += n;
  }
  return rewritten;
}

}  // namespace engram::ops
