#include "ops/index_format.h"

#include <vector>

namespace engram::ops {

namespace {

// Raised whenever the parser's rules change what a page's rows are, so that
// brains indexed before converge at their next import or sync:
// 2 — injective slugs ("C++" and "C#" no longer become "c"; '_' kept) and
//     the file name as a page's name (title by default, else an alias).
// 3 — canvases are pages: a link to "Board.canvas" is a page link (slug
//     "board--canvas"), no longer an attachment.
// 4 — facts (text/page_facts.h) are derived rows, and Chinese and more
//     English field names type links ("公司", "position" -> works_at, role).
constexpr int kIndexRules = 4;

std::string FormatKey(std::string_view source) { return "index_format:" + std::string(source); }

}  // namespace

sync::SensitiveRules SensitiveOf(const BrainOptions& o) {
  sync::SensitiveRules r = sync::SensitiveRules::Defaults();
  r.path_components.insert(r.path_components.end(), o.quarantine.path_components.begin(),
                           o.quarantine.path_components.end());
  r.name_keywords.insert(r.name_keywords.end(), o.quarantine.name_keywords.begin(), o.quarantine.name_keywords.end());
  r.allow = o.quarantine.allow;
  r.disabled = o.quarantine.disable;
  return r;
}

sync::Scope ScopeOf(const BrainOptions& o) {
  // Validated when the configuration was loaded.
  auto scope = sync::Scope::Make(o.scope.include, o.scope.exclude, o.scope.skip_files);
  return scope.ok() ? *scope : sync::Scope();
}

sync::IndexOptions IndexingOf(const BrainOptions& o) {
  text::ParseOptions parse;
  parse.title = o.pages.title == "heading" ? text::TitleSource::kHeading : text::TitleSource::kFileName;
  return {{static_cast<size_t>(o.chunker.target_words), static_cast<size_t>(o.chunker.overlap_words)}, parse};
}

std::string IndexFingerprint(const BrainOptions& o) {
  return "rules=" + std::to_string(kIndexRules) + ";title=" + o.pages.title +
         ";chunk=" + std::to_string(o.chunker.target_words) + "/" + std::to_string(o.chunker.overlap_words);
}

Result<bool> IndexFormatCurrent(Engine& engine, std::string_view source, std::string_view fingerprint) {
  ENGRAM_ASSIGN_OR_RETURN(std::string stored, engine.GetConfigValue(FormatKey(source)));
  if (stored == fingerprint) return true;
  if (!stored.empty()) return false;
  // Never recorded: a brain from before the record, unless it has no pages.
  ENGRAM_ASSIGN_OR_RETURN(std::vector<SourceFile> files, engine.ListSourceFiles(source));
  return files.empty();
}

Status RecordIndexFormat(ConfigStore& engine, std::string_view source, std::string_view fingerprint) {
  return engine.SetConfigValue(FormatKey(source), fingerprint);
}

Result<int64_t> ReindexAllPages(Engine& engine, std::string_view source, const sync::IndexOptions& indexing,
                                std::string_view fingerprint) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<SourceFile> pending, engine.ListSourceFiles(source));
  ENGRAM_ASSIGN_OR_RETURN(Transaction txn, engine.Begin());
  int64_t rekeyed = 0;
  auto run = [&]() -> Status {
    while (!pending.empty()) {
      std::vector<SourceFile> waiting;  // new slug still held by a page not yet moved
      bool progress = false;
      for (const SourceFile& f : pending) {
        ENGRAM_ASSIGN_OR_RETURN(StoredPage page, engine.GetPage(source, f.slug));
        Result<PageWrite> write = sync::PreparePage(page.path, page.content, indexing);
        if (!write.ok()) {
          ENGRAM_RETURN_IF_ERROR(engine.DeletePage(source, f.slug));
          progress = true;
          continue;
        }
        write->source = std::string(source);
        if (write->page.slug != f.slug) {
          ENGRAM_ASSIGN_OR_RETURN(std::optional<SourceFile> owner, engine.FindSourceFileBySlug(source, write->page.slug));
          if (owner && owner->path != f.path) {
            waiting.push_back(f);
            continue;
          }
          ENGRAM_RETURN_IF_ERROR(engine.RenamePage(source, f.slug, write->page.slug, f.path));
          ++rekeyed;
        }
        ENGRAM_RETURN_IF_ERROR(engine.PutPage(*write).status().WithContext("re-indexing " + f.path));
        progress = true;
      }
      if (!progress) {
        for (const SourceFile& f : waiting) ENGRAM_RETURN_IF_ERROR(engine.DeletePage(source, f.slug));
        break;
      }
      pending = std::move(waiting);
    }
    return engine.SetConfigValue(FormatKey(source), fingerprint);
  };
  ENGRAM_RETURN_IF_ERROR(run());
  ENGRAM_RETURN_IF_ERROR(txn.Commit());
  return rekeyed;
}

}  // namespace engram::ops
