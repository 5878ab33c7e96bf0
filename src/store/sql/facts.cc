// Facts as pages state them, with their entity values resolved the way links
// are (store/sql/links.cc): which page a value names depends on the pages
// there are now, so it is decided when read. And timeline entries across
// pages, for the graph's one timeline.
#include <map>

#include "store/sql/sql_engine.h"
#include "text/page_links.h"

namespace engram::store::sql {

Result<std::vector<FactRecord>> SqlEngine::Facts(const ReadScope& scope, std::optional<PageId> page) {
  ENGRAM_ASSIGN_OR_RETURN(
      Stmt * q, S("SELECT f.id, p.id, p.slug, p.path, p.title, p.type, p.visibility, p.updated_at, f.subject, "
                  "f.predicate, f.value, f.value_is_link, f.valid_from, f.valid_until, f.line, f.origin, s.id "
                  "FROM facts f JOIN pages p ON p.id = f.page_id JOIN sources s ON s.id = p.source_id "
                  "WHERE s.name = ?1 AND (?2 OR p.visibility = 'public') AND (?3 = 0 OR p.id = ?3) "
                  "ORDER BY p.slug, f.line, f.id"));
  q->Bind(1, scope.source).Bind(2, int64_t{scope.include_private ? 1 : 0});
  q->Bind(3, page ? page->value() : int64_t{0});
  std::vector<FactRecord> out;
  int64_t source_id = 0;
  while (q->Step()) {
    FactRecord r;
    r.id = q->Int(0);
    r.page_id = PageId(q->Int(1));
    r.page_slug = q->Text(2);
    r.page_path = q->Text(3);
    r.page_title = q->Text(4);
    r.page_type = q->Text(5);
    r.page_private = q->Text(6) == "private";
    r.recorded_at = q->Text(7);
    r.fact = {q->Text(8),  q->Text(9),  q->Text(10), q->Int(11) != 0, q->Text(12),
              q->Text(13), static_cast<int>(q->Int(14)), q->Text(15)};
    source_id = q->Int(16);
    out.push_back(std::move(r));
  }
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  // Entity values: each distinct (target, folder) resolved once.
  LinkMemo memo;
  std::map<int64_t, std::pair<std::string, std::string>> shown;  // page id -> slug, title (if the scope sees it)
  for (FactRecord& r : out) {
    if (!r.fact.value_is_link) continue;
    ENGRAM_ASSIGN_OR_RETURN(const std::optional<int64_t> reached,
                            ResolveLinkOnce(source_id, r.fact.value, text::FolderKey(r.page_path), &memo));
    if (!reached) continue;
    auto seen = shown.find(*reached);
    if (seen == shown.end()) {
      ENGRAM_ASSIGN_OR_RETURN(Stmt * pq, S("SELECT slug, title, visibility FROM pages WHERE id = ?"));
      pq->Bind(1, *reached);
      std::pair<std::string, std::string> names;
      if (pq->Step() && (scope.include_private || pq->Text(2) != "private")) names = {pq->Text(0), pq->Text(1)};
      ENGRAM_RETURN_IF_ERROR(pq->status());
      pq->Reset();
      seen = shown.emplace(*reached, std::move(names)).first;
    }
    r.value_slug = seen->second.first;
    r.value_title = seen->second.second;
  }
  return out;
}

Result<std::vector<DatedEntry>> SqlEngine::TimelineBetween(const ReadScope& scope, std::string_view since,
                                                           std::string_view until, std::optional<PageId> page) {
  ENGRAM_ASSIGN_OR_RETURN(
      Stmt * q, S("SELECT p.slug, p.title, t.date, t.summary, t.source, t.line FROM timeline_entries t "
                  "JOIN pages p ON p.id = t.page_id JOIN sources s ON s.id = p.source_id "
                  "WHERE s.name = ?1 AND (?2 OR p.visibility = 'public') AND (?3 = 0 OR p.id = ?3) "
                  "AND (?4 = '' OR t.date >= substr(?4, 1, length(t.date))) "
                  "AND (?5 = '' OR substr(t.date, 1, length(?5)) <= ?5) "
                  "ORDER BY t.date, p.slug, t.line"));
  q->Bind(1, scope.source).Bind(2, int64_t{scope.include_private ? 1 : 0}).Bind(3, page ? page->value() : int64_t{0});
  q->Bind(4, since).Bind(5, until);
  std::vector<DatedEntry> out;
  while (q->Step()) {
    out.push_back({q->Text(0), q->Text(1), {q->Text(2), q->Text(3), q->Text(4), static_cast<int>(q->Int(5))}});
  }
  ENGRAM_RETURN_IF_ERROR(q->status());
  return out;
}

}  // namespace engram::store::sql
