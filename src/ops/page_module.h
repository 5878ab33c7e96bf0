// The page module: reading, writing and editing the brain's pages. A write
// puts the Markdown file first (the truth), then the page's rows; on a git
// brain it commits the file with them (ops/git_writes.h). Remote callers are
// held to the trust boundary here: no private page, no link, no file that is
// not a page, no name variant (ops/trust.h).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engram/brain.h"

namespace engram::ops {

struct PageWriteLock;
class GitWrites;

// One file of a write planned whole before its first byte is written: the
// bytes it holds now and the bytes it will hold.
struct PlannedFile {
  std::string path;                   // relative to the pages' folder
  std::optional<std::string> before;  // nullopt: no file there yet
  std::string after;
};

// A multi-file write being planned (merge, split): each file once, in the
// order it was first changed, with what every edit so far made of it.
struct WritePlan {
  std::vector<PlannedFile> files;
  std::map<std::string, size_t, std::less<>> by_path;
};

// What `entity merge` did: the pages it rewrote (each write its own commit
// on a git brain), the links it pointed at the kept page, the names that
// became its aliases.
struct MergeReport {
  std::string from;                        // the merged page, now a redirect
  std::string into;                        // the page kept
  std::vector<std::string> pages_rewritten;
  size_t links_rewritten = 0;
  std::vector<std::string> aliases_added;
  std::vector<std::string> commits;
};

// `entity split`: what moves from one page to a new one, or the merged page
// (a redirect) to restore.
struct SplitRequest {
  std::string page;                   // the page split (slug, path, title or alias), or a redirect merge left
  std::string into;                   // the new page's slug; "" when `page` is a redirect (it is restored)
  std::vector<std::string> names;     // aliases of `page` that name the other entity
  std::vector<std::string> sections;  // headings (## …) of `page` whose sections are about it
  std::string title;                  // the new page's title ("" = the first name)
  bool publish = false;               // text of a private page may move to a public one
};

struct SplitReport {
  std::string from;                   // the page that keeps its slug
  std::string into;                   // the page made or restored
  bool restored = false;              // a merge was undone
  std::vector<std::string> names_moved;
  size_t sections_moved = 0;
  std::vector<std::string> pages_rewritten;
  size_t links_rewritten = 0;
  std::vector<std::string> commits;
};

// `facts SLUG --suggest`: one relation the model read, and what became of it.
struct FactSuggestion {
  std::string subject;     // as the model named it
  std::string predicate;
  std::string object;
  std::string value;       // as it would be written: "[[companies/x]]" or text
  int line = 0;            // the line of the file that states it
  double confidence = 0;   // the model's
  std::string verdict;     // "written", "suggested", or why it was left out
};

struct SuggestReport {
  std::string slug;
  std::string model;
  std::vector<FactSuggestion> suggestions;
  std::vector<std::string> dropped;  // items of the reply that were no relation, with the reason
  std::string commit;                // on a git brain, when lines were written
};

class PageModule final : public BrainModule {
 public:
  explicit PageModule(Brain& brain) : brain_(brain) {}

  // Writes <source root>/<slug>.md and indexes it.
  Result<PutReport> Put(const OperationContext& ctx, std::string_view slug, std::string_view content);
  // NotFound for a local caller naming a file that is not a page says why
  // (failed, quarantined: rule and line, out of scope) and how to index it.
  Result<StoredPage> Get(const OperationContext& ctx, std::string_view slug);
  Result<std::vector<PageSummary>> List(const OperationContext& ctx, ListFilter filter);
  // Removes the page and its Markdown file.
  Status Delete(const OperationContext& ctx, std::string_view slug);
  // Pages linking to slug (for remote callers, none from private pages).
  Result<std::vector<LinkRecord>> Backlinks(const OperationContext& ctx, std::string_view slug);
  Result<std::vector<TimelineEntry>> Timeline(const OperationContext& ctx, std::string_view slug);
  Result<std::vector<std::string>> Tags(const OperationContext& ctx, std::string_view slug);
  // Edits of a page's Markdown (text/page_edit.h), written and indexed like
  // Put, under the write lock for the whole read-modify-write.
  Result<PutReport> AddTag(const OperationContext& ctx, std::string_view slug, std::string_view tag);
  Result<PutReport> AddTimelineEntry(const OperationContext& ctx, std::string_view slug, std::string_view date,
                                     std::string_view summary, std::string_view source);
  Result<PutReport> AddLink(const OperationContext& ctx, std::string_view slug, std::string_view target,
                            std::string_view type);
  Result<PutReport> AddFact(const OperationContext& ctx, std::string_view slug, std::string_view predicate,
                            std::string_view value, std::string_view valid_from, std::string_view valid_until);
  // Merges the entity `from` into `into` (ops/entity_merge.cc): into gets
  // from's names as aliases, its text as a section, its timeline and its
  // frontmatter facts as fact lines; every link to from is rewritten to
  // into; from becomes a redirect page naming into, so links written
  // elsewhere later still arrive. Refused: a page into itself, a public page
  // into a private one, a redirect either way, and — unless publish — a
  // private page into a public one (its text, facts and names would be read
  // by remote callers; the refusal says what would be exposed). Every file
  // is planned before the first is written, and the write is journaled: a
  // merge killed halfway is finished by running it again (or by the next
  // write, or `engram check --repair`), byte for byte as if uninterrupted.
  Result<MergeReport> MergeEntity(const OperationContext& ctx, std::string_view from, std::string_view into,
                                  bool publish = false);
  // Splits a page about two entities (ops/entity_split.cc): a new page gets
  // the aliases and sections named, and the links to the page shown as one
  // of those names. Named a redirect that `merge` left, it undoes the merge:
  // the redirect gets back its title, its names and the section merge
  // appended, and the links shown as its names or slug reach it again.
  // Refused, unless request.publish, when text of a private page would move
  // to a page remote callers read. Planned and journaled as a merge.
  Result<SplitReport> SplitEntity(const OperationContext& ctx, const SplitRequest& request);

  // Finishes the interrupted writes of this brain (the open write journals
  // it owns: a process killed mid-write), under the write lock: each file not
  // done is brought to its planned bytes, committed on a git brain and
  // indexed. A file changed since by someone else is left as it is and named
  // in the error (the journal stays open) unless discard_conflicts, which
  // keeps the person's version of such files, finishes the others and closes
  // the journal. Returns the journals finished. Every page write runs it
  // first (without discard_conflicts).
  Result<std::vector<JournalEntry>> FinishInterruptedWrites(const OperationContext& ctx, bool discard_conflicts);
  // The optional LLM relation extractor (ops/fact_suggest.cc): asks [llm]'s
  // model for the relations the page states, keeps those about the page whose
  // object resolves (or is a text value where one is read) and that nothing
  // the page already says contradicts, and with `write` appends each as a
  // fact line marked "<!-- llm MODEL CONFIDENCE line N -->" (one commit).
  // FailedPrecondition without llm.model.
  Result<SuggestReport> SuggestFacts(const OperationContext& ctx, std::string_view slug, bool write,
                                     double min_confidence);

 private:
  // Put with the page-write lock already held; operation names the write
  // in its commit ("put", "tag", ...). Planned (PlanPut), then run journaled.
  Result<PutReport> PutLocked(const OperationContext& ctx, PageWriteLock& held, std::string_view operation,
                              std::string_view slug, std::string_view content);
  // Everything that can refuse writing content to slug's file, decided
  // before a byte is written (the name, the content and its secrets, a
  // remote caller's trust boundary, uncommitted work on a git brain, a file
  // changed on disk since it was indexed): the file as planned.
  Result<PlannedFile> PlanPut(const OperationContext& ctx, PageWriteLock& held, std::string_view slug,
                              std::string_view content);
  // Adds to plan the edit of the page named slug (as Get resolves it),
  // applied to the page as the plan has made it so far; false when the edit
  // changes nothing.
  Result<bool> PlanEdit(const OperationContext& ctx, PageWriteLock& held, WritePlan* plan, std::string_view slug,
                        const std::function<Result<std::string>(const StoredPage&)>& edit);
  // Runs a planned write: recorded whole in the write journal (operation,
  // args and the report a re-run gives back), then each file written,
  // committed on a git brain and indexed, then the journal closed. The
  // reports of the files, in plan order.
  Result<std::vector<PutReport>> RunPlanned(const OperationContext& ctx, PageWriteLock& held, std::string_view operation,
                                            const nlohmann::json& args, const nlohmann::json& report,
                                            const std::vector<PlannedFile>& files);
  // Brings one journaled file to its planned bytes: whatever of writing,
  // committing and indexing is not done yet (a resumed write finds the file
  // already written, or committed). FailedPrecondition when the file holds
  // neither its planned nor its earlier bytes (someone changed it).
  Result<PutReport> ApplyFile(const OperationContext& ctx, PageWriteLock& held, std::string_view operation,
                              const JournalFile& file);
  // Who owns a journal: this brain's folder on this host.
  std::string JournalOwner() const;
  // Finishes this brain's open journals under held (FinishInterruptedWrites),
  // recording them in held.finished. A file changed since by someone else
  // stops it with an error, unless discard_conflicts: then that file is left
  // as it is (and the ingest log says so) and the rest are finished.
  Status FinishJournals(const OperationContext& ctx, PageWriteLock& held, bool discard_conflicts);
  // Delete on a git brain: the file's removal is committed with the page's.
  Status DeleteCommitted(const OperationContext& ctx, GitWrites& git, common::RootedDir& dir, const StoredPage& page);
  // Reads the page, applies edit to its content, writes it back when it changed (journaled, as every write).
  Result<PutReport> EditPage(const OperationContext& ctx, std::string_view slug, std::string_view what,
                             const std::function<Result<std::string>(const StoredPage&)>& edit);
  // Merge and split (ops/entity_merge.cc): plans, in each page of
  // `linking`, that the links that reach `from` and whose shown text `pick`
  // accepts point at `to`, written as VaultLinkText gives it from that page
  // (`pages`: every page of the source); a public page never gets a link to
  // a private one. Returns the number of links rewritten.
  Result<size_t> PlanRetargetLinks(const OperationContext& ctx, PageWriteLock& held, WritePlan* plan,
                                   const std::set<std::string>& linking, const std::string& from, const PageNames& to,
                                   const std::vector<PageNames>& pages,
                                   const std::function<bool(const std::string&)>& pick);
  // Why the file a local caller named is not a page (failed, quarantined
  // with rule and line, out of scope) and how to index it; "" when no such file.
  std::string WhyNotAPage(std::string_view slug);
  // The lock of a put, delete or page edit. On a git brain the database
  // first catches up with HEAD, and the lock carries what commits the write.
  // Interrupted writes of this brain are finished before it is returned.
  Result<std::unique_ptr<PageWriteLock>> LockForPageWrite(std::string_view what);
  // The lock alone, interrupted writes left as they are.
  Result<std::unique_ptr<PageWriteLock>> TakePageWriteLock(std::string_view what);

  Brain& brain_;
};

}  // namespace engram::ops
