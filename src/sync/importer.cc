#include "sync/importer.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>
#include <optional>
#include <set>

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

}  // namespace

Result<ImportReport> ImportDirectory(Engine& engine, const fs::path& root, const ImportOptions& options) {
  auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return Status::InvalidArgument(root.string() + ": not a directory");

  // Walk in sorted order so that reports and ids are the same on every run.
  std::vector<std::pair<std::string, fs::path>> files;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
  if (ec) return Status::IOError(root.string() + ": " + ec.message());
  ImportReport report;
  report.root = root.string();
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return Status::IOError(root.string() + ": " + ec.message());
    const fs::directory_entry& e = *it;
    std::string name = e.path().filename().string();
    // lexically: fs::relative would resolve symbolic links in the path.
    std::string rel = e.path().lexically_relative(root).generic_string();
    if (e.is_symlink(ec)) {
      if (options.scope.Contains(rel)) {
        report.skipped.push_back({rel, "symbolic link (not followed)"});
        ++report.skipped_by_reason[SkipKind(report.skipped.back().reason)];
      }
      continue;
    }
    if (e.is_directory(ec)) {
      if (IsIgnoredDirectory(name)) it.disable_recursion_pending();
      continue;
    }
    if (!e.is_regular_file(ec)) continue;
    std::string why;
    if (!options.scope.Contains(rel, &why)) {
      // Notes out of scope are counted (README.md at the root, excluded
      // folders), so a summary accounts for every Markdown file; other files are not notes.
      if (why != "not a Markdown file") ++report.skipped_by_reason[SkipKind(why)];
      continue;
    }
    files.emplace_back(rel, e.path());
  }
  std::sort(files.begin(), files.end());

  ENGRAM_ASSIGN_OR_RETURN(std::vector<SourceFile> known, engine.ListSourceFiles(options.source));
  // Pages indexed before engram dated notes are all written again, dated.
  ENGRAM_ASSIGN_OR_RETURN(bool dated, NoteDatesCurrent(engine, options.source));
  const bool redate = !dated && !options.dry_run;
  std::map<std::string, const SourceFile*> by_path;
  for (const auto& f : known) by_path[f.path] = &f;

  std::set<std::string> present;       // paths whose pages stay
  // Slugs held by files still on disk, so a new file cannot take one over.
  std::map<std::string, std::string> slug_owner;
  std::set<std::string> on_disk;
  for (const auto& f : files) on_disk.insert(f.first);
  for (const auto& f : known) {
    if (on_disk.count(f.path)) slug_owner.emplace(f.slug, f.path);
  }
  // Reading, hashing and analysing a file (pure work) runs on a worker
  // thread, ahead of the writes, which stay on this thread (one writer).
  struct Prepared {
    Status read;                     // the file could not be read or prepared
    std::optional<SensitiveHit> quarantine;  // a sensitive-content rule the file hits
    bool unchanged = false;          // same hash as the indexed page
    std::optional<Result<PageWrite>> write;
    std::string modified;            // the file's modification time (its date without a frontmatter one)
  };
  auto prepare_or_throw = [&](size_t i) {
    Prepared item;
    const auto& [rel, abs] = files[i];
    auto content = common::ReadFile(abs, options.max_file_bytes);
    if (!content.ok()) {
      item.read = content.status();
      return item;
    }
    if ((item.quarantine = FindSensitive(rel, *content, options.sensitive))) return item;
    auto known_it = by_path.find(rel);
    if (!redate && known_it != by_path.end() && known_it->second->content_hash == common::Sha256Hex(*content)) {
      item.unchanged = true;
      return item;
    }
    if (auto mtime = common::ModifiedTime(abs); mtime.ok()) item.modified = common::Iso8601FromUnix(*mtime);
    item.write.emplace(PreparePage(rel, *content, options.indexing));
    return item;
  };
  // Whatever preparing one file throws is that file's failure: it never
  // reaches the worker thread's edge (std::terminate) or the batch.
  auto prepare = [&](size_t i) {
    try {
      return prepare_or_throw(i);
    } catch (const std::exception& e) {
      Prepared item;
      item.read = Status::Internal(std::string("could not be prepared (") + e.what() + ")");
      return item;
    } catch (...) {
      Prepared item;
      item.read = Status::Internal("could not be prepared (unknown exception)");
      return item;
    }
  };
  // A file that is not a page, with the reason: reported, counted, logged
  // and recorded where `status` and `get` show it.
  auto skip = [&](const std::string& rel, const std::string& why) {
    report.skipped.push_back({rel, why});
    ++report.skipped_by_reason[SkipKind(why)];
    if (options.dry_run) return;
    Log(engine, rel, "skip", why);
    (void)engine.RecordSyncFailure(options.source, {rel, why, common::NowIso8601()});
  };
  auto consume_or_throw = [&](size_t i, Prepared& item) -> Status {
    const std::string& rel = files[i].first;
    ++report.scanned;
    if (!item.read.ok()) {
      skip(rel, item.read.message());
      if (item.read.code() == StatusCode::kIOError) present.insert(rel);  // transient: keep the page
      return Status::Ok();
    }
    if (item.quarantine) {
      // Not indexed, and a page it had goes (the removal pass below sees it absent).
      const SensitiveHit& hit = *item.quarantine;
      report.quarantined.push_back({rel, hit.rule, hit.line});
      ++report.skipped_by_reason["quarantined"];
      if (!options.dry_run) {
        ENGRAM_RETURN_IF_ERROR(
            engine.AppendAudit(options.source, {common::NowIso8601(), rel, hit.rule, hit.line}));
        Log(engine, rel, "quarantine",
            "rule " + hit.rule + (hit.line > 0 ? " at line " + std::to_string(hit.line) : std::string()));
      }
      return Status::Ok();
    }
    if (item.unchanged) {
      ++report.unchanged;
      present.insert(rel);
      return Status::Ok();
    }
    Result<PageWrite>& write = *item.write;
    if (!write.ok()) {
      skip(rel, write.status().message());
      return Status::Ok();
    }
    write->source = options.source;
    if (write->date.empty()) write->date = item.modified;
    const std::string& slug = write->page.slug;
    if (auto owner = slug_owner.find(slug); owner != slug_owner.end() && owner->second != rel) {
      skip(rel, "slug '" + slug + "' is already used by " + owner->second);
      return Status::Ok();
    }
    slug_owner[slug] = rel;
    present.insert(rel);
    for (const std::string& w : write->page.warnings) {
      report.warnings.push_back({rel, w});
      if (!options.dry_run) Log(engine, rel, "warn", w);
    }
    auto known_it = by_path.find(rel);
    bool is_new = known_it == by_path.end();
    if (!options.dry_run) {
      // A file whose slug changed (frontmatter slug edited) leaves its old page.
      if (!is_new && known_it->second->slug != slug) {
        Status st = engine.DeletePage(options.source, known_it->second->slug);
        if (!st.ok() && st.code() != StatusCode::kNotFound) return st;
      }
      ENGRAM_RETURN_IF_ERROR(engine.PutPage(*write).status().WithContext("importing " + rel));
      Log(engine, rel, is_new ? "add" : "update", "");
    }
    (is_new ? report.added : report.updated)++;
    return Status::Ok();
  };
  // Writing is not preparing: an exception here fails the import (rolled
  // back, with the reason), never the process.
  auto consume = [&](size_t i, Prepared& item) -> Status {
    try {
      return consume_or_throw(i, item);
    } catch (const std::exception& e) {
      return Status::Internal("importing " + files[i].first + ": " + e.what());
    } catch (...) {
      return Status::Internal("importing " + files[i].first + ": unknown exception");
    }
  };
  if (!options.dry_run) {
    ENGRAM_RETURN_IF_ERROR(engine.BeginBatch());
    // The failures recorded are this import's: files that failed before and
    // now are pages, or are gone, are failures no longer.
    auto failed = engine.SyncFailures(options.source);
    Status st = failed.status();
    if (st.ok()) {
      for (const SyncFailure& f : *failed) {
        if (st.ok()) st = engine.ClearSyncFailure(options.source, f.path);
      }
    }
    if (!st.ok()) {
      engine.RollbackBatch();
      return st;
    }
  }
  Status st = common::RunPipelined<Prepared>(files.size(), prepare, consume);
  if (!st.ok()) {
    if (!options.dry_run) engine.RollbackBatch();
    return st;
  }
  for (const auto& f : known) {
    if (present.count(f.path)) continue;
    ++report.removed;
    if (options.dry_run) continue;
    Status st = engine.DeletePage(options.source, f.slug);
    if (!st.ok() && st.code() != StatusCode::kNotFound) {
      engine.RollbackBatch();
      return st.WithContext("removing " + f.path);
    }
    Log(engine, f.path, "delete", "file no longer present or no longer text");
  }
  if (redate) {
    if (Status dates = RecordNoteDates(engine, options.source); !dates.ok()) {
      engine.RollbackBatch();
      return dates;
    }
  }
  if (!options.dry_run) ENGRAM_RETURN_IF_ERROR(engine.CommitBatch());
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace engram::sync
