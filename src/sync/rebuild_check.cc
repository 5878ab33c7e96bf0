#include "sync/rebuild_check.h"

#include <algorithm>
#include <random>

#include "common/hash.h"
#include "sync/page_indexer.h"
#include "engram/store/open_store.h"

namespace engram::sync {

namespace {

// Pages rebuilt per scratch store: bounds its memory on a --full check.
constexpr size_t kPagesPerScratch = 256;

// The first line where two canonical texts differ, both sides shortened.
std::string FirstDifference(const std::string& stored, const std::string& rebuilt) {
  auto lines = [](const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start < s.size()) {
      size_t end = s.find('\n', start);
      if (end == std::string::npos) end = s.size();
      out.push_back(s.substr(start, end - start));
      start = end + 1;
    }
    return out;
  };
  std::vector<std::string> a = lines(stored), b = lines(rebuilt);
  auto shorten = [](std::string s) {
    if (s.size() > 80) s = s.substr(0, 77) + "...";
    return "'" + s + "'";
  };
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i >= a.size()) return "missing " + shorten(b[i]);
    if (i >= b.size()) return "extra " + shorten(a[i]);
    if (a[i] != b[i]) return "stored " + shorten(a[i]) + ", rebuilt " + shorten(b[i]);
  }
  return "";
}

Status CompareGroup(Engine& engine, const RebuildCheckOptions& options, const std::vector<SourceFile>& group,
                    std::vector<ImportIssue>* problems, std::set<std::string>* reindex) {
  EngineOptions eo;
  eo.create_if_missing = true;
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Engine> scratch, OpenSqliteStore(":memory:", eo));
  std::vector<std::string> slugs;
  std::map<std::string, std::string> rebuilt_slug;  // stored slug -> the slug its rebuild has
  ENGRAM_ASSIGN_OR_RETURN(Transaction txn, scratch->Begin());
  for (const SourceFile& f : group) {
    auto stored = engine.GetPage(options.source, f.slug);
    if (!stored.ok()) {
      if (stored.status().code() == StatusCode::kNotFound) continue;  // deleted since it was listed
      return stored.status();
    }
    if (common::Sha256Hex(stored->content) != stored->content_hash) {
      problems->push_back({f.path, "stored Markdown does not match its content hash"});
      reindex->insert(f.path);
      continue;
    }
    Result<PageWrite> write = PreparePage(stored->path, stored->content, options.indexing);
    if (!write.ok()) {
      problems->push_back({f.path, "stored Markdown can no longer be indexed: " + write.status().message()});
      reindex->insert(f.path);
      continue;
    }
    write->source = options.source;
    Result<PageId> put = scratch->PutPage(*write);
    if (!put.ok()) {
      problems->push_back({f.path, "a rebuild of the page fails: " + put.status().message()});
      continue;
    }
    slugs.push_back(f.slug);
    rebuilt_slug[f.slug] = write->page.slug;
  }
  ENGRAM_RETURN_IF_ERROR(txn.Commit());

  std::vector<std::string> new_slugs;
  for (const auto& [slug, rebuilt] : rebuilt_slug) new_slugs.push_back(rebuilt);
  ENGRAM_ASSIGN_OR_RETURN(auto stored_rows, engine.PageDerivedRows(options.source, slugs));
  ENGRAM_ASSIGN_OR_RETURN(auto rebuilt_rows, scratch->PageDerivedRows(options.source, new_slugs));
  std::map<std::string, std::string> path_of;
  for (const SourceFile& f : group) path_of[f.slug] = f.path;
  for (const auto& [slug, rebuilt] : rebuilt_slug) {
    const std::string& path = path_of[slug];
    auto s = stored_rows.find(slug);
    auto r = rebuilt_rows.find(rebuilt);
    if (s == stored_rows.end()) continue;  // deleted meanwhile
    if (rebuilt != slug) {
      problems->push_back({path, "slug '" + slug + "' differs from a rebuild ('" + rebuilt + "')"});
      reindex->insert(path);
      continue;
    }
    if (r == rebuilt_rows.end()) return Status::Internal("the rebuild of " + path + " has no rows");
    for (const auto& [structure, want] : r->second) {
      auto got = s->second.find(structure);
      const std::string& have = got == s->second.end() ? std::string() : got->second;
      if (have != want) {
        problems->push_back({path, structure + " differ from a rebuild of the file: " + FirstDifference(have, want)});
        reindex->insert(path);
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckAgainstRebuild(Engine& engine, const RebuildCheckOptions& options, std::vector<ImportIssue>* problems,
                           std::set<std::string>* reindex, size_t* checked) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<SourceFile> pages, engine.ListSourceFiles(options.source));
  if (!options.full && pages.size() > options.sample) {
    // The included paths first, then a random sample of the rest.
    auto rest = std::partition(pages.begin(), pages.end(),
                               [&](const SourceFile& f) { return options.include.count(f.path) > 0; });
    std::mt19937 rng(options.seed != 0 ? options.seed : std::random_device{}());
    std::shuffle(rest, pages.end(), rng);
    pages.resize(std::max(options.sample, static_cast<size_t>(rest - pages.begin())));
    std::sort(pages.begin(), pages.end(), [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; });
  }
  *checked = pages.size();
  for (size_t i = 0; i < pages.size(); i += kPagesPerScratch) {
    std::vector<SourceFile> group(pages.begin() + static_cast<std::ptrdiff_t>(i),
                                  pages.begin() + static_cast<std::ptrdiff_t>(std::min(pages.size(), i + kPagesPerScratch)));
    ENGRAM_RETURN_IF_ERROR(CompareGroup(engine, options, group, problems, reindex));
  }
  return Status::Ok();
}

}  // namespace engram::sync
