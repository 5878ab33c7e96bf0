// The page-store contract: pages (one per Markdown file of a source) and
// the rows derived from them (chunks, links, tags, aliases, timeline
// entries, versions, and the term lists the posting lists are built from).
// Part of engram/engine.h's Engine; code that only reads or writes pages
// takes a PageStore&.
//
// Order: reads see the last committed state, or the caller's own pending
// writes inside a Transaction (engram/store/transaction.h). Lists come back
// in the order each method names. Cost: every look-up by source + slug,
// path or id is indexed; ListPages, AllPageNames and the Filter* scans read
// one row per page or chunk of the source.
//
// Errors: NotFound where a method says so, InvalidArgument for a write that
// breaks a rule of the page (an empty slug), IOError / Unavailable when the
// store cannot be read or written, Corruption when what it holds is damaged.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/ids.h"
#include "engram/page.h"
#include "engram/search.h"
#include "engram/status.h"
#include "engram/store/read_scope.h"

namespace engram {

// The source a brain's own Markdown folder is indexed under (a brain has one source today).
inline constexpr const char* kDefaultSource = "default";

// Analysed terms of one field: term -> frequency, plus the field length.
struct TermVector {
  std::vector<std::pair<std::string, uint32_t>> terms;  // distinct terms with their counts
  uint32_t length = 0;                                  // number of tokens
};

struct ChunkWrite {
  int ordinal = 0;
  ChunkSource source = ChunkSource::kCompiledTruth;
  std::string text;
  int token_count = 0;
  int line_start = 0;  // 1-based file lines
  int line_end = 0;
  TermVector terms;
};

struct PageWrite {
  std::string source = "default";
  Page page;                // parsed page (slug, title, type, links, ...)
  std::string content;      // the Markdown file as stored
  std::string content_hash; // sha256 of content
  std::vector<ChunkWrite> chunks;
  TermVector title_terms;   // analysed title + aliases
  // The note's date, ISO 8601 ("2024-05-01" or "2024-05-01T10:00:00Z"): its
  // frontmatter's (Page::date) when it has one, else its file's (the last
  // commit that changed it, its modification time). Empty: the time of this
  // write, unless the page already holds exactly this content, whose date
  // then stays (re-indexing is no modification).
  std::string date;
};

struct StoredPage {
  PageId id;
  std::string source;
  std::string slug;
  std::string path;
  std::string type;
  std::string title;
  std::string frontmatter_json;
  std::string compiled_truth;
  std::string timeline;
  std::string content;
  std::string content_hash;
  bool is_private = false;
  // The note's dates (PageWrite::date): updated_at is its date, created_at
  // its frontmatter `created` (else `date`), else the earliest date it had.
  std::string created_at;
  std::string updated_at;
  std::string indexed_at;  // when engram last wrote the page's rows
  std::vector<std::string> tags;
  std::vector<std::string> aliases;
};

struct PageSummary {
  std::string slug;
  std::string path;
  std::string type;
  std::string title;
  bool is_private = false;
  std::string updated_at;  // the note's date (StoredPage)
};

// The names of a page: what look-ups by name compare (ops/page_names.h).
struct PageNames {
  std::string slug;
  std::string path;
  std::string title;
  std::vector<std::string> aliases;
  bool is_private = false;
  std::string type;  // AllPageNames fills these two; other uses may leave them
  PageId id;
};

struct ListFilter {
  std::string source = "default";
  std::string type;       // empty: any
  std::string tag;        // empty: any
  size_t limit = 100;
  bool include_private = true;
};

// A file known to the store: used by import to find new/changed/removed files.
struct SourceFile {
  std::string path;
  std::string slug;
  std::string content_hash;
};

struct ChunkRecord {
  ChunkId chunk_id;
  PageId page_id;
  std::string slug;
  std::string title;
  std::string type;
  std::string path;
  ChunkSource chunk_source = ChunkSource::kCompiledTruth;
  std::string text;
  int line_start = 0;
  int line_end = 0;
  bool is_private = false;
  std::string updated_at;  // the page's: the note's date (StoredPage)
};

struct LinkRecord {
  std::string from_slug;
  std::string to_slug;
  std::string type;
  std::string context;
};

// A link with the page it reaches now (resolved as Obsidian would).
struct ResolvedLink {
  std::string from_slug;
  std::string target;          // as written (slug form)
  std::string to_slug;         // the page it reaches; "" when none, or one the scope cannot see
  bool reaches_hidden = false; // it reaches a page the scope cannot see (not a dead link)
  std::string type;
  std::string context;
};

// A link as stored, not resolved: what a graph kept in memory is built from
// (graph/link_graph.h), resolving each with text::ResolveLinkTarget.
struct LinkRow {
  int64_t link_id = 0;
  PageId from;
  std::string from_folder;  // text::FolderKey of the linking page's path
  std::string target;       // as written (slug form)
  std::string type;
};

// A timeline entry with the page it is on.
struct DatedEntry {
  std::string page_slug;
  std::string page_title;
  TimelineEntry entry;
};

// A fact as a page states it (PageFact), with that page and, for an entity
// value, the page its link reaches now (resolved the way links are).
struct FactRecord {
  int64_t id = 0;
  PageId page_id;
  std::string page_slug;
  std::string page_path;
  std::string page_title;
  std::string page_type;
  bool page_private = false;
  std::string recorded_at;  // the stating page's date (StoredPage::updated_at)
  PageFact fact;
  std::string subject_slug;  // the page the fact is about: the stating page, or the one its subject reaches
  std::string subject_title; // ("" slug: a subject no page the scope sees answers to)
  std::string value_slug;    // the page an entity value reaches, if the scope sees it; else ""
  std::string value_title;
};

// A page's derived rows in a canonical form free of ids (terms by name,
// chunks by ordinal, rows sorted), one text per structure: "page" (the
// derived columns of the page row, title terms included), "chunks",
// "chunk postings", "title postings" (decoded from the posting lists),
// "links", "tags", "aliases", "timeline", "facts". Two stores hold the same derived
// rows for a page exactly when these compare equal.
using DerivedRows = std::map<std::string, std::string>;

class PageStore {
 public:
  virtual ~PageStore() = default;

  // Tells store objects apart for caches kept beside them (graph/entities.cc
  // keys its name index on it and the generation): a new store never takes
  // the id of one that was destroyed, even at the same address.
  uint64_t instance_id() const { return instance_id_; }

  // Inserts or replaces a page (matched on source + slug). An overwrite keeps
  // the page id and snapshots the previous content as a version.
  virtual Result<PageId> PutPage(const PageWrite& write) = 0;
  // Removes a page and everything derived from it. NotFound if absent.
  virtual Status DeletePage(std::string_view source, std::string_view slug) = 0;
  // The page with this slug in scope.source, if the scope sees it (else
  // NotFound, as for an absent page). The (source, slug) form reads with
  // ReadScope::All: for writers and the local owner.
  virtual Result<StoredPage> GetPage(const ReadScope& scope, std::string_view slug) = 0;
  Result<StoredPage> GetPage(std::string_view source, std::string_view slug) {
    return GetPage(ReadScope::All(source), slug);
  }
  virtual Result<std::vector<PageSummary>> ListPages(const ListFilter& filter) = 0;
  virtual Result<std::vector<SourceFile>> ListSourceFiles(std::string_view source) = 0;
  // One file of a source by path or by slug (indexed lookups); nothing when absent.
  virtual Result<std::optional<SourceFile>> FindSourceFile(std::string_view source, std::string_view path) = 0;
  virtual Result<std::optional<SourceFile>> FindSourceFileBySlug(std::string_view source, std::string_view slug) = 0;

  // Gives a page a new slug and path, keeping its id, versions and chunks.
  // Links from other pages stay as their files write them (a rebuild of the
  // same files stores the same). NotFound if old_slug is absent,
  // AlreadyExists if new_slug is taken.
  virtual Status RenamePage(std::string_view source, std::string_view old_slug, std::string_view new_slug,
                            std::string_view new_path) = 0;
  // A page's aliases (frontmatter `aliases`), in name order.
  virtual Result<std::vector<std::string>> PageAliases(PageId page_id) = 0;
  // Pages the scope sees whose title or an alias equals name (ASCII
  // case-insensitive), ascending. Indexed.
  virtual Result<std::vector<PageId>> PagesNamed(const ReadScope& scope, std::string_view name) = 0;
  // Slug, path, title and aliases of every page the scope sees, in slug
  // order: one scan of pages and aliases.
  virtual Result<std::vector<PageNames>> AllPageNames(const ReadScope& scope) = 0;
  // The chunks with these ids whose page the scope sees, in the order asked;
  // ids of vanished chunks and of pages the scope cannot see are left out.
  // One indexed look-up per id.
  virtual Result<std::vector<ChunkRecord>> GetChunks(const ReadScope& scope, const std::vector<ChunkId>& chunk_ids) = 0;
  // The chunk(s) of a page, in order.
  virtual Result<std::vector<ChunkRecord>> GetPageChunks(PageId page_id) = 0;

  // Links to the page slug of scope.source (or, without such a page, the
  // links written to that slug that reach nothing), from pages the scope
  // sees, in source-page order.
  virtual Result<std::vector<LinkRecord>> Backlinks(const ReadScope& scope, std::string_view slug) = 0;
  virtual Result<std::vector<TimelineEntry>> Timeline(std::string_view source, std::string_view slug) = 0;
  // Timeline entries of pages of scope.source the scope sees — of the page
  // `page` only, when given — dated from `since` through `until` ("" = open;
  // each compared at the precision the entry's date has, so "2026-03" is in
  // since 2026-03-05, and until 2026-03 takes all of March), by date, page
  // slug and line.
  virtual Result<std::vector<DatedEntry>> TimelineBetween(const ReadScope& scope, std::string_view since,
                                                          std::string_view until, std::optional<PageId> page) = 0;
  // The page links (attachments left out) of pages of scope.source the scope
  // sees — of the page `from` only, when given — each with the page it
  // reaches, by linking page slug then row order. One resolution per
  // distinct (target, folder).
  virtual Result<std::vector<ResolvedLink>> ResolvedLinks(const ReadScope& scope, std::optional<PageId> from) = 0;
  // Every page link (attachments left out) of every page of `source`,
  // private ones too, unresolved, by link id. Empty for a source with none.
  virtual Result<std::vector<LinkRow>> AllLinks(std::string_view source) = 0;
  // The names of the pages with these ids that the scope sees (any order; ids
  // of pages gone or hidden are absent), and their page links unresolved by
  // link id: what a graph kept in memory re-reads of the pages a write
  // changed (graph/link_graph.h). One indexed look-up per id.
  virtual Result<std::vector<PageNames>> PageNamesOf(const ReadScope& scope, const std::vector<PageId>& ids) = 0;
  virtual Result<std::vector<LinkRow>> LinksFrom(const std::vector<PageId>& pages) = 0;
  // Who this store is, for caches shared by every connection to it in this
  // process (graph/store_cache.h): the same database gives the same identity
  // through any number of engines. Never shown: it may hold a connection URL.
  virtual std::string StoreIdentity() const { return "instance:" + std::to_string(instance_id_); }
  // The sentence each link was written in, by link id (ids of links that are
  // gone are absent).
  virtual Result<std::map<int64_t, std::string>> LinkContexts(const std::vector<int64_t>& link_ids) = 0;
  // The facts stated by pages of scope.source the scope sees, in page-slug
  // then line order. With `page`: kAbout gives the facts about it (stated on
  // it with no other subject, or on any page with a subject that reaches
  // it), kValue those whose entity value reaches it ("who founded X").
  // Subjects and entity values are resolved once per distinct (target,
  // folder); the name indexes find the candidates.
  enum class FactSide { kAbout, kValue };
  virtual Result<std::vector<FactRecord>> Facts(const ReadScope& scope, std::optional<PageId> page,
                                                FactSide side) = 0;

  // Ids of the chunks whose page passes the filter, ascending.
  virtual Result<std::vector<ChunkId>> FilterChunks(const ChunkFilter& filter) = 0;
  // Ids of the pages that pass the filter, ascending.
  virtual Result<std::vector<PageId>> FilterPages(const ChunkFilter& filter) = 0;
  // Inbound links of each page (pages without any are absent), counting
  // only links from pages the scope sees (scope.source does not narrow it:
  // the pages are named by id). One look-up per page.
  virtual Result<std::map<PageId, int64_t>> BacklinkCounts(const ReadScope& scope,
                                                           const std::vector<PageId>& page_ids) = 0;
  // Ids of the chunks of private pages, ascending (what a remote caller's
  // vector arm must neither return nor sample).
  virtual Result<std::vector<ChunkId>> PrivateChunkIds() = 0;

  // The derived rows of the named pages of a source (absent pages are left
  // out), for comparison with a rebuild written to a scratch store.
  virtual Result<std::map<std::string, DerivedRows>> PageDerivedRows(std::string_view source,
                                                                     const std::vector<std::string>& slugs) = 0;

 protected:
  PageStore() = default;

 private:
  inline static std::atomic<uint64_t> next_instance_id_{1};
  const uint64_t instance_id_ = next_instance_id_.fetch_add(1, std::memory_order_relaxed);
};

}  // namespace engram
