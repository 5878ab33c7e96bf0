// Keyword search benchmark: engram against SQLite FTS5 (porter unicode61,
// query terms OR-joined, ranked by bm25()) and Xapian (BM25, OR query) on the
// same corpus in the same run, single thread. Every engine indexes first;
// then the queries run twice: each engine alone (all its rounds in a row),
// and interleaved (every query asked of each engine in turn).
//
// Usage:
//   keyword_bench --corpus C --queries Q --qrels R [--rounds N] [--name NAME]
//   keyword_bench --synthetic 100000 [--rounds N]
//   --engine NAME[,NAME...] runs only those engines (engram, sqlite-fts5, xapian)
//   --serial 1 indexes engram on one thread (default: analysis and writes pipelined on two)
//   --engram-db PATH keeps engram's index at PATH and, when PATH exists, queries it without indexing
//     (for profiling the query path; the index time is then 0)
// Prints one JSON object per engine and order per line ("order": "alone" or "interleaved").
#include <sqlite3.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#ifdef ENGRAM_HAVE_XAPIAN
#include <xapian.h>
#endif

#include "common/pipeline.h"
#include "engram/engine.h"
#include "engram/store/open_store.h"
#include "ops/eval.h"
#include "search/keyword_search.h"
#include "search/metrics.h"
#include "sync/page_indexer.h"
#include "text/slug.h"

namespace {

using engram::ops::BeirDoc;
using engram::ops::BeirSet;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;
namespace fs = std::filesystem;

bool g_serial = false;  // --serial: index on one thread
std::string g_engram_db;  // --engram-db: keep engram's index here, and reuse it when it exists

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

struct Scratch {
  Scratch() {
    std::string t = (fs::temp_directory_path() / "engram-bench-XXXXXX").string();
    if (::mkdtemp(t.data()) == nullptr) std::abort();
    path = t;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path path;
};

// One engine under test: build an index, then answer a query with doc ids.
struct Runner {
  std::string name;
  std::function<void(const BeirSet&)> build;
  std::function<std::vector<std::string>(const std::string&)> query;
};

// What one engine measured: its index time, then its query latencies.
struct Measurement {
  double index_s = 0;
  std::vector<double> lat;
  double query_s = 0;  // the time spent in its queries, for queries/s
  double ndcg = 0;
};

// One query against one engine.
void TimeQuery(Runner& r, const BeirSet& set, const engram::ops::BeirQuery& q, bool judge, Measurement* m) {
  auto s = Clock::now();
  std::vector<std::string> ranked = r.query(q.text);
  double ms = std::chrono::duration<double, std::milli>(Clock::now() - s).count();
  m->lat.push_back(ms);
  m->query_s += ms / 1000;
  if (judge) {
    auto it = set.qrels.find(q.id);
    if (it != set.qrels.end()) m->ndcg += engram::search::NdcgAtK(ranked, it->second, 10);
  }
}

Json Report(const Runner& r, const Measurement& m, const BeirSet& set, const std::string& dataset,
            const char* order) {
  Json j = {{"dataset", dataset},
            {"engine", r.name},
            {"order", order},
            {"docs", set.docs.size()},
            {"queries", set.queries.size()},
            {"index_seconds", m.index_s},
            {"docs_per_second", static_cast<double>(set.docs.size()) / m.index_s},
            {"p50_ms", engram::search::Percentile(m.lat, 50)},
            {"p95_ms", engram::search::Percentile(m.lat, 95)},
            {"p99_ms", engram::search::Percentile(m.lat, 99)},
            {"qps", static_cast<double>(m.lat.size()) / m.query_s}};
  if (!set.qrels.empty()) j["ndcg@10"] = m.ndcg / static_cast<double>(set.queries.size());
  return j;
}

Runner EngramRunner(Scratch& scratch) {
  auto state = std::make_shared<std::pair<std::unique_ptr<engram::Engine>, std::map<std::string, std::string>>>();
  Runner r;
  r.name = "engram";
  r.build = [state, &scratch](const BeirSet& set) {
    engram::EngineOptions o;
    o.create_if_missing = true;
    const fs::path db = g_engram_db.empty() ? scratch.path / "engram.db" : fs::path(g_engram_db);
    const bool reuse = !g_engram_db.empty() && fs::exists(db);
    state->first = std::move(engram::OpenSqliteStore(db, o)).value();
    engram::Engine& e = *state->first;
    if (reuse) {  // the docs' slugs, as PreparePage makes them
      for (const BeirDoc& d : set.docs) state->second[engram::text::SlugFromPath("docs/" + d.id + ".md")] = d.id;
      return;
    }
    // As `engram import` and `engram eval` do: analysis on a worker thread,
    // writes on this one.
    auto txn = e.Begin();
    if (!txn.ok()) std::abort();
    auto prepare = [&](size_t i) {
      const BeirDoc& d = set.docs[i];
      return engram::sync::PreparePage("docs/" + d.id + ".md", engram::ops::BeirDocMarkdown(d), {});
    };
    auto write = [&](size_t i, engram::Result<engram::PageWrite>& w) -> engram::Status {
      if (!w.ok()) return w.status();
      state->second[w->page.slug] = set.docs[i].id;
      return e.PutPage(*w).status();
    };
    engram::Status st;
    if (g_serial) {  // one thread: analysis and writes one after the other
      for (size_t i = 0; i < set.docs.size() && st.ok(); ++i) {
        auto w = prepare(i);
        st = write(i, w);
      }
    } else {
      st = engram::common::RunPipelined<engram::Result<engram::PageWrite>>(set.docs.size(), prepare, write);
    }
    if (!st.ok() || !txn->Commit().ok()) std::abort();
  };
  r.query = [state](const std::string& q) {
    engram::SearchOptions so;
    so.limit = 10;
    so.include_private = true;
    std::vector<std::string> out;
    auto res = engram::search::KeywordSearch(*state->first, q, so);
    if (res.ok()) {
      for (const auto& h : res->results) out.push_back(state->second[h.slug]);
    }
    return out;
  };
  return r;
}

// FTS5 query: every word, quoted, OR-joined (the "plain BM25" baseline of FIELD.md).
std::string Fts5Query(const std::string& text) {
  std::string out, word;
  auto flush = [&] {
    if (word.empty()) return;
    if (!out.empty()) out += " OR ";
    out += "\"" + word + "\"";
    word.clear();
  };
  for (unsigned char c : text) {
    if (std::isalnum(c) || c >= 0x80) word.push_back(static_cast<char>(c));
    else flush();
  }
  flush();
  return out;
}

Runner Fts5Runner(Scratch& scratch) {
  auto db = std::make_shared<sqlite3*>(nullptr);
  auto ids = std::make_shared<std::vector<std::string>>();
  Runner r;
  r.name = "sqlite-fts5";
  r.build = [db, ids, &scratch](const BeirSet& set) {
    sqlite3_open((scratch.path / "fts5.db").c_str(), db.get());
    sqlite3_exec(*db, "PRAGMA journal_mode=WAL; CREATE VIRTUAL TABLE docs USING fts5(title, text, tokenize='porter unicode61');"
                      "BEGIN;", nullptr, nullptr, nullptr);
    sqlite3_stmt* ins = nullptr;
    sqlite3_prepare_v2(*db, "INSERT INTO docs(rowid, title, text) VALUES (?, ?, ?)", -1, &ins, nullptr);
    for (size_t i = 0; i < set.docs.size(); ++i) {
      sqlite3_bind_int64(ins, 1, static_cast<int64_t>(i));
      sqlite3_bind_text(ins, 2, set.docs[i].title.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(ins, 3, set.docs[i].text.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_step(ins);
      sqlite3_reset(ins);
      ids->push_back(set.docs[i].id);
    }
    sqlite3_finalize(ins);
    sqlite3_exec(*db, "COMMIT", nullptr, nullptr, nullptr);
  };
  r.query = [db, ids](const std::string& q) {
    std::vector<std::string> out;
    std::string match = Fts5Query(q);
    if (match.empty()) return out;
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(*db, "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT 10", -1, &st, nullptr);
    sqlite3_bind_text(st, 1, match.c_str(), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(st) == SQLITE_ROW) out.push_back((*ids)[static_cast<size_t>(sqlite3_column_int64(st, 0))]);
    sqlite3_finalize(st);
    return out;
  };
  return r;
}

#ifdef ENGRAM_HAVE_XAPIAN
Runner XapianRunner(Scratch& scratch) {
  auto db = std::make_shared<Xapian::WritableDatabase>();
  Runner r;
  r.name = "xapian";
  r.build = [db, &scratch](const BeirSet& set) {
    *db = Xapian::WritableDatabase((scratch.path / "xapian").string(), Xapian::DB_CREATE_OR_OVERWRITE);
    Xapian::TermGenerator gen;
    gen.set_stemmer(Xapian::Stem("english"));
    db->begin_transaction();
    for (const BeirDoc& d : set.docs) {
      Xapian::Document doc;
      gen.set_document(doc);
      gen.index_text(d.title);
      gen.increase_termpos();
      gen.index_text(d.text);
      doc.set_data(d.id);
      db->add_document(doc);
    }
    db->commit_transaction();
  };
  r.query = [db](const std::string& q) {
    Xapian::QueryParser parser;
    parser.set_stemmer(Xapian::Stem("english"));
    parser.set_stemming_strategy(Xapian::QueryParser::STEM_SOME);
    parser.set_default_op(Xapian::Query::OP_OR);
    Xapian::Enquire enquire(*db);
    std::vector<std::string> out;
    try {
      enquire.set_query(parser.parse_query(q));
      Xapian::MSet m = enquire.get_mset(0, 10);
      for (auto it = m.begin(); it != m.end(); ++it) out.push_back(it.get_document().get_data());
    } catch (const Xapian::Error&) {
    }
    return out;
  };
  return r;
}
#endif

// A synthetic brain: Zipf-distributed words (English-like and Chinese), docs
// of 120-280 words (one chunk each), queries of 2-8 words. Deterministic.
BeirSet Synthetic(size_t docs, size_t queries) {
  std::mt19937_64 rng(20261130);
  const size_t vocab = 60000;
  std::vector<std::string> words;
  words.reserve(vocab);
  const char* syll[] = {"ka", "ro", "mi", "ten", "sa", "lo", "ve", "dri", "on", "qua", "zel", "pa", "ny", "tor"};
  const char* han[] = {"数", "据", "检", "索", "知", "识", "模", "型", "机", "器", "学", "习", "图", "谱"};
  for (size_t i = 0; i < vocab; ++i) {
    std::string w;
    size_t x = i;
    bool chinese = i % 5 == 0;
    do {
      w += chinese ? han[x % 14] : syll[x % 14];
      x /= 14;
    } while (x > 0);
    words.push_back(w);
  }
  std::vector<double> weights(vocab);
  for (size_t i = 0; i < vocab; ++i) weights[i] = 1.0 / static_cast<double>(i + 1);
  std::discrete_distribution<size_t> zipf(weights.begin(), weights.end());
  BeirSet set;
  for (size_t d = 0; d < docs; ++d) {
    size_t len = 120 + rng() % 160;
    std::string text;
    for (size_t i = 0; i < len; ++i) {
      text += words[zipf(rng)];
      text += (i % 15 == 14) ? ". " : " ";
    }
    std::string id = "s";
    set.docs.push_back({id.append(std::to_string(d)), "", text});
  }
  for (size_t q = 0; q < queries; ++q) {
    size_t len = 2 + rng() % 7;
    std::string text;
    for (size_t i = 0; i < len; ++i) text += words[zipf(rng) % 20000] + " ";
    std::string id = "q";
    set.queries.push_back({id.append(std::to_string(q)), text});
  }
  return set;
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus, queries, qrels, name = "corpus";
  size_t synthetic = 0;
  int rounds = 3;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--corpus") corpus = v;
    else if (a == "--queries") queries = v;
    else if (a == "--qrels") qrels = v;
    else if (a == "--name") name = v;
    else if (a == "--synthetic") synthetic = std::stoul(v);
    else if (a == "--rounds") rounds = std::stoi(v);
    else if (a == "--engine") only = v;
    else if (a == "--serial") g_serial = v == "1";
    else if (a == "--engram-db") g_engram_db = v;
    else {
      std::fprintf(stderr, "unknown flag %s\n", a.c_str());
      return 2;
    }
  }
  BeirSet set;
  if (synthetic > 0) {
    set = Synthetic(synthetic, 300);
    name = "synthetic-" + std::to_string(synthetic);
  } else {
    auto loaded = engram::ops::LoadBeir(corpus, queries, qrels);
    if (!loaded.ok()) {
      std::fprintf(stderr, "%s\n", loaded.status().ToString().c_str());
      return 1;
    }
    set = std::move(loaded).value();
  }
  Scratch scratch;
  std::vector<Runner> runners = {EngramRunner(scratch), Fts5Runner(scratch)};
#ifdef ENGRAM_HAVE_XAPIAN
  runners.push_back(XapianRunner(scratch));
#endif
  if (!only.empty()) {
    const std::string wanted = "," + only + ",";  // a comma-separated list of engines
    runners.erase(std::remove_if(runners.begin(), runners.end(),
                                 [&](const Runner& r) { return wanted.find("," + r.name + ",") == std::string::npos; }),
                  runners.end());
  }
  // Every index first. Then two orders: "alone" gives each engine all its
  // rounds in a row (its caches stay warm, as on a machine that runs only
  // it); "interleaved" asks each query of every engine in turn, so that load
  // drifting on a shared machine weighs on every engine alike, but each
  // query then finds the CPU caches full of another engine's data.
  std::vector<Measurement> alone(runners.size()), interleaved(runners.size());
  for (size_t i = 0; i < runners.size(); ++i) {
    auto t0 = Clock::now();
    runners[i].build(set);
    alone[i].index_s = interleaved[i].index_s = Seconds(t0, Clock::now());
  }
  for (size_t i = 0; i < runners.size(); ++i) {
    for (int round = 0; round < rounds; ++round) {
      for (const auto& q : set.queries) TimeQuery(runners[i], set, q, round == 0, &alone[i]);
    }
  }
  if (runners.size() > 1) {
    for (int round = 0; round < rounds; ++round) {
      for (const auto& q : set.queries) {
        for (size_t i = 0; i < runners.size(); ++i) TimeQuery(runners[i], set, q, round == 0, &interleaved[i]);
      }
    }
  }
  for (size_t i = 0; i < runners.size(); ++i) {
    std::printf("%s\n", Report(runners[i], alone[i], set, name, "alone").dump().c_str());
  }
  for (size_t i = 0; i < runners.size() && runners.size() > 1; ++i) {
    std::printf("%s\n", Report(runners[i], interleaved[i], set, name, "interleaved").dump().c_str());
  }
  std::fflush(stdout);
  return 0;
}
