// What shapes a page's derived rows besides its Markdown — the parser's rules
// (slugs, titles) and the brain's settings (chunking, the title preference,
// which files are pages and which are quarantined) — and bringing a brain
// indexed under others up to date.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engram/engine.h"
#include "engram/options.h"
#include "engram/status.h"
#include "sync/page_indexer.h"
#include "sync/scope.h"
#include "sync/sensitive.h"

namespace engram::ops {

// The indexing options of a brain's settings.
sync::IndexOptions IndexingOf(const BrainOptions& options);
// Which files are pages ([scope]; validated when the options were loaded).
sync::Scope ScopeOf(const BrainOptions& options);
// Which files are kept out as sensitive: the built-in rules with [quarantine]'s.
sync::SensitiveRules SensitiveOf(const BrainOptions& options);

// A text naming the indexing rules and settings; a brain records the one its
// pages were indexed under (config key "index_format:<source>").
std::string IndexFingerprint(const BrainOptions& options);

// True when source's pages were indexed under fingerprint (or it has none).
Result<bool> IndexFormatCurrent(Engine& engine, std::string_view source, std::string_view fingerprint);

// Records that source's pages are indexed under fingerprint.
Status RecordIndexFormat(ConfigStore& engine, std::string_view source, std::string_view fingerprint);

// Re-indexes every page of source from the Markdown stored with it, in one
// batch, then records fingerprint: a page whose slug changed (new slug rules)
// is renamed, keeping its id, versions and unchanged chunks' vectors. A page
// whose new slug another page still holds waits until that one moved; one
// that still collides, or whose Markdown no longer parses, is removed (the
// next import or sync names its file). Returns the pages whose slug changed.
// The caller holds the write lock.
Result<int64_t> ReindexAllPages(Engine& engine, std::string_view source, const sync::IndexOptions& indexing,
                                std::string_view fingerprint);

}  // namespace engram::ops
