// A search result row from a stored chunk (both keyword and hybrid search).
#pragma once

#include "engram/engine.h"
#include "engram/search.h"
#include "search/dated.h"

namespace engram::search {

inline SearchHit HitFromChunk(const ChunkRecord& r, float score) {
  SearchHit hit;
  hit.chunk_id = r.chunk_id;
  hit.page_id = r.page_id;
  hit.slug = r.slug;
  hit.title = r.title;
  hit.type = r.type;
  hit.score = score;
  hit.chunk_source = r.chunk_source;
  hit.text = r.text;
  hit.path = r.path;
  hit.line_start = r.line_start;
  hit.line_end = r.line_end;
  hit.date = r.updated_at.substr(0, 10);
  hit.chunk_dates = ChunkDates(r.text);
  return hit;
}

}  // namespace engram::search
