// PostgreSQL inside a write transaction (SqlEngine::BatchState): a page's rows
// are sent without waiting for answers. What would need an answer is known
// beforehand: ids come from blocks of the tables' sequences, and after the
// first pages of a batch the source's page names and every term are read
// once. The writer's lease keeps every other writer out meanwhile, so what
// was read stays complete until the commit.
#include "store/sql/sql_engine.h"

namespace engram::store::sql {

namespace {
// Pages of a batch written with look-ups before the names and terms are read whole: a one-page write
// never pays for reading them. And on a large brain a batch reads them whole only once it is long enough
// to repay it: a look-up saves ~0.2 ms a page, reading a row costs ~1 µs, so after (rows / 200) pages.
constexpr int kPagesBeforeReadingAll = 16;
constexpr int64_t kRowsPerPageRepaid = 200;
// Fewer pages than this never make the statistics worth taking again.
constexpr int64_t kPagesWorthAnalysing = 100;
// The tables whose statistics the searches' plans depend on, from a sample of 3,000 rows a table (not
// 30,000): enough to choose between an index and a scan, at a tenth of the time (0.5 s after a 10,000-page
// import); autovacuum's next ANALYZE takes the full sample.
constexpr const char* kAnalyseSql =
    "SET default_statistics_target = 10; "
    "ANALYZE pages, chunks, terms, postings, title_postings, links, tags, aliases, timeline_entries, facts, sources; "
    "RESET default_statistics_target";
}  // namespace

Result<int64_t> SqlEngine::EstimatedRows(const std::string& table) {
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass(?)"));
  q->Bind(1, table);
  const int64_t rows = q->Step() ? q->Int(0) : 0;
  ENGRAM_RETURN_IF_ERROR(q->status());
  q->Reset();
  return rows;
}

void SqlEngine::AnalyseIfGrown(int pages_written) {
  pages_since_analyse_ += pages_written;
  if (pages_since_analyse_ < std::max(kPagesWorthAnalysing, pages_before_analyse_)) return;
  const Result<int64_t> reltuples = EstimatedRows("pages");
  if (!reltuples.ok()) return;
  if (*reltuples >= 0 && pages_since_analyse_ * 4 < *reltuples) {
    pages_before_analyse_ = *reltuples / 4;
    return;
  }
  // Statistics are a hint: a refused ANALYZE (another owner's tables) leaves the commit as it was.
  if (conn_->Exec(kAnalyseSql).ok()) pages_since_analyse_ = 0;
  pages_before_analyse_ = 0;
}

Result<bool> SqlEngine::LongEnoughToReadAll(const std::string& table) {
  if (batch_.pages < kPagesBeforeReadingAll) return false;
  auto it = batch_.rows.find(table);
  if (it == batch_.rows.end()) {
    // The planner's estimate: free, and near enough (never analysed counts as small).
    ENGRAM_ASSIGN_OR_RETURN(const int64_t rows, EstimatedRows(table));
    it = batch_.rows.emplace(table, std::max<int64_t>(rows, 0)).first;
  }
  return batch_.pages >= it->second / kRowsPerPageRepaid;
}

Result<bool> SqlEngine::KnownAbsent(int64_t source_id, const std::string& slug) {
  if (!pg_ || !in_transaction_) return false;
  if (batch_.names_source != source_id) {
    ENGRAM_ASSIGN_OR_RETURN(const bool read_all, LongEnoughToReadAll("pages"));
    if (!read_all) return false;
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT slug FROM pages WHERE source_id = ?"));
    q->Bind(1, source_id);
    batch_.names.clear();
    while (q->Step()) batch_.names.insert(q->Text(0));
    ENGRAM_RETURN_IF_ERROR(q->status());
    batch_.names_source = source_id;
  }
  return batch_.names.count(slug) == 0;
}

Result<int64_t> SqlEngine::ReservedId(const std::string& table) {
  std::vector<int64_t>& ids = batch_.reserved[table];
  if (ids.empty()) {
    // Blocks grow with the batch: a short one burns few ids, a long one asks seldom.
    int64_t& block = batch_.block[table];
    block = std::min<int64_t>(std::max<int64_t>(block * 2, 8), 1024);
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT nextval(pg_get_serial_sequence(?, 'id')) FROM generate_series(1, ?)"));
    q->Bind(1, table).Bind(2, block);
    while (q->Step()) ids.push_back(q->Int(0));
    ENGRAM_RETURN_IF_ERROR(q->status());
    if (ids.empty()) return Status::Internal("no ids came from the sequence of " + table);
    std::sort(ids.rbegin(), ids.rend());  // the smallest taken first, from the back
  }
  const int64_t id = ids.back();
  ids.pop_back();
  return id;
}

Result<int64_t> SqlEngine::InsertPageWithReservedId(const PageWrite& w, int64_t source_id,
                                                    const std::string& title_blob, const NewPageDates& d) {
  const Page& page = w.page;
  ENGRAM_ASSIGN_OR_RETURN(int64_t id, ReservedId("pages"));
  ENGRAM_ASSIGN_OR_RETURN(Stmt * ins, S("INSERT INTO pages(id, source_id, slug, path, type, title, frontmatter, "
                                        "compiled_truth, timeline, content, content_hash, visibility, title_terms, "
                                        "title_length, created_at, updated_at, path_key, name_key, indexed_at) "
                                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  ins->Bind(1, id).Bind(2, source_id).Bind(3, page.slug).Bind(4, page.path).Bind(5, page.type).Bind(6, page.title);
  ins->Bind(7, page.frontmatter_json).Bind(8, page.compiled_truth).Bind(9, page.timeline).Bind(10, w.content);
  ins->Bind(11, w.content_hash).Bind(12, std::string_view(page.is_private ? "private" : "public"));
  ins->BindBlob(13, title_blob).Bind(14, int64_t{w.title_terms.length}).Bind(15, d.created).Bind(16, d.date);
  ins->Bind(17, d.path_key).Bind(18, d.name_key).Bind(19, d.now);
  ENGRAM_RETURN_IF_ERROR(ins->Send());
  if (batch_.names_source == source_id) batch_.names.insert(page.slug);
  return id;
}

Result<bool> SqlEngine::KnowAllTerms() {
  if (!pg_ || !in_transaction_) return false;
  if (batch_.terms_known) return true;
  ENGRAM_ASSIGN_OR_RETURN(const bool read_all, LongEnoughToReadAll("terms"));
  if (!read_all) return false;
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("SELECT term, id FROM terms"));
  while (q->Step()) term_ids_.Put(q->Text(0), q->Int(1));
  ENGRAM_RETURN_IF_ERROR(q->status());
  batch_.terms_known = true;
  return true;
}

Status SqlEngine::InsertNewTerms(const std::vector<std::string>& terms) {
  std::vector<int64_t> ids;
  ids.reserve(terms.size());
  for (size_t i = 0; i < terms.size(); ++i) {
    ENGRAM_ASSIGN_OR_RETURN(int64_t id, ReservedId("terms"));
    ids.push_back(id);
  }
  ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("INSERT INTO terms(id, term) SELECT * FROM unnest(?::bigint[], ?::text[])"));
  q->Bind(1, IntArray(ids)).Bind(2, TextArray(terms));
  ENGRAM_RETURN_IF_ERROR(q->Send());
  if (!ids.empty() && (pending_terms_.empty() || first_new_term_id_ == 0)) first_new_term_id_ = ids.front();
  for (size_t i = 0; i < terms.size(); ++i) {
    term_ids_.Put(terms[i], ids[i]);
    pending_terms_.push_back(terms[i]);
  }
  return Status::Ok();
}

}  // namespace engram::store::sql
