#include "sync/importer.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "common/crash_point.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/pipeline.h"
#include "sync/page_indexer.h"
#include "sync/scope.h"
#include "text/slug.h"

namespace engram::sync {

namespace fs = std::filesystem;

namespace {

void Log(Engine& engine, const std::string& path, const char* action, const std::string& message) {
  (void)engine.AppendIngestLog({common::NowIso8601(), path, action, message});
}

// A file in scope: its path relative to the root (the page's path) and its path on disk.
using FoundFile = std::pair<std::string, fs::path>;

// Walks root in sorted order so that reports and ids are the same on every
// run. Symbolic links in scope and notes out of scope are counted in report.
Result<std::vector<FoundFile>> ScanDirectory(const fs::path& root, const Scope& scope, ImportReport* report) {
  std::error_code ec;
  std::vector<FoundFile> files;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  if (ec) return Status::IOError(root.string() + ": " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return Status::IOError(root.string() + ": " + ec.message());
    const fs::directory_entry& e = *it;
    std::string name = e.path().filename().string();
    // lexically: fs::relative would resolve symbolic links in the path.
    std::string rel = e.path().lexically_relative(root).generic_string();
    if (e.is_symlink(ec)) {
      if (scope.Contains(rel)) {
        report->skipped.push_back({rel, "symbolic link (not followed)"});
        ++report->skipped_by_reason[SkipKind(report->skipped.back().reason)];
      }
      continue;
    }
    if (e.is_directory(ec)) {
      if (IsIgnoredDirectory(name)) it.disable_recursion_pending();
      continue;
    }
    if (!e.is_regular_file(ec)) continue;
    std::string why;
    if (!scope.Contains(rel, &why)) {
      // Notes out of scope are counted (README.md at the root, excluded
      // folders), so a summary accounts for every Markdown file; other files are not notes.
      if (why != "not a Markdown file") ++report->skipped_by_reason[SkipKind(why)];
      continue;
    }
    files.emplace_back(rel, e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// One file after the pure work (reading, hashing, analysing), before any write.
struct Prepared {
  Status read;                     // the file could not be read or prepared
  std::optional<SensitiveHit> quarantine;  // a sensitive-content rule the file hits
  bool unchanged = false;          // same hash as the indexed page
  std::optional<Result<PageWrite>> write;
  std::string modified;            // the file's modification time (its date without a frontmatter one)
};

// The failures recorded are this import's: files that failed before and now
// are pages, or are gone, are failures no longer. Runs inside the batch.
Status ClearSyncFailures(Engine& engine, const std::string& source) {
  auto failed = engine.SyncFailures(source);
  Status st = failed.status();
  if (st.ok()) {
    for (const SyncFailure& f : *failed) {
      if (st.ok()) st = engine.ClearSyncFailure(source, f.path);
    }
  }
  return st;
}

// One import: the files the scan found, the pages the source held before,
// and the report being built. Prepare is pure work and runs on a worker
// thread, ahead of Apply, which writes and stays on the calling thread (one
// writer); Prepare reads only what is fixed at construction.
class DirectoryImport {
 public:
  DirectoryImport(Engine& engine, const ImportOptions& options, std::vector<FoundFile> files,
                  std::vector<SourceFile> known, bool redate, ImportReport* report)
      : engine_(engine), options_(options), files_(std::move(files)), known_(std::move(known)), redate_(redate),
        report_(report) {
    for (const auto& f : known_) by_path_[f.path] = &f;
    // Slugs held by files still on disk, so a new file cannot take one over.
    std::set<std::string> on_disk;
    for (const auto& f : files_) on_disk.insert(f.first);
    for (const auto& f : known_) {
      if (on_disk.count(f.path)) slug_owner_.emplace(f.slug, f.path);
    }
  }

  // Prepares and applies every file found, in order.
  Status ApplyFiles() {
    return common::RunPipelined<Prepared>(
        files_.size(), [this](size_t i) { return Prepare(i); },
        [this](size_t i, Prepared& item) { return Apply(i, item); });
  }

  // Removes the pages of files no longer present (or no longer text). On an
  // error the caller rolls the batch back.
  Status RemoveMissing() {
    for (const auto& f : known_) {
      if (present_.count(f.path)) continue;
      ++report_->removed;
      if (options_.dry_run) continue;
      Status st = engine_.DeletePage(options_.source, f.slug);
      if (!st.ok() && st.code() != StatusCode::kNotFound) return st.WithContext("removing " + f.path);
      Log(engine_, f.path, "delete", "file no longer present or no longer text");
    }
    return Status::Ok();
  }

 private:
  // Whatever preparing one file throws is that file's failure: it never
  // reaches the worker thread's edge (std::terminate) or the batch.
  Prepared Prepare(size_t i) const {
    try {
      return PrepareOrThrow(i);
    } catch (const std::exception& e) {
      Prepared item;
      item.read = Status::Internal(std::string("could not be prepared (") + e.what() + ")");
      return item;
    } catch (...) {
      Prepared item;
      item.read = Status::Internal("could not be prepared (unknown exception)");
      return item;
    }
  }

  Prepared PrepareOrThrow(size_t i) const {
    Prepared item;
    const auto& [rel, abs] = files_[i];
    auto content = common::ReadFile(abs, options_.max_file_bytes);
    if (!content.ok()) {
      item.read = content.status();
      return item;
    }
    if ((item.quarantine = FindSensitive(rel, *content, options_.sensitive))) return item;
    auto known_it = by_path_.find(rel);
    if (!redate_ && known_it != by_path_.end() && known_it->second->content_hash == common::Sha256Hex(*content)) {
      item.unchanged = true;
      return item;
    }
    if (auto mtime = common::ModifiedTime(abs); mtime.ok()) item.modified = common::Iso8601FromUnix(*mtime);
    item.write.emplace(PreparePage(rel, *content, options_.indexing));
    return item;
  }

  // Writing is not preparing: an exception here fails the import (rolled
  // back, with the reason), never the process.
  Status Apply(size_t i, Prepared& item) {
    try {
      return ApplyOrThrow(i, item);
    } catch (const std::exception& e) {
      return Status::Internal("importing " + files_[i].first + ": " + e.what());
    } catch (...) {
      return Status::Internal("importing " + files_[i].first + ": unknown exception");
    }
  }

  Status ApplyOrThrow(size_t i, Prepared& item) {
    const std::string& rel = files_[i].first;
    ++report_->scanned;
    if (!item.read.ok()) {
      Skip(rel, item.read.message());
      if (item.read.code() == StatusCode::kIOError) present_.insert(rel);  // transient: keep the page
      return Status::Ok();
    }
    if (item.quarantine) return Quarantine(rel, *item.quarantine);
    if (item.unchanged) {
      ++report_->unchanged;
      present_.insert(rel);
      return Status::Ok();
    }
    Result<PageWrite>& write = *item.write;
    if (!write.ok()) {
      Skip(rel, write.status().message());
      return Status::Ok();
    }
    write->source = options_.source;
    if (write->date.empty()) write->date = item.modified;
    return Write(rel, *write);
  }

  // A file that is not a page, with the reason: reported, counted, logged
  // and recorded where `status` and `get` show it.
  void Skip(const std::string& rel, const std::string& why) {
    report_->skipped.push_back({rel, why});
    ++report_->skipped_by_reason[SkipKind(why)];
    if (options_.dry_run) return;
    Log(engine_, rel, "skip", why);
    (void)engine_.RecordSyncFailure(options_.source, {rel, why, common::NowIso8601()});
  }

  // Not indexed, and a page it had goes (RemoveMissing sees it absent).
  Status Quarantine(const std::string& rel, const SensitiveHit& hit) {
    report_->quarantined.push_back({rel, hit.rule, hit.line});
    ++report_->skipped_by_reason["quarantined"];
    if (!options_.dry_run) {
      ENGRAM_RETURN_IF_ERROR(engine_.AppendAudit(options_.source, {common::NowIso8601(), rel, hit.rule, hit.line}));
      Log(engine_, rel, "quarantine",
          "rule " + hit.rule + (hit.line > 0 ? " at line " + std::to_string(hit.line) : std::string()));
    }
    return Status::Ok();
  }

  // Adds or updates the page of a new or changed file, unless another file holds its slug.
  Status Write(const std::string& rel, const PageWrite& write) {
    const std::string& slug = write.page.slug;
    if (auto owner = slug_owner_.find(slug); owner != slug_owner_.end() && owner->second != rel) {
      Skip(rel, "slug '" + slug + "' is already used by " + owner->second);
      return Status::Ok();
    }
    slug_owner_[slug] = rel;
    present_.insert(rel);
    for (const std::string& w : write.page.warnings) {
      report_->warnings.push_back({rel, w});
      if (!options_.dry_run) Log(engine_, rel, "warn", w);
    }
    auto known_it = by_path_.find(rel);
    bool is_new = known_it == by_path_.end();
    if (!options_.dry_run) {
      // A file whose slug changed (frontmatter slug edited) leaves its old page.
      if (!is_new && known_it->second->slug != slug) {
        Status st = engine_.DeletePage(options_.source, known_it->second->slug);
        if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
      }
      ENGRAM_RETURN_IF_ERROR(engine_.PutPage(write).status().WithContext("importing " + rel));
      common::CrashPoint("a page imported, the import not committed");
      Log(engine_, rel, is_new ? "add" : "update", "");
    }
    (is_new ? report_->added : report_->updated)++;
    return Status::Ok();
  }

  Engine& engine_;
  const ImportOptions& options_;
  const std::vector<FoundFile> files_;
  const std::vector<SourceFile> known_;
  const bool redate_;  // pages are written again even when unchanged, to date them
  ImportReport* report_;
  std::map<std::string, const SourceFile*> by_path_;  // into known_
  std::map<std::string, std::string> slug_owner_;      // slug -> the path that holds it
  std::set<std::string> present_;                      // paths whose pages stay
};

}  // namespace

Result<ImportReport> ImportDirectory(Engine& engine, const fs::path& root, const ImportOptions& options) {
  auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return Status::InvalidArgument(root.string() + ": not a directory");
  ImportReport report;
  report.root = root.string();
  ENGRAM_ASSIGN_OR_RETURN(std::vector<FoundFile> files, ScanDirectory(root, options.scope, &report));

  ENGRAM_ASSIGN_OR_RETURN(std::vector<SourceFile> known, engine.ListSourceFiles(options.source));
  // Pages indexed before engram dated notes are all written again, dated.
  ENGRAM_ASSIGN_OR_RETURN(bool dated, NoteDatesCurrent(engine, options.source));
  const bool redate = !dated && !options.dry_run;
  DirectoryImport importer(engine, options, std::move(files), std::move(known), redate, &report);

  std::optional<Transaction> txn;  // a dry run writes nothing
  if (!options.dry_run) {
    ENGRAM_ASSIGN_OR_RETURN(Transaction t, engine.Begin());
    txn.emplace(std::move(t));
    ENGRAM_RETURN_IF_ERROR(ClearSyncFailures(engine, options.source));
  }
  ENGRAM_RETURN_IF_ERROR(importer.ApplyFiles());
  ENGRAM_RETURN_IF_ERROR(importer.RemoveMissing());
  if (redate) ENGRAM_RETURN_IF_ERROR(RecordNoteDates(engine, options.source));
  if (txn) ENGRAM_RETURN_IF_ERROR(txn->Commit());
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace engram::sync
