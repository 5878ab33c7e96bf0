// Links between pages, resolved when read. A page's rows hold its links as
// its file writes them; which page a link reaches depends on which other
// pages exist, so it is decided here, from the pages as they are now. A brain
// updated step by step and one built fresh from the same files therefore
// answer the same, and `check` can rebuild one page alone.
#include <algorithm>
#include <map>

#include "store/sql/link_queries.h"
#include "store/sql/sql_engine.h"
#include "text/page_links.h"

namespace engram::store::sql {

Result<std::optional<int64_t>> SqlEngine::ResolveLink(int64_t source_id, std::string_view target,
                                                         std::string_view from_folder, bool public_only) {
  auto one = [&](const char* sql, const std::string& value) -> Result<std::optional<int64_t>> {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(sql));
    q->Bind(1, source_id).Bind(2, value);
    std::optional<int64_t> id;
    if (q->Step()) id = q->Int(0);
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
    return id;
  };
  // The steps are text::ResolveLinkTarget's; here each look-up is a query.
  text::LinkLookup lookup;
  lookup.by_path_key = [&](const std::string& key) {
    return one(public_only ? D(kPublicPageByPathKeySql, kPgPublicPageByPathKeySql)
                           : D(kPageByPathKeySql, kPgPageByPathKeySql),
               key);
  };
  lookup.by_slug = [&](const std::string& slug) {
    return one(public_only ? "SELECT id FROM pages WHERE source_id = ? AND slug = ? AND visibility = 'public'"
                           : "SELECT id FROM pages WHERE source_id = ? AND slug = ?",
               slug);
  };
  lookup.by_name = [&](const std::string& name) -> Result<std::vector<text::LinkCandidate>> {
    ENGRAM_ASSIGN_OR_RETURN(
        Stmt * q, S(public_only
                        ? "SELECT id, path_key FROM pages WHERE source_id = ? AND name_key = ? AND visibility = 'public'"
                        : "SELECT id, path_key FROM pages WHERE source_id = ? AND name_key = ?"));
    q->Bind(1, source_id).Bind(2, name);
    std::vector<text::LinkCandidate> candidates;
    while (q->Step()) candidates.push_back({q->Int(0), q->Text(1)});
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
    return candidates;
  };
  return text::ResolveLinkTarget(std::string(target), std::string(from_folder), lookup);
}

Result<std::optional<int64_t>> SqlEngine::ResolveLinkOnce(int64_t source_id, const std::string& target,
                                                          const std::string& from_folder, LinkMemo* memo) {
  auto key = std::make_pair(target, from_folder);
  if (auto it = memo->answers.find(key); it != memo->answers.end()) return it->second;
  ENGRAM_ASSIGN_OR_RETURN(std::optional<int64_t> page, ResolveLink(source_id, target, from_folder, memo->public_only));
  memo->answers.emplace(std::move(key), page);
  return page;
}

Result<std::vector<SqlEngine::InboundLink>> SqlEngine::InboundLinks(const ReadScope& scope, int64_t source_id,
                                                                    std::string_view slug,
                                                                          std::string_view name_key) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(D(kInboundLinksSql, kPgInboundLinksSql)));
  q->Bind(1, source_id).Bind(2, slug).Bind(3, name_key);
  std::vector<InboundLink> out;
  std::vector<std::string> folders;
  while (q->Step()) {
    out.push_back({q->Int(0), q->Text(1), q->Text(2) == "private", q->Text(4), q->Text(5), q->Text(6), std::nullopt});
    folders.push_back(text::FolderKey(q->Text(3)));
  }
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  LinkMemo memo(scope);
  for (size_t i = 0; i < out.size(); ++i) {
    ENGRAM_ASSIGN_OR_RETURN(out[i].reaches, ResolveLinkOnce(source_id, out[i].to_slug, folders[i], &memo));
  }
  return out;
}

Result<std::vector<LinkRecord>> SqlEngine::Backlinks(const ReadScope& scope, std::string_view slug) {
  auto source_id = SourceId(scope.source, false);
  if (!source_id.ok()) {
    if (source_id.status().code() == StatusCode::kNotFound) return std::vector<LinkRecord>{};
    return source_id.status();
  }
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id, name_key, visibility FROM pages WHERE source_id = ? AND slug = ?"));
  q->Bind(1, *source_id).Bind(2, slug);
  std::optional<int64_t> page;
  std::string name_key = text::LinkName(slug);
  bool hidden = false;  // a page the scope cannot see has no links to show
  if (q->Step()) {
    page = q->Int(0);
    name_key = q->Text(1);
    hidden = !scope.Sees(q->Text(2) == "private");
  }
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  if (hidden) return std::vector<LinkRecord>{};
  ENGRAM_ASSIGN_OR_RETURN(std::vector<InboundLink> links, InboundLinks(scope, *source_id, slug, name_key));
  std::vector<LinkRecord> out;
  for (InboundLink& l : links) {
    if (!scope.Sees(l.from_private)) continue;
    // Without a page, the links written to this slug that reach nothing.
    bool keep = page ? l.reaches == page
                     : !l.reaches && (l.to_slug == slug || (slug.size() > l.to_slug.size() &&
                                                            slug.substr(slug.size() - l.to_slug.size()) == l.to_slug &&
                                                            slug[slug.size() - l.to_slug.size() - 1] == '/'));
    if (keep) out.push_back({std::move(l.from_slug), std::move(l.to_slug), std::move(l.type), std::move(l.context)});
  }
  return out;
}

Result<std::vector<ResolvedLink>> SqlEngine::ResolvedLinks(const ReadScope& scope, std::optional<PageId> from) {
  ENGRAM_ASSIGN_OR_RETURN(
      Stmt * q, S("SELECT p.slug, p.path, l.to_slug, l.type, l.context, s.id FROM links l "
                  "JOIN pages p ON p.id = l.from_page JOIN sources s ON s.id = p.source_id "
                  "WHERE s.name = ?1 AND (?2 OR p.visibility = 'public') AND (?3 = 0 OR p.id = ?3) "
                  "AND l.type != 'attachment' ORDER BY p.slug, l.id"));
  q->Bind(1, scope.source).Bind(2, int64_t{scope.include_private ? 1 : 0}).Bind(3, from ? from->value() : int64_t{0});
  std::vector<ResolvedLink> out;
  std::vector<std::string> folders;
  int64_t source_id = 0;
  while (q->Step()) {
    out.push_back({q->Text(0), q->Text(2), "", false, q->Text(3), q->Text(4)});
    folders.push_back(text::FolderKey(q->Text(1)));
    source_id = q->Int(5);
  }
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  LinkMemo memo(scope);
  std::map<int64_t, std::pair<std::string, bool>> pages;  // page -> slug, private
  for (size_t i = 0; i < out.size(); ++i) {
    ENGRAM_ASSIGN_OR_RETURN(const std::optional<int64_t> reached,
                            ResolveLinkOnce(source_id, out[i].target, folders[i], &memo));
    if (!reached) continue;
    auto p = pages.find(*reached);
    if (p == pages.end()) {
      ENGRAM_ASSIGN_OR_RETURN(Stmt * pq, S("SELECT slug, visibility FROM pages WHERE id = ?"));
      pq->Bind(1, *reached);
      std::pair<std::string, bool> row;
      if (pq->Step()) row = {pq->Text(0), pq->Text(1) == "private"};
      ENGRAM_RETURN_IF_ERROR(pq->status());
      pq->Reset();
      p = pages.emplace(*reached, std::move(row)).first;
    }
    if (scope.Sees(p->second.second)) out[i].to_slug = p->second.first;
    else out[i].reaches_hidden = true;
  }
  return out;
}

Result<std::vector<LinkRow>> SqlEngine::AllLinks(std::string_view source) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT l.id, l.from_page, p.path, l.to_slug, l.type FROM links l "
                                      "JOIN pages p ON p.id = l.from_page JOIN sources s ON s.id = p.source_id "
                                      "WHERE s.name = ?1 AND l.type != 'attachment' ORDER BY l.id"));
  q->Bind(1, source);
  std::vector<LinkRow> out;
  std::string last_path, last_folder;  // a page's links come together: its folder once
  while (q->Step()) {
    std::string path = q->Text(2);
    if (path != last_path) {
      last_folder = text::FolderKey(path);
      last_path = std::move(path);
    }
    out.push_back({q->Int(0), PageId(q->Int(1)), last_folder, q->Text(3), q->Text(4)});
  }
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  return out;
}

Result<std::vector<PageNames>> SqlEngine::PageNamesOf(const ReadScope& scope, const std::vector<PageId>& ids) {
  std::vector<PageNames> out;
  for (const PageId id : ids) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT p.slug, p.path, p.title, p.visibility, p.type FROM pages p JOIN "
                                        "sources s ON s.id = p.source_id WHERE p.id = ?1 AND s.name = ?2"));
    q->Bind(1, id.value()).Bind(2, scope.source);
    if (q->Step() && scope.Sees(q->Text(3) == "private")) {
      out.push_back({q->Text(0), q->Text(1), q->Text(2), {}, q->Text(3) == "private", q->Text(4), id});
    }
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
  }
  return out;
}

Result<std::vector<LinkRow>> SqlEngine::LinksFrom(const std::vector<PageId>& pages) {
  std::vector<LinkRow> out;
  for (const PageId id : pages) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT l.id, p.path, l.to_slug, l.type FROM links l JOIN pages p ON "
                                        "p.id = l.from_page WHERE l.from_page = ?1 AND l.type != 'attachment' "
                                        "ORDER BY l.id"));
    q->Bind(1, id.value());
    while (q->Step()) out.push_back({q->Int(0), id, text::FolderKey(q->Text(1)), q->Text(2), q->Text(3)});
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
  }
  std::sort(out.begin(), out.end(), [](const LinkRow& a, const LinkRow& b) { return a.link_id < b.link_id; });
  return out;
}

Result<std::map<int64_t, std::string>> SqlEngine::LinkContexts(const std::vector<int64_t>& link_ids) {
  std::map<int64_t, std::string> out;
  if (pg_ && link_ids.size() > 1) {  // one round trip for all of them
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT id, context FROM links WHERE id = ANY(?1::bigint[])"));
    q->Bind(1, IntArray(link_ids));
    while (q->Step()) out[q->Int(0)] = q->Text(1);
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
    return out;
  }
  for (const int64_t id : link_ids) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT context FROM links WHERE id = ?"));
    q->Bind(1, id);
    if (q->Step()) out[id] = q->Text(0);
    ENGRAM_RETURN_IF_ERROR(q->status());
    q->Reset();
  }
  return out;
}

Result<std::map<PageId, int64_t>> SqlEngine::BacklinkCounts(const ReadScope& scope,
                                                                const std::vector<PageId>& page_ids) {
  std::map<PageId, int64_t> out;
  for (const PageId page : page_ids) {
    const int64_t id = page.value();
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT source_id, slug, name_key FROM pages WHERE id = ?"));
    q->Bind(1, id);
    if (!q->Step()) {
      ENGRAM_RETURN_IF_ERROR(q->status());
      q->Reset();
      continue;
    }
    const int64_t source_id = q->Int(0);
    const std::string slug = q->Text(1), name_key = q->Text(2);
    q->Reset();
    ENGRAM_ASSIGN_OR_RETURN(std::vector<InboundLink> links, InboundLinks(scope, source_id, slug, name_key));
    int64_t n = 0;
    for (const InboundLink& l : links) {
      if (l.reaches == id && l.from_id != id && scope.Sees(l.from_private)) ++n;
    }
    if (n > 0) out[page] = n;
  }
  return out;
}

}  // namespace engram::store::sql
