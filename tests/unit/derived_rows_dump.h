// Every row a brain database derives from its Markdown files, read with a
// plain SQLite connection (independent of the engine) and written in a
// canonical text form: ids replaced by slugs, chunk ordinals and terms,
// posting lists decoded, lines sorted. Two databases built from the same
// files, by whatever sequence of writes, must dump equal.
//
// Left out on purpose: ids, timestamps, page_versions, logs, sync state,
// embeddings (they come from a model, not from the files) and the terms
// dictionary itself (a term no posting uses any more is harmless; the terms
// that matter appear in the postings).
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace engram::testing {

// Section name ("pages", "chunks", "postings", "title_postings",
// "corpus_stats", "links", "tags", "aliases", "timeline_entries") -> its
// rows, one per line, sorted.
using DerivedDump = std::map<std::string, std::string>;

DerivedDump DumpDerivedRows(const std::filesystem::path& db);

}  // namespace engram::testing
