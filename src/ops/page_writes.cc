// Page writes (ops/page_module.h): every write of a page's file — a put, an
// edit, the many files of a merge or a split — is planned whole before its
// first byte is written (every refusal happens then), recorded in the write
// journal (engram/store/journal_store.h) with each file's bytes before and
// after, then carried out file by file: the Markdown first (the truth), then
// the commit on a git brain, then the index. A process killed anywhere in
// between leaves an open journal that says what it was doing; the next write,
// a re-run of the same command or `engram check --repair` finishes it, so the
// files end byte for byte as an uninterrupted write leaves them, and a file
// engram itself half-wrote is never blamed on the user.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "common/crash_point.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/rooted_dir.h"
#include "common/utf8.h"
#include "ops/embedding_module.h"
#include "ops/git_writes.h"
#include "ops/index_format.h"
#include "ops/page_module.h"
#include "ops/page_names.h"
#include "ops/trust.h"
#include "sync/page_indexer.h"
#include "sync/sensitive.h"
#include "sync/write_lock.h"
#include "text/canvas.h"
#include "text/slug.h"

namespace engram::ops {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

// Everything about the name and the content that can refuse a put, decided
// before a byte is written: the page it would be, and its file (*rel).
Result<PageWrite> PreparePut(Engine& engine, const BrainOptions& options, std::string_view slug,
                             std::string_view content, std::string* rel) {
  ENGRAM_RETURN_IF_ERROR(text::ValidateSlugInput(slug));
  if (text::IsCanvasPath(slug)) {  // a canvas is JSON, written by Obsidian; put writes Markdown
    std::string why = "'";
    why.append(slug).append(
        "' is a canvas (JSON Canvas): pages written through put are Markdown. Edit the "
        "canvas in Obsidian; engram indexes it from the vault");
    return Status::InvalidArgument(std::move(why));
  }
  *rel = PageFileName(slug);
  if (content.size() > options.import.max_file_bytes) {
    return Status::InvalidArgument("page is " + std::to_string(content.size()) + " bytes, over import.max_file_bytes");
  }
  const std::string path_slug = text::SlugFromPath(*rel);
  bool has_word_char = false;  // in the file name: "_" or "--/__" name nothing
  const std::string_view stem = std::string_view(*rel).substr(0, rel->rfind('.'));
  for (size_t i = stem.rfind('/') == std::string_view::npos ? 0 : stem.rfind('/') + 1; i < stem.size();) {
    if (common::IsWordChar(common::DecodeUtf8(stem, &i))) has_word_char = true;
  }
  if (path_slug.empty() || !has_word_char) {
    return Status::InvalidArgument("'" + std::string(slug) + "' has no letter or digit to name a page");
  }
  std::string why;
  if (!ScopeOf(options).Contains(*rel, &why)) {
    return Status::InvalidArgument("'" + *rel + "' would not be a page (" + why + "); choose another name");
  }
  ENGRAM_ASSIGN_OR_RETURN(PageWrite write, sync::PreparePage(*rel, content, IndexingOf(options)));
  write.source = kDefaultSource;
  if (write.page.slug != path_slug) {
    // The request names the page; a frontmatter `slug:` must not redirect
    // the write to (or over) another page.
    return Status::InvalidArgument("the content's frontmatter slug '" + write.page.slug + "' differs from '" +
                                   path_slug + "', the page this request names; remove it or put to that name");
  }
  if (auto hit = sync::FindSensitive(*rel, content, SensitiveOf(options))) {
    (void)engine.AppendAudit(kDefaultSource, {common::NowIso8601(), *rel, hit->rule, hit->line});
    return Status::FailedPrecondition("refused: the page looks sensitive (rule " + hit->rule +
                                      (hit->line > 0 ? ", line " + std::to_string(hit->line) : std::string()) +
                                      "); it was not written. See `engram audit`, or allow it in config.toml");
  }
  return write;
}

// What a remote caller may not write over: a private page (answered as if
// absent), a link, a file that is not an indexed page, a name variant.
Status CheckRemotePut(Engine& engine, common::RootedDir& dir, const std::string& rel, common::RootedDir::Kind kind,
                      const Result<StoredPage>& existing, const std::string& slug) {
  if (existing.ok() && existing->is_private) return Status::NotFound("no page '" + slug + "'");
  ENGRAM_ASSIGN_OR_RETURN(std::optional<SourceFile> owner, engine.FindSourceFile(kDefaultSource, rel));
  if (owner) {
    // A file that holds a page this caller cannot see: answered as if absent.
    auto page = engine.GetPage(ReadScope::Public(kDefaultSource), owner->slug);
    if (!page.ok() && page.status().code() == StatusCode::kNotFound) return Status::NotFound("no page '" + slug + "'");
  }
  if (kind == common::RootedDir::Kind::kLink) {
    return Status::PermissionDenied("'" + rel + "' is a symbolic link; remote callers cannot write through links");
  }
  if (kind != common::RootedDir::Kind::kMissing && !existing.ok()) {
    return Status::PermissionDenied("'" + rel +
                                    "' exists but is not an indexed page (quarantined, skipped or "
                                    "unreadable); remote callers cannot overwrite it");
  }
  ENGRAM_ASSIGN_OR_RETURN(std::string variant, dir.FindNameVariant(rel));
  if (!variant.empty()) {
    return Status::AlreadyExists("'" + rel + "' differs only in case or Unicode form from the existing '" + variant +
                                 "'; use that name");
  }
  return Status::Ok();
}

}  // namespace


Result<PlannedFile> PageModule::PlanPut(const OperationContext& ctx, PageWriteLock& held, std::string_view slug,
                                        std::string_view content) {
  std::string rel;
  ENGRAM_ASSIGN_OR_RETURN(PageWrite write, PreparePut(brain_.engine(), brain_.options(), slug, content, &rel));
  auto existing = brain_.engine().GetPage(kDefaultSource, write.page.slug);
  if (existing.ok() && existing->path != rel) {
    return Status::AlreadyExists("page '" + write.page.slug + "' is the file '" + existing->path +
                                 "'; put to that name to change it");
  }
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<common::RootedDir> dir, brain_.Files(ctx));
  ENGRAM_ASSIGN_OR_RETURN(common::RootedDir::Kind kind, dir->Stat(rel));
  if (ctx.remote) ENGRAM_RETURN_IF_ERROR(CheckRemotePut(brain_.engine(), *dir, rel, kind, existing, write.page.slug));
  if (held.git) ENGRAM_RETURN_IF_ERROR(held.git->CheckWritable(rel));
  PlannedFile planned{rel, std::nullopt, std::string(content)};
  if (kind == common::RootedDir::Kind::kFile) {
    ENGRAM_ASSIGN_OR_RETURN(std::string old, dir->ReadFile(rel, UINT64_MAX));
    planned.before = std::move(old);
  }
  return planned;
}

Result<bool> PageModule::PlanEdit(const OperationContext& ctx, PageWriteLock& held, WritePlan* plan,
                                  std::string_view slug,
                                  const std::function<Result<std::string>(const StoredPage&)>& edit) {
  ENGRAM_RETURN_IF_ERROR(ValidatePageName(slug));
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, Get(ctx, slug));
  auto at = plan->by_path.find(page.path);
  if (at != plan->by_path.end()) page.content = plan->files[at->second].after;  // as earlier edits left it
  ENGRAM_ASSIGN_OR_RETURN(std::string content, edit(page));
  if (content == page.content) return false;
  ENGRAM_ASSIGN_OR_RETURN(PlannedFile file, PlanPut(ctx, held, page.path, content));
  if (at != plan->by_path.end()) {
    plan->files[at->second].after = std::move(file.after);
    return true;
  }
  // The edit was made to the page as indexed: a file changed on disk since would lose that change.
  if (file.before && *file.before != page.content) {
    return Status::FailedPrecondition("'" + page.path + "' changed on disk since it was indexed; run `engram " +
                                      std::string(held.git ? "sync --worktree" : "import") +
                                      "` (or commit it) first, so that the edit does not overwrite it");
  }
  plan->by_path.emplace(page.path, plan->files.size());
  plan->files.push_back(std::move(file));
  return true;
}

Result<PutReport> PageModule::PutLocked(const OperationContext& ctx, PageWriteLock& held, std::string_view operation,
                                        std::string_view slug, std::string_view content) {
  ENGRAM_ASSIGN_OR_RETURN(PlannedFile file, PlanPut(ctx, held, slug, content));
  const Json args = {{"slug", std::string(slug)}};
  ENGRAM_ASSIGN_OR_RETURN(std::vector<PutReport> reports, RunPlanned(ctx, held, operation, args, Json::object(),
                                                                     {std::move(file)}));
  return std::move(reports.front());
}

std::string PageModule::JournalOwner() const {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return brain_.root().string() + "@" + host;
}

Result<std::vector<PutReport>> PageModule::RunPlanned(const OperationContext& ctx, PageWriteLock& held,
                                                      std::string_view operation, const Json& args,
                                                      const Json& report, const std::vector<PlannedFile>& files) {
  JournalEntry entry;
  entry.operation = std::string(operation);
  entry.args = args.dump(-1, ' ', false, Json::error_handler_t::replace);
  entry.report = report.dump(-1, ' ', false, Json::error_handler_t::replace);
  entry.started_at = common::NowIso8601();
  entry.owner = JournalOwner();
  for (const PlannedFile& f : files) entry.files.push_back({f.path, f.before, f.after, false});
  ENGRAM_ASSIGN_OR_RETURN(const int64_t id, brain_.engine().BeginJournal(entry));
  common::CrashPoint("write journal recorded");
  std::vector<PutReport> out;
  for (size_t i = 0; i < entry.files.size(); ++i) {
    Result<PutReport> r = ApplyFile(ctx, held, operation, entry.files[i]);
    if (!r.ok()) {
      if (out.empty()) {
        // Nothing was written: the write failed whole, and leaves nothing to finish.
        (void)brain_.engine().EndJournal(id);
        return r.status();
      }
      return r.status().WithContext(std::string(operation) + " stopped after " + std::to_string(out.size()) + " of " +
                                    std::to_string(files.size()) +
                                    " files; `engram check` names it and `engram check --repair` finishes it");
    }
    out.push_back(std::move(*r));
    ENGRAM_RETURN_IF_ERROR(brain_.engine().MarkJournalFileDone(id, i));
    common::CrashPoint("journaled file marked done");
  }
  ENGRAM_RETURN_IF_ERROR(brain_.engine().EndJournal(id));
  std::string note = std::get<2>(brain_.Module<EmbeddingModule>().EmbedInline());
  if (!note.empty() && !out.empty()) out.back().warnings.push_back(note);
  return out;
}

Result<PutReport> PageModule::ApplyFile(const OperationContext& ctx, PageWriteLock& held, std::string_view operation,
                                        const JournalFile& file) {
  if (!file.after) return Status::Internal("a journaled removal of '" + file.path + "' (none is written)");
  const std::string& after = *file.after;
  std::string rel;
  ENGRAM_ASSIGN_OR_RETURN(PageWrite write, PreparePut(brain_.engine(), brain_.options(), file.path, after, &rel));
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<common::RootedDir> dir, brain_.Files(ctx));
  ENGRAM_ASSIGN_OR_RETURN(common::RootedDir::Kind kind, dir->Stat(rel));
  std::optional<std::string> now;
  if (kind == common::RootedDir::Kind::kFile) {
    ENGRAM_ASSIGN_OR_RETURN(std::string bytes, dir->ReadFile(rel, UINT64_MAX));
    now = std::move(bytes);
  }
  auto existing = brain_.engine().GetPage(kDefaultSource, write.page.slug);
  PutReport report{write.page.slug, rel, !existing.ok(), write.page.warnings, true, ""};
  const bool written = now && *now == after;  // by this write, before it was interrupted
  if (!written && now != file.before) {
    return Status::FailedPrecondition("'" + rel + "' was changed since this " + std::string(operation) +
                                      " planned it (it holds neither its earlier nor its planned text); "
                                      "engram leaves it as it is");
  }
  int folders_created = 0;
  auto undo_file = [&] {
    if (written) return;  // the bytes were there before this run: a resumed write never undoes them
    if (file.before) {
      (void)dir->WriteFile(rel, *file.before, false);
    } else {
      (void)dir->RemoveFile(rel);
      dir->RemoveEmptyFolders(rel, folders_created);
    }
  };
  if (!written) {
    // Markdown first: the file is the truth, the database follows it. When the
    // database refuses, the file goes back to what it was.
    ENGRAM_RETURN_IF_ERROR(dir->WriteFile(rel, after, /*create_folders=*/true, &folders_created));
    common::CrashPoint("page file written");
  }
  const bool indexed = existing.ok() && existing->content == after;
  if (held.git) {
    // Committed already (a resumed write): the database caught up with the
    // commit when the lock was taken. Otherwise the file is this write's own
    // change (checked when it was planned) and is committed as it is.
    const bool committed = written && held.git->CheckWritable(rel).ok();
    if (committed && indexed) {
      report.changed = false;
      return report;
    }
    if (!committed) {
      // The commit is the truth from here on; the database follows it in the
      // same transaction as the anchor (or at the next sync).
      auto apply = [&]() {
        common::CrashPoint("page committed, not yet indexed");
        return brain_.engine().PutPage(write).status();
      };
      auto result = held.git->Commit(rel, /*removed=*/false, operation, ctx, apply);
      if (!result.ok()) {
        undo_file();
        return result.status();
      }
      if (!result->empty()) report.warnings.push_back(*result);
      report.commit = held.git->head();
    } else if (auto put = brain_.engine().PutPage(write); !put.ok()) {
      return put.status();
    }
  } else if (!indexed) {
    if (auto put = brain_.engine().PutPage(write); !put.ok()) {
      undo_file();
      return put.status();
    }
  }
  common::CrashPoint("page indexed");
  for (const std::string& w : write.page.warnings) {
    (void)brain_.engine().AppendIngestLog({common::NowIso8601(), rel, "warn", w});
  }
  (void)brain_.engine().AppendIngestLog(
      {common::NowIso8601(), rel, existing.ok() ? "update" : "add", std::string(operation)});
  return report;
}

Result<std::vector<JournalEntry>> PageModule::FinishInterruptedWrites(const OperationContext& ctx,
                                                                      bool discard_conflicts) {
  // The lock alone: LockForPageWrite would try to finish the journals first
  // and stop at the file someone changed, before a discard could be asked for.
  ENGRAM_ASSIGN_OR_RETURN(auto held, TakePageWriteLock("finish interrupted writes"));
  ENGRAM_RETURN_IF_ERROR(FinishJournals(ctx, *held, discard_conflicts));
  return std::move(held->finished);
}

Status PageModule::FinishJournals(const OperationContext& ctx, PageWriteLock& held, bool discard_conflicts) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<JournalEntry> open, brain_.engine().OpenJournals());
  for (JournalEntry& e : open) {
    if (e.owner != JournalOwner()) continue;  // another machine's files: its own next write finishes it
    ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<common::RootedDir> dir, brain_.Files(ctx));
    std::set<std::string> folders;
    for (size_t i = 0; i < e.files.size(); ++i) {
      folders.insert(e.files[i].path);
      if (e.files[i].done) continue;
      Result<PutReport> r = ApplyFile(ctx, held, e.operation, e.files[i]);
      if (!r.ok()) {
        if (discard_conflicts && r.status().code() == StatusCode::kFailedPrecondition) {
          // Someone changed this file since: their version stays, as it is
          // on disk (the next sync or import indexes it), and the log says so.
          (void)brain_.engine().AppendIngestLog(
              {common::NowIso8601(), e.files[i].path, "warn",
               "an interrupted " + e.operation + " (started " + e.started_at +
                   ") was not finished in this file: it was changed since, and that version is kept (check --repair "
                   "--discard)"});
        } else {
          return r.status().WithContext("an interrupted " + e.operation + " (started " + e.started_at +
                                        ") could not be finished; `engram check` shows it, `engram check --repair "
                                        "--discard` keeps your version of the file and closes it");
        }
      }
      ENGRAM_RETURN_IF_ERROR(brain_.engine().MarkJournalFileDone(e.id, i));
    }
    // The temporary files a write killed before its rename left beside its files.
    for (const std::string& f : folders) (void)dir->RemoveTemporaries(f);
    ENGRAM_RETURN_IF_ERROR(brain_.engine().EndJournal(e.id));
    held.finished.push_back(std::move(e));
  }
  return Status::Ok();
}

}  // namespace engram::ops
