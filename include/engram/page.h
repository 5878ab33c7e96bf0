// The page model: a Markdown file with YAML frontmatter, split into compiled
// truth (current understanding) and timeline (append-only evidence log).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace engram {

// The part of a page a chunk comes from: the compiled truth (everything
// above the timeline) or the timeline.
enum class ChunkSource { kCompiledTruth, kTimeline };

// "compiled_truth" / "timeline" (as stored and in JSON); "" for a value
// that is neither.
inline const char* ChunkSourceName(ChunkSource source) {
  switch (source) {
    case ChunkSource::kCompiledTruth: return "compiled_truth";
    case ChunkSource::kTimeline: return "timeline";
  }
  return "";
}
inline std::optional<ChunkSource> ParseChunkSource(std::string_view name) {
  if (name == "compiled_truth") return ChunkSource::kCompiledTruth;
  if (name == "timeline") return ChunkSource::kTimeline;
  return std::nullopt;
}

// One dated line of a page's timeline: "- **2026-04-07** | summary [Source: x]".
struct TimelineEntry {
  std::string date;     // normalised: "2026-04-07", "2026-04" or "2026"
  std::string summary;  // the text after the date, without the source note
  std::string source;   // from "[Source: ...]" / "[来源：...]", may be empty
  int line = 0;         // 1-based line in the file

  bool operator==(const TimelineEntry&) const = default;
};

// A typed edge from this page to another page, by target slug.
struct PageLink {
  std::string target;   // slug of the target as written (resolved at query time)
  std::string label;    // display text, may be empty
  std::string type;     // "mentions", "works_at", "founded", "invested_in", "attended", ...
  std::string context;  // the sentence or frontmatter field it came from
  bool operator==(const PageLink&) const = default;
};

// A claim a page makes (src/text/page_facts.h): subject, predicate and value,
// with the time it holds as the page writes it. Like a link, it is stored as
// written; which page a subject or an entity value names, which newer fact
// closes it and which facts disagree are decided when facts are read
// (src/graph), so a rebuild and an update agree.
struct PageFact {
  std::string subject;      // a link target as written (slug form); "" = the page itself
  std::string predicate;    // "role", "works_at", "location", "born", ...
  std::string value;        // the value's text, or an entity value's link target (slug form)
  bool value_is_link = false;
  std::string valid_from;   // a normalised date ("2026-03", "2026-03-12"), "" when not written
  std::string valid_until;  // the same; "" = open
  int line = 0;             // 1-based file line it was read from
  std::string origin;       // "frontmatter", "fact" (a fact line), "timeline"
  bool operator==(const PageFact&) const = default;
};

struct Page {
  std::string slug;                 // "people/zhang-san"
  std::string path;                 // source-relative path, "People/Zhang San.md"
  std::string type;                 // "person", "company", ..., "note"
  std::string title;
  std::vector<std::string> tags;
  std::vector<std::string> aliases;
  bool is_private = false;          // frontmatter visibility: private
  // The note's dates as its frontmatter gives them (text/note_date.h), ""
  // when it gives none: `date` is `updated`, else `date`, else `created`;
  // `created` is `created`, else `date`.
  std::string date;
  std::string created;

  std::string frontmatter_raw;      // YAML text between the fences, verbatim
  std::string frontmatter_json;     // the same as a JSON object ("{}" when none)
  bool has_frontmatter = false;

  std::string compiled_truth;       // trimmed body before the separator
  std::string timeline_separator;   // the separator line as written, empty if none
  int timeline_separator_line = 0;  // its 1-based file line (0: none)
  std::string timeline;             // trimmed body after the separator
  int compiled_truth_line = 1;      // 1-based file line where compiled_truth starts
  int timeline_line = 0;            // 1-based file line where timeline starts (0: none)

  std::vector<TimelineEntry> timeline_entries;
  std::vector<PageLink> links;
  std::vector<PageFact> facts;
  std::vector<std::string> warnings;  // e.g. invalid frontmatter (page still indexed)
};

}  // namespace engram
