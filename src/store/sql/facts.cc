// Facts as pages state them, with their entity values resolved the way links
// are (store/sql/links.cc): which page a value names depends on the pages
// there are now, so it is decided when read. And timeline entries across
// pages, for the graph's one timeline.
#include <algorithm>
#include <map>
#include <tuple>

#include "store/sql/sql_engine.h"
#include "text/page_links.h"

namespace engram::store::sql {

namespace {

// The statements of Facts, literals (S() caches by address): one per way a
// fact can concern a page, so each uses its index.
#define ENGRAM_FACT_COLUMNS                                                                                  \
  "SELECT f.id, p.id, p.slug, p.path, p.title, p.type, p.visibility, p.updated_at, f.subject, f.predicate, " \
  "f.value, f.value_is_link, f.valid_from, f.valid_until, f.line, f.origin, s.id "                          \
  "FROM facts f JOIN pages p ON p.id = f.page_id JOIN sources s ON s.id = p.source_id "                     \
  "WHERE s.name = ?1 AND (?2 OR p.visibility = 'public') "
constexpr const char* kAllFactsSql = ENGRAM_FACT_COLUMNS "ORDER BY p.slug, f.line, f.id";
constexpr const char* kPageFactsSql =
    ENGRAM_FACT_COLUMNS "AND f.page_id = ?3 AND f.subject = '' ORDER BY p.slug, f.line, f.id";
constexpr const char* kSubjectFactsSql =
    ENGRAM_FACT_COLUMNS "AND f.subject != '' AND f.subject_name IN (?3, ?4) ORDER BY p.slug, f.line, f.id";
constexpr const char* kValueFactsSql =
    ENGRAM_FACT_COLUMNS "AND f.value_is_link = 1 AND f.value_name IN (?3, ?4) ORDER BY p.slug, f.line, f.id";
#undef ENGRAM_FACT_COLUMNS

}  // namespace

Result<std::vector<FactRecord>> SqlEngine::Facts(const ReadScope& scope, std::optional<PageId> page,
                                                 FactSide side) {
  // The page's names: what a subject or value written as a link may end in.
  std::string names[2];
  if (page) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * pq, S("SELECT slug, name_key FROM pages WHERE id = ?"));
    pq->Bind(1, page->value());
    if (pq->Step()) names[0] = text::LinkName(pq->Text(0)), names[1] = pq->Text(1);
    ENGRAM_RETURN_IF_ERROR(pq->status());
    pq->Reset();
  }
  std::vector<const char*> queries;
  if (!page) queries = {kAllFactsSql};
  else if (side == FactSide::kAbout) queries = {kPageFactsSql, kSubjectFactsSql};
  else queries = {kValueFactsSql};
  std::vector<FactRecord> out;
  int64_t source_id = 0;
  for (const char* sql : queries) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S(sql));
    q->Bind(1, scope.source).Bind(2, int64_t{scope.include_private ? 1 : 0});
    if (sql == kPageFactsSql) q->Bind(3, page->value());
    if (sql == kSubjectFactsSql || sql == kValueFactsSql) q->Bind(3, names[0]).Bind(4, names[1]);
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
  }
  // Subjects and entity values: each distinct (target, folder) resolved once.
  LinkMemo memo(scope);
  std::map<int64_t, std::pair<std::string, std::string>> shown;  // page id -> slug, title (if the scope sees it)
  auto names_of = [&](int64_t id) -> Result<std::pair<std::string, std::string>> {
    auto seen = shown.find(id);
    if (seen == shown.end()) {
      ENGRAM_ASSIGN_OR_RETURN(Stmt * pq, S("SELECT slug, title, visibility FROM pages WHERE id = ?"));
      pq->Bind(1, id);
      std::pair<std::string, std::string> found;
      if (pq->Step() && (scope.include_private || pq->Text(2) != "private")) found = {pq->Text(0), pq->Text(1)};
      ENGRAM_RETURN_IF_ERROR(pq->status());
      pq->Reset();
      seen = shown.emplace(id, std::move(found)).first;
    }
    return seen->second;
  };
  std::vector<FactRecord> kept;
  kept.reserve(out.size());
  for (FactRecord& r : out) {
    const std::string folder = text::FolderKey(r.page_path);
    std::optional<int64_t> subject = r.page_id.value();
    if (r.fact.subject.empty()) {
      r.subject_slug = r.page_slug;
      r.subject_title = r.page_title;
    } else {
      ENGRAM_ASSIGN_OR_RETURN(subject, ResolveLinkOnce(source_id, r.fact.subject, folder, &memo));
      if (subject) {
        ENGRAM_ASSIGN_OR_RETURN(auto n, names_of(*subject));
        std::tie(r.subject_slug, r.subject_title) = n;
      }
    }
    std::optional<int64_t> value;
    if (r.fact.value_is_link) {
      ENGRAM_ASSIGN_OR_RETURN(value, ResolveLinkOnce(source_id, r.fact.value, folder, &memo));
      if (value) {
        ENGRAM_ASSIGN_OR_RETURN(auto n, names_of(*value));
        std::tie(r.value_slug, r.value_title) = n;
      }
    }
    if (page && side == FactSide::kAbout && subject != page->value()) continue;
    if (page && side == FactSide::kValue && value != page->value()) continue;
    kept.push_back(std::move(r));
  }
  std::stable_sort(kept.begin(), kept.end(), [](const FactRecord& a, const FactRecord& b) {
    return std::tie(a.page_slug, a.fact.line, a.id) < std::tie(b.page_slug, b.fact.line, b.id);
  });
  return kept;
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
