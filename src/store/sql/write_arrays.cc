// PostgreSQL's page writes: a page's rows of one table in one statement, the
// values as arrays (unnest keeps their order). The same rows as write.cc's
// statements per row; the server's cost per statement was most of a page's.
#include "common/hash.h"
#include "store/sql/sql_engine.h"
#include "text/page_links.h"

namespace engram::store::sql {

Result<std::vector<int64_t>> SqlEngine::InsertChunksAsArrays(const PageWrite& w, int64_t page_id,
                                                             const std::vector<std::vector<int64_t>>& term_ids) {
  std::vector<int64_t> ids(w.chunks.size(), 0);
  if (w.chunks.empty()) return ids;
  std::vector<int64_t> ordinals, token_counts, starts, ends, lengths;
  std::vector<std::string> sources, texts, terms;
  for (size_t k = 0; k < w.chunks.size(); ++k) {
    const ChunkWrite& c = w.chunks[k];
    ordinals.push_back(c.ordinal);
    sources.emplace_back(ChunkSourceName(c.source));
    texts.push_back(c.text);
    token_counts.push_back(c.token_count);
    starts.push_back(c.line_start);
    ends.push_back(c.line_end);
    terms.push_back(std::string("\\x") + common::HexEncode(store::EncodeIds(term_ids[k])));  // bytea's text form
    lengths.push_back(c.terms.length);
  }
  if (in_transaction_) {
    // A batch: the ids are known before the rows are written (BatchState), and the rows go without waiting.
    for (size_t k = 0; k < w.chunks.size(); ++k) {
      ENGRAM_ASSIGN_OR_RETURN(ids[k], ReservedId("chunks"));
    }
    ENGRAM_ASSIGN_OR_RETURN(
        Stmt * q, S("INSERT INTO chunks(page_id, id, ordinal, source, text, token_count, line_start, line_end, "
                    "terms, term_length) SELECT ?::bigint, * FROM unnest(?::bigint[], ?::bigint[], ?::text[], "
                    "?::text[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bytea[], ?::bigint[])"));
    q->Bind(1, page_id).Bind(2, IntArray(ids)).Bind(3, IntArray(ordinals)).Bind(4, TextArray(sources));
    q->Bind(5, TextArray(texts)).Bind(6, IntArray(token_counts)).Bind(7, IntArray(starts)).Bind(8, IntArray(ends));
    q->Bind(9, TextArray(terms)).Bind(10, IntArray(lengths));
    ENGRAM_RETURN_IF_ERROR(q->Send());
    return ids;
  }
  ENGRAM_ASSIGN_OR_RETURN(
      Stmt * q, S("INSERT INTO chunks(page_id, ordinal, source, text, token_count, line_start, line_end, terms, "
                  "term_length) SELECT ?::bigint, * FROM unnest(?::bigint[], ?::text[], ?::text[], ?::bigint[], "
                  "?::bigint[], ?::bigint[], ?::bytea[], ?::bigint[]) RETURNING ordinal, id"));
  q->Bind(1, page_id).Bind(2, IntArray(ordinals)).Bind(3, TextArray(sources)).Bind(4, TextArray(texts));
  q->Bind(5, IntArray(token_counts)).Bind(6, IntArray(starts)).Bind(7, IntArray(ends)).Bind(8, TextArray(terms));
  q->Bind(9, IntArray(lengths));
  std::unordered_map<int64_t, int64_t> by_ordinal;
  while (q->Step()) by_ordinal.emplace(q->Int(0), q->Int(1));
  ENGRAM_RETURN_IF_ERROR(q->status());
  for (size_t k = 0; k < w.chunks.size(); ++k) {
    auto it = by_ordinal.find(w.chunks[k].ordinal);
    if (it == by_ordinal.end()) return Status::Internal("a chunk's row came back without its id");
    ids[k] = it->second;
  }
  return ids;
}

Status SqlEngine::WritePageFactsAsArrays(const Page& page, int64_t id) {
  if (!page.links.empty()) {
    std::vector<std::string> targets, names, types, labels, contexts;
    for (const PageLink& l : page.links) {
      targets.push_back(l.target);
      // Attachments are files, never found by a page's name.
      names.push_back(l.type == text::kAttachmentLinkType ? "" : text::LinkName(l.target));
      types.push_back(l.type);
      labels.push_back(l.label);
      contexts.push_back(l.context);
    }
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("INSERT INTO links(from_page, to_slug, to_name, type, label, context) "
                                        "SELECT ?::bigint, * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], "
                                        "?::text[])"));
    q->Bind(1, id).Bind(2, TextArray(targets)).Bind(3, TextArray(names)).Bind(4, TextArray(types));
    q->Bind(5, TextArray(labels)).Bind(6, TextArray(contexts));
    ENGRAM_RETURN_IF_ERROR(q->Send());
  }
  if (!page.tags.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("INSERT INTO tags(page_id, tag) SELECT ?::bigint, unnest(?::text[]) "
                                        "ON CONFLICT DO NOTHING"));
    q->Bind(1, id).Bind(2, TextArray(page.tags));
    ENGRAM_RETURN_IF_ERROR(q->Send());
  }
  if (!page.aliases.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("INSERT INTO aliases(page_id, alias) SELECT ?::bigint, unnest(?::text[]) "
                                        "ON CONFLICT DO NOTHING"));
    q->Bind(1, id).Bind(2, TextArray(page.aliases));
    ENGRAM_RETURN_IF_ERROR(q->Send());
  }
  if (!page.timeline_entries.empty()) {
    std::vector<std::string> dates, summaries, hashes, sources;
    std::vector<int64_t> lines;
    for (const TimelineEntry& e : page.timeline_entries) {
      dates.push_back(e.date);
      summaries.push_back(e.summary);
      hashes.push_back(common::Sha256Hex(e.summary));
      sources.push_back(e.source);
      lines.push_back(e.line);
    }
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("INSERT INTO timeline_entries(page_id, date, summary, summary_hash, source, "
                                        "line) SELECT ?::bigint, * FROM unnest(?::text[], ?::text[], ?::text[], "
                                        "?::text[], ?::bigint[]) ON CONFLICT DO NOTHING"));
    q->Bind(1, id).Bind(2, TextArray(dates)).Bind(3, TextArray(summaries)).Bind(4, TextArray(hashes));
    q->Bind(5, TextArray(sources)).Bind(6, IntArray(lines));
    ENGRAM_RETURN_IF_ERROR(q->Send());
  }
  if (!page.facts.empty()) {
    std::vector<std::string> subjects, subject_names, predicates, values, value_names, froms, untils, origins;
    std::vector<int64_t> links, lines;
    for (const PageFact& f : page.facts) {
      subjects.push_back(f.subject);
      subject_names.push_back(f.subject.empty() ? "" : text::LinkName(f.subject));
      predicates.push_back(f.predicate);
      values.push_back(f.value);
      links.push_back(f.value_is_link ? 1 : 0);
      value_names.push_back(f.value_is_link ? text::LinkName(f.value) : "");
      froms.push_back(f.valid_from);
      untils.push_back(f.valid_until);
      lines.push_back(f.line);
      origins.push_back(f.origin);
    }
    ENGRAM_ASSIGN_OR_RETURN(Stmt * q, S("INSERT INTO facts(page_id, subject, subject_name, predicate, value, "
                                        "value_is_link, value_name, valid_from, valid_until, line, origin) "
                                        "SELECT ?::bigint, * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], "
                                        "?::bigint[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[])"));
    q->Bind(1, id).Bind(2, TextArray(subjects)).Bind(3, TextArray(subject_names)).Bind(4, TextArray(predicates));
    q->Bind(5, TextArray(values)).Bind(6, IntArray(links)).Bind(7, TextArray(value_names));
    q->Bind(8, TextArray(froms)).Bind(9, TextArray(untils)).Bind(10, IntArray(lines)).Bind(11, TextArray(origins));
    ENGRAM_RETURN_IF_ERROR(q->Send());
  }
  return Status::Ok();
}

}  // namespace engram::store::sql
