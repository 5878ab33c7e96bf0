// The SQL of link resolution (sqlite_links.cc), named so that a test can
// check its query plans: each must start from an index on what it looks
// for, never walk every page of a source. Without ANALYZE statistics SQLite
// prefers an index that yields the ORDER BY over one that finds the rows,
// and on a 50,000-page brain that walk made every backlink count of a
// hybrid search take ~1.4 s; the unary + on the ORDER BY (and on
// f.source_id) keeps those columns from choosing the index.
#pragma once

namespace engram::store::sql {

// ?1 source id, ?2 path key: the page at that path (the first by path); of
// the public pages only.
inline constexpr const char kPageByPathKeySql[] =
    "SELECT id FROM pages WHERE source_id = ? AND path_key = ? ORDER BY +path";
inline constexpr const char kPublicPageByPathKeySql[] =
    "SELECT id FROM pages WHERE source_id = ? AND path_key = ? AND visibility = 'public' ORDER BY +path";

// ?1 source id, ?2 a page's slug, ?3 its file-name key: every page link that
// may reach it (written as the slug, or ending in the name), by linking page.
inline constexpr const char kInboundLinksSql[] =
    "SELECT l.from_page, f.slug, f.visibility, f.path, l.to_slug, l.type, l.context "
    "FROM links l JOIN pages f ON f.id = l.from_page WHERE +f.source_id = ?1 AND "
    "l.type != 'attachment' AND (l.to_slug = ?2 OR l.to_name = ?3) "
    "ORDER BY +f.slug, l.id";

// The same for PostgreSQL, which has no unary + on text and plans from its
// statistics.
inline constexpr const char kPgPageByPathKeySql[] =
    "SELECT id FROM pages WHERE source_id = ? AND path_key = ? ORDER BY path";
inline constexpr const char kPgPublicPageByPathKeySql[] =
    "SELECT id FROM pages WHERE source_id = ? AND path_key = ? AND visibility = 'public' ORDER BY path";
inline constexpr const char kPgInboundLinksSql[] =
    "SELECT l.from_page, f.slug, f.visibility, f.path, l.to_slug, l.type, l.context "
    "FROM links l JOIN pages f ON f.id = l.from_page WHERE f.source_id = ?1 AND "
    "l.type != 'attachment' AND (l.to_slug = ?2 OR l.to_name = ?3) "
    "ORDER BY f.slug, l.id";

}  // namespace engram::store::sql
