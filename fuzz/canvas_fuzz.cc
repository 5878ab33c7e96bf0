// Fuzz target: Obsidian canvases (JSON Canvas) read as pages, and the
// quarantine's reading of them. Invariants: no crash or exception; a canvas
// is read the same twice; its page text is UTF-8 without NUL bytes; a page
// the reader accepts is prepared (chunks) without error. Deep nesting and
// damaged JSON are seeds (seeds/canvas).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/utf8.h"
#include "sync/page_indexer.h"
#include "sync/sensitive.h"
#include "text/canvas.h"
#include "text/page_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  static const engram::sync::SensitiveRules kRules = engram::sync::SensitiveRules::Defaults();
  (void)engram::sync::FindSensitive("boards/fuzz.canvas", input, kRules);
  auto page = engram::text::ParsePage("boards/fuzz.canvas", input);
  auto again = engram::text::ParseCanvasPage("boards/fuzz.canvas", input);
  if (page.ok() != again.ok()) std::abort();
  if (!page.ok()) {
    if (page.status().message() != again.status().message()) std::abort();
    return 0;
  }
  const engram::Page& a = *page;
  const engram::Page& b = *again;
  if (a.slug != "boards/fuzz--canvas" || a.type != "canvas" || a.compiled_truth != b.compiled_truth ||
      a.links != b.links || a.tags != b.tags || a.warnings != b.warnings) {
    std::abort();
  }
  if (!engram::common::IsValidUtf8(a.compiled_truth) || a.compiled_truth.find('\0') != std::string::npos) std::abort();
  engram::text::ChunkerOptions small{40, 10};
  auto write = engram::sync::PreparePage("boards/fuzz.canvas", input, small);
  if (!write.ok()) std::abort();  // the reader accepted it
  return 0;
}
