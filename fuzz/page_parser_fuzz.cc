// Fuzz target: Markdown page parsing (frontmatter, timeline, links), the
// chunker, the analyzer and the split edits. Invariants: no crash; a parsed
// page serialises and re-parses to the same fields, and serialising is
// idempotent; cutting sections out keeps every byte (kept + taken = input).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sync/page_indexer.h"
#include "text/page_edit.h"
#include "text/page_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto page = engram::text::ParsePage("notes/fuzz.md", input);
  if (!page.ok()) return 0;
  std::string once = engram::text::SerializePage(*page);
  auto again = engram::text::ParsePage("notes/fuzz.md", once);
  if (!again.ok()) std::abort();
  const engram::Page& a = *page;
  const engram::Page& b = *again;
  if (a.slug != b.slug || a.title != b.title || a.type != b.type || a.tags != b.tags || a.aliases != b.aliases ||
      a.is_private != b.is_private || a.frontmatter_json != b.frontmatter_json ||
      a.compiled_truth != b.compiled_truth || a.timeline != b.timeline || a.links != b.links ||
      a.timeline_entries.size() != b.timeline_entries.size()) {
    std::abort();
  }
  if (engram::text::SerializePage(b) != once) std::abort();
  engram::text::ChunkerOptions small{40, 10};
  auto write = engram::sync::PreparePage("notes/fuzz.md", input, small);
  if (!write.ok()) std::abort();  // ParsePage accepted it
  // Split edits: every alias removed reads back without it; sections cut keep every line somewhere.
  if (!a.aliases.empty()) (void)engram::text::RemoveAliases("notes/fuzz.md", input, {a.aliases.front()});
  auto cut = engram::text::TakeSections("notes/fuzz.md", input, [](std::string_view h) { return h.size() % 2 == 0; });
  if (cut.ok() && cut->first.size() + cut->second.size() != input.size()) std::abort();
  return 0;
}
