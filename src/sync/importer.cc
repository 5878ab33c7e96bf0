#include "sync/importer.h"

#include <algorithm>
#include <chrono>
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
      if (options.scope.Contains(rel)) report.skipped.push_back({rel, "symbolic link (not followed)"});
      continue;
    }
    if (e.is_directory(ec)) {
      if (IsIgnoredDirectory(name)) it.disable_recursion_pending();
      continue;
    }
    if (!e.is_regular_file(ec) || !options.scope.Contains(rel)) continue;
    files.emplace_back(rel, e.path());
  }
  std::sort(files.begin(), files.end());

  ENGRAM_ASSIGN_OR_RETURN(std::vector<SourceFile> known, engine.ListSourceFiles(options.source));
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
    Status read;                     // the file could not be read
    std::string quarantine_rule;     // a sensitive-content rule the file hits
    bool unchanged = false;          // same hash as the indexed page
    std::optional<Result<PageWrite>> write;
  };
  auto prepare = [&](size_t i) {
    Prepared item;
    const auto& [rel, abs] = files[i];
    auto content = common::ReadFile(abs, options.max_file_bytes);
    if (!content.ok()) {
      item.read = content.status();
      return item;
    }
    if (auto rule = FindSensitive(rel, *content, options.sensitive)) {
      item.quarantine_rule = *rule;
      return item;
    }
    auto known_it = by_path.find(rel);
    if (known_it != by_path.end() && known_it->second->content_hash == common::Sha256Hex(*content)) {
      item.unchanged = true;
      return item;
    }
    item.write.emplace(PreparePage(rel, *content, options.chunker));
    return item;
  };
  auto consume = [&](size_t i, Prepared& item) -> Status {
    const std::string& rel = files[i].first;
    ++report.scanned;
    if (!item.read.ok()) {
      report.skipped.push_back({rel, item.read.message()});
      if (item.read.code() == StatusCode::kIOError) present.insert(rel);  // transient: keep the page
      if (!options.dry_run) Log(engine, rel, "skip", item.read.message());
      return Status::Ok();
    }
    if (!item.quarantine_rule.empty()) {
      // Not indexed, and a page it had goes (the removal pass below sees it absent).
      report.quarantined.push_back({rel, item.quarantine_rule});
      if (!options.dry_run) {
        ENGRAM_RETURN_IF_ERROR(engine.AppendAudit(options.source, {common::NowIso8601(), rel, item.quarantine_rule}));
        Log(engine, rel, "quarantine", "rule " + item.quarantine_rule);
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
      report.skipped.push_back({rel, write.status().message()});
      if (!options.dry_run) Log(engine, rel, "skip", write.status().message());
      return Status::Ok();
    }
    write->source = options.source;
    const std::string& slug = write->page.slug;
    if (auto owner = slug_owner.find(slug); owner != slug_owner.end() && owner->second != rel) {
      std::string why = "slug '" + slug + "' is already used by " + owner->second;
      report.skipped.push_back({rel, why});
      if (!options.dry_run) Log(engine, rel, "skip", why);
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
  if (!options.dry_run) ENGRAM_RETURN_IF_ERROR(engine.BeginBatch());
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
  if (!options.dry_run) ENGRAM_RETURN_IF_ERROR(engine.CommitBatch());
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace engram::sync
