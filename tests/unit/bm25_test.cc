// The bm25 module against oracles: a naive BM25 scan, the exhaustive top k,
// and the same corpus behind two posting stores (the SQLite engine and an
// in-memory one with sparse ids) ranked identically.
#include "bm25/searcher.h"
#include "bm25/threshold_seed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <unordered_set>

#include "engram/engine.h"
#include "engram/store/open_store.h"
#include "store/postings_codec.h"
#include "sync/page_indexer.h"
#include "test_stores.h"
#include "test_support.h"
#include "text/analyzer.h"

namespace engram {
namespace {

using testing::TempDir;

using testing::Prepare;
using testing::OpenFresh;

Result<std::vector<KeywordHit>> SearchChunks(Engine& e, const KeywordQuery& q) {
  return bm25::Searcher(e.Postings()).SearchChunks(q);
}

// Oracle: BM25 computed naively over the analysed chunks must equal the
// module's scores (over the SQLite engine's lists) for random documents and
// queries.
TEST(Bm25, MatchesANaiveScan) {
  TempDir dir;
  auto e = OpenFresh(dir);
  std::mt19937 rng(7);
  const std::vector<std::string> vocab = {"apple", "river", "stone", "cloud", "engine", "模型", "检索", "forest",
                                          "signal", "orbit", "garden", "知识"};
  std::map<std::string, std::vector<std::string>> docs;  // slug -> analysed terms
  for (int d = 0; d < 60; ++d) {
    std::string text;
    int len = 3 + static_cast<int>(rng() % 40);
    for (int i = 0; i < len; ++i) text += vocab[rng() % vocab.size()] + " ";
    std::string slug = "d";
    slug += std::to_string(d);
    ASSERT_TRUE(e->PutPage(Prepare(slug + std::string(".md"), text)).ok());
    docs[slug] = text::AnalyzeTerms(text);
  }
  double total = 0;
  for (auto& [s, t] : docs) total += static_cast<double>(t.size());
  const double n = static_cast<double>(docs.size()), avgdl = total / n, k1 = 0.9, b = 0.4;
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<std::string> qterms = {text::AnalyzeTerms(vocab[rng() % vocab.size()])[0],
                                       text::AnalyzeTerms(vocab[rng() % vocab.size()])[0]};
    std::map<std::string, double> want;
    for (const auto& qt : qterms) {
      double df = 0;
      for (auto& [s, t] : docs) df += std::count(t.begin(), t.end(), qt) > 0 ? 1 : 0;
      if (df == 0) continue;
      double idf = std::log(1 + (n - df + 0.5) / (df + 0.5));
      for (auto& [s, t] : docs) {
        double tf = static_cast<double>(std::count(t.begin(), t.end(), qt));
        if (tf == 0) continue;
        want[s] += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * static_cast<double>(t.size()) / avgdl));
      }
    }
    KeywordQuery q;
    for (const auto& qt : qterms) q.terms.push_back({qt});
    q.limit = 1000;
    auto hits = SearchChunks(*e, q);
    ASSERT_TRUE(hits.ok());
    ASSERT_EQ(hits->size(), want.size());
    auto chunks = e->GetChunks(ReadScope::All("default"), [&] {
      std::vector<ChunkId> ids;
      for (const auto& h : *hits) ids.push_back(h.chunk_id);
      return ids;
    }());
    ASSERT_TRUE(chunks.ok());
    for (size_t i = 0; i < hits->size(); ++i) {
      EXPECT_NEAR((*hits)[i].score, want[(*chunks)[i].slug], 1e-3) << (*chunks)[i].slug;
      if (i > 0) {
        EXPECT_GE((*hits)[i - 1].score, (*hits)[i].score);
      }
    }
  }
}

// Oracle: a shallow search (which prunes) returns exactly the head of a deep
// search (which cannot prune: fewer docs than the limit), scores included.
TEST(Bm25, PrunedTopKEqualsTheExhaustiveTopK) {
  TempDir dir;
  auto e = OpenFresh(dir);
  std::mt19937 rng(11);
  std::vector<double> weights;
  for (int i = 0; i < 400; ++i) weights.push_back(1.0 / (i + 1));
  std::discrete_distribution<int> zipf(weights.begin(), weights.end());
  auto txn = e->Begin();
  ASSERT_TRUE(txn.ok());
  for (int d = 0; d < 1500; ++d) {
    std::string text;
    int len = 5 + static_cast<int>(rng() % 60);
    for (int i = 0; i < len; ++i) {
      text += "w";
      text += std::to_string(zipf(rng));
      text += ' ';
    }
    std::string path = "d";
    path += std::to_string(d);
    path += ".md";
    ASSERT_TRUE(e->PutPage(Prepare(path, text)).ok());
  }
  ASSERT_TRUE(txn->Commit().ok());
  for (int trial = 0; trial < 40; ++trial) {
    KeywordQuery q;
    int n = 2 + trial % 6;
    for (int i = 0; i < n; ++i) {
      std::string t = "w";
      t += std::to_string(trial % 2 ? zipf(rng) : static_cast<int>(rng() % 400));
      q.terms.push_back({t});
    }
    q.limit = 5;
    auto shallow = SearchChunks(*e, q);
    q.limit = 100000;
    auto deep = SearchChunks(*e, q);
    ASSERT_TRUE(shallow.ok() && deep.ok());
    ASSERT_EQ(shallow->size(), std::min<size_t>(5, deep->size()));
    for (size_t i = 0; i < shallow->size(); ++i) {
      EXPECT_EQ((*shallow)[i].chunk_id, (*deep)[i].chunk_id) << "trial " << trial << " rank " << i;
      EXPECT_FLOAT_EQ((*shallow)[i].score, (*deep)[i].score);
    }
  }
}

// The same oracle where pruning is hardest to get right: pages of several
// chunks (a page's best chunk decides), many exact ties (a small vocabulary,
// short chunks), private pages, exclusions, an allowed set, weighted
// repeats, both fields, and limits from 1 up. Hits must be equal: ids and
// scores, bit for bit, in order.
TEST(Bm25, PrunedTopKEqualsTheExhaustiveTopKUnderEveryFilter) {
  TempDir dir;
  auto e = OpenFresh(dir);
  std::mt19937 rng(29);
  std::vector<double> weights;
  for (int i = 0; i < 40; ++i) weights.push_back(1.0 / (i + 1));
  std::discrete_distribution<int> zipf(weights.begin(), weights.end());
  auto word = [&] {
    std::string w = "v";
    w += std::to_string(zipf(rng));
    return w;
  };
  auto txn = e->Begin();
  ASSERT_TRUE(txn.ok());
  std::vector<PageId> page_ids;
  for (int d = 0; d < 600; ++d) {
    std::string text = "---\ntitle: ";
    text.append(word()).append(" ").append(word()).append("\n");
    if (d % 9 == 4) text += "visibility: private\n";
    text += "---\n";
    for (int part = 0, parts = 1 + static_cast<int>(rng() % 4); part < parts; ++part) {
      text.append("## S").append(std::to_string(part)).append("\n\n");
      for (int i = 0, len = 2 + static_cast<int>(rng() % 9); i < len; ++i) text.append(word()).append(" ");
      text += "\n\n";
    }
    std::string path = "p";
    path += std::to_string(d);
    path += ".md";
    auto id = e->PutPage(Prepare(path, text));
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    page_ids.push_back(*id);
  }
  ASSERT_TRUE(txn->Commit().ok());
  std::vector<PageId> allowed_ids;
  for (size_t i = 0; i < page_ids.size(); i += 3) allowed_ids.push_back(page_ids[i]);
  const IdListSelector<PageId> allowed(allowed_ids);
  for (int trial = 0; trial < 120; ++trial) {
    KeywordQuery q;
    for (int i = 0, n = 1 + trial % 7; i < n; ++i) q.terms.push_back({word(), i % 3 == 2 ? 0.05f : 1.0f});
    if (trial % 5 == 1) q.terms.push_back(q.terms[0]);  // a repeat weighs twice
    q.include_private = trial % 2 == 0;
    if (trial % 4 == 3) q.excluded_groups = {{word()}, {word(), word()}};
    if (trial % 6 == 5) q.allowed_pages = &allowed;
    const size_t limit = 1 + static_cast<size_t>(trial % 13) * 3;
    const PostingField field = trial % 3 == 1 ? PostingField::kTitles : PostingField::kChunks;
    bm25::Searcher bm25(e->Postings());
    q.limit = limit;
    auto shallow = bm25.Search(q, field);
    q.limit = 100000;
    auto deep = bm25.Search(q, field);
    ASSERT_TRUE(shallow.ok() && deep.ok()) << shallow.status().ToString() << deep.status().ToString();
    ASSERT_EQ(shallow->size(), std::min(limit, deep->size())) << "trial " << trial;
    for (size_t i = 0; i < shallow->size(); ++i) {
      EXPECT_EQ((*shallow)[i].page_id, (*deep)[i].page_id) << "trial " << trial << " rank " << i;
      EXPECT_EQ((*shallow)[i].chunk_id, (*deep)[i].chunk_id) << "trial " << trial << " rank " << i;
      EXPECT_EQ((*shallow)[i].score, (*deep)[i].score) << "trial " << trial << " rank " << i;
    }
  }
}

TEST(Bm25, RequiredExcludedAndPrivateFilters) {
  TempDir dir;
  auto e = OpenFresh(dir);
  ASSERT_TRUE(e->PutPage(Prepare("a.md", "apple river")).ok());
  ASSERT_TRUE(e->PutPage(Prepare("b.md", "apple stone")).ok());
  ASSERT_TRUE(e->PutPage(Prepare("c.md", "---\nvisibility: private\n---\napple secret")).ok());
  KeywordQuery q;
  q.terms = {{"appl"}};
  EXPECT_EQ(SearchChunks(*e, q)->size(), 2u) << "private page hidden";
  q.include_private = true;
  EXPECT_EQ(SearchChunks(*e, q)->size(), 3u);
  q.terms = {{"appl"}, {"river", 1.0f, true}};
  EXPECT_EQ(SearchChunks(*e, q)->size(), 1u);
  q.terms = {{"appl"}};
  q.excluded_groups = {{"stone"}};
  EXPECT_EQ(SearchChunks(*e, q)->size(), 2u);
  q.terms = {{"appl"}, {"nosuchterm", 1.0f, true}};
  q.excluded_groups.clear();
  EXPECT_TRUE(SearchChunks(*e, q)->empty());
}


// The engine keeps the lists it handed out (PostingStore::ReadPostingList);
// what another connection commits, and what this one writes, is seen by the
// next search all the same (after FinishReads, as between requests).
TEST(Bm25, ListsTheEngineKeepsFollowEveryCommit) {
  TempDir dir;
  auto reader = OpenFresh(dir);
  auto writer = OpenFresh(dir);  // a second connection to the same store
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(writer->PutPage(Prepare("a.md", "apple river")).ok());
  KeywordQuery q;
  q.terms = {{"appl"}};
  ASSERT_EQ(SearchChunks(*reader, q)->size(), 1u);
  ASSERT_TRUE(writer->PutPage(Prepare("b.md", "apple stone")).ok());
  reader->FinishReads();
  EXPECT_EQ(SearchChunks(*reader, q)->size(), 2u) << "another connection's commit";
  ASSERT_TRUE(reader->PutPage(Prepare("c.md", "apple cloud")).ok());
  EXPECT_EQ(SearchChunks(*reader, q)->size(), 3u) << "this connection's own write";
  ASSERT_TRUE(writer->DeletePage("default", "a").ok());
  reader->FinishReads();
  EXPECT_EQ(SearchChunks(*reader, q)->size(), 2u) << "another connection's delete";
}

// The statistics are kept with the lists and follow the same commits.
TEST(Bm25, StatisticsTheEngineKeepsFollowEveryCommit) {
  TempDir dir;
  auto reader = OpenFresh(dir);
  auto writer = OpenFresh(dir);
  ASSERT_NE(writer, nullptr);
  auto docs = [&] { return reader->Postings().Statistics(PostingField::kChunks).value().docs; };
  ASSERT_TRUE(writer->PutPage(Prepare("a.md", "apple river")).ok());
  reader->FinishReads();
  EXPECT_EQ(docs(), 1);
  EXPECT_EQ(docs(), 1);
  ASSERT_TRUE(writer->PutPage(Prepare("b.md", "apple stone")).ok());
  reader->FinishReads();
  EXPECT_EQ(docs(), 2) << "another connection's commit";
  ASSERT_TRUE(reader->PutPage(Prepare("c.md", "apple cloud")).ok());
  EXPECT_EQ(docs(), 3) << "this connection's own write";
  ASSERT_TRUE(writer->DeletePage("default", "a").ok());
  reader->FinishReads();
  EXPECT_EQ(docs(), 2) << "another connection's delete";
  auto txn = reader->Begin();
  ASSERT_TRUE(txn.ok());
  ASSERT_TRUE(reader->PutPage(Prepare("d.md", "apple dune")).ok());
  EXPECT_EQ(docs(), 3) << "inside a batch, its own pages count";
  txn->Rollback();
  EXPECT_EQ(docs(), 2) << "and not after it was rolled back";
}

// The batched reads (one statement each on a server) answer exactly as the
// single ones, in the order asked: terms that need quoting in an array
// literal, unknown terms and pages, repeats, and lists that are then kept.
TEST(Bm25, BatchedReadsAnswerAsTheSingleOnes) {
  TempDir dir;
  auto e = OpenFresh(dir);
  std::vector<PageId> pages;
  const std::vector<std::string> odd = {"a\"b", "back\\slash", "{brace}", "com,ma", "sp ace", "NULL", "知识",
                                        "'q'", "\\\""};
  for (int d = 0; d < 6; ++d) {
    PageWrite w = Prepare("p" + std::to_string(d) + ".md", "# Title " + std::to_string(d) + "\n\napple river");
    ASSERT_FALSE(w.chunks.empty());
    for (size_t i = 0; i < odd.size(); ++i) {
      if ((i + static_cast<size_t>(d)) % 2 == 0) w.chunks[0].terms.terms.emplace_back(odd[i], 1 + d);
      if ((i + static_cast<size_t>(d)) % 3 == 0) w.title_terms.terms.emplace_back(odd[i], 1);
    }
    auto id = e->PutPage(w);
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    pages.push_back(*id);
  }
  auto reader = OpenFresh(dir);  // a second connection, which knows no term id yet
  ASSERT_NE(reader, nullptr);
  PostingStore& store = reader->Postings();
  std::vector<std::string> asked = odd;
  asked.insert(asked.end(), {"appl", "never-stored", "a\"b", ""});
  auto ids = store.FindTerms(asked);
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  ASSERT_EQ(ids->size(), asked.size());
  std::vector<int64_t> term_ids;
  for (size_t i = 0; i < asked.size(); ++i) {
    auto one = store.FindTerm(asked[i]);
    ASSERT_TRUE(one.ok());
    EXPECT_EQ((*ids)[i], *one) << asked[i];
    if (i < odd.size()) {
      EXPECT_TRUE((*ids)[i].has_value()) << odd[i];
    }
    if ((*ids)[i]) term_ids.push_back(*(*ids)[i]);
  }
  term_ids.push_back(term_ids.front());  // asked twice
  term_ids.push_back(987654321);         // no such term
  for (const PostingField field : {PostingField::kChunks, PostingField::kTitles}) {
    for (int pass = 0; pass < 2; ++pass) {  // read, then kept
      auto lists = store.ReadPostingLists(field, term_ids);
      ASSERT_TRUE(lists.ok()) << lists.status().ToString();
      ASSERT_EQ(lists->size(), term_ids.size());
      for (size_t i = 0; i < term_ids.size(); ++i) {
        auto one = store.ReadPostingList(field, term_ids[i]);
        ASSERT_TRUE(one.ok());
        ASSERT_NE((*lists)[i], nullptr);
        EXPECT_EQ(*(*lists)[i], **one) << "term id " << term_ids[i];
      }
      EXPECT_TRUE(lists->back()->empty());
    }
  }
  pages.push_back(PageId(987654321));
  pages.push_back(pages.front());
  for (int pass = 0; pass < 2; ++pass) {
    auto chunks = store.PagesChunkIds(pages);
    ASSERT_TRUE(chunks.ok()) << chunks.status().ToString();
    ASSERT_EQ(chunks->size(), pages.size());
    for (size_t i = 0; i < pages.size(); ++i) {
      auto one = store.PageChunkIds(pages[i]);
      ASSERT_TRUE(one.ok());
      EXPECT_EQ((*chunks)[i], *one) << "page " << pages[i].value();
    }
    EXPECT_TRUE((*chunks)[pages.size() - 2].empty());
  }
}

// A PostingStore in memory, fed the same PageWrites as an engine but with
// ids of its own choosing: what a second engine looks like to the module.
class MemoryPostingStore final : public PostingStore {
 public:
  void Add(const PageWrite& w, int64_t page_id, const std::vector<int64_t>& chunk_ids, bool is_private) {
    if (is_private) private_pages_.insert(page_id);
    std::vector<int64_t>& chunks = page_chunks_[page_id];
    for (size_t i = 0; i < w.chunks.size(); ++i) {
      const TermVector& tv = w.chunks[i].terms;
      AddDoc(PostingField::kChunks, tv, chunk_ids[i], page_id, is_private);
      chunks.push_back(chunk_ids[i]);
    }
    if (w.title_terms.length > 0) AddDoc(PostingField::kTitles, w.title_terms, page_id, page_id, is_private);
  }

  Result<std::optional<int64_t>> FindTerm(std::string_view term) override {
    auto it = term_ids_.find(std::string(term));
    if (it == term_ids_.end()) return std::optional<int64_t>();
    return std::optional<int64_t>(it->second);
  }
  Result<std::shared_ptr<const std::string>> ReadPostingList(PostingField field, int64_t term_id) override {
    auto& lists = fields_[Index(field)].lists;
    auto it = lists.find(term_id);
    if (it == lists.end()) return std::make_shared<const std::string>();
    std::vector<store::Posting> sorted(it->second.begin(), it->second.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.doc < b.doc; });
    return std::make_shared<const std::string>(store::EncodePostings(sorted));
  }
  Result<FieldStatistics> Statistics(PostingField field) override { return fields_[Index(field)].all; }
  Result<std::shared_ptr<const PrivateFieldStatistics>> PrivateStatistics(PostingField field) override {
    return std::make_shared<const PrivateFieldStatistics>(fields_[Index(field)].hidden);
  }
  Result<std::vector<PageId>> PrivatePageIds() override {
    return ToIds<PageId>(std::vector<int64_t>(private_pages_.begin(), private_pages_.end()));
  }
  Result<std::vector<ChunkId>> PageChunkIds(PageId page_id) override {
    auto it = page_chunks_.find(page_id.value());
    if (it == page_chunks_.end()) return std::vector<ChunkId>();
    std::vector<int64_t> ids = it->second;
    std::sort(ids.begin(), ids.end());
    return ToIds<ChunkId>(ids);
  }

 private:
  struct Field {
    std::map<int64_t, std::vector<store::Posting>> lists;
    FieldStatistics all;
    PrivateFieldStatistics hidden;
  };
  static size_t Index(PostingField f) { return f == PostingField::kTitles ? 1 : 0; }
  void AddDoc(PostingField field, const TermVector& tv, int64_t doc, int64_t page, bool is_private) {
    Field& f = fields_[Index(field)];
    ++f.all.docs;
    f.all.tokens += tv.length;
    if (is_private) {
      ++f.hidden.totals.docs;
      f.hidden.totals.tokens += tv.length;
    }
    for (const auto& [term, tf] : tv.terms) {
      auto [it, fresh] = term_ids_.try_emplace(term, static_cast<int64_t>(term_ids_.size()) * 7919 + 3);
      f.lists[it->second].push_back({doc, page, tf, tv.length});
      if (is_private) ++f.hidden.df[it->second];
    }
  }
  std::map<std::string, int64_t> term_ids_;
  Field fields_[2];
  std::set<int64_t> private_pages_;
  std::map<int64_t, std::vector<int64_t>> page_chunks_;
};

// Ids far apart and far beyond anything dense: the module must map them
// itself (its accumulators may not be indexed by raw id).
int64_t Sparse(int64_t id) { return (int64_t{1} << 40) + id * 1000003; }

// The same pages in the SQLite engine and in a store with sparse ids give
// the same hits (ids mapped) with bit-identical scores, in every field, with
// and without private pages, pruned and exhaustive, and ScorePages agrees.
TEST(Bm25, TwoStoresOfTheSameCorpusRankIdentically) {
  TempDir dir;
  auto e = OpenFresh(dir);
  MemoryPostingStore memory;
  std::mt19937 rng(5);
  std::vector<double> weights;
  for (int i = 0; i < 200; ++i) weights.push_back(1.0 / (i + 1));
  std::discrete_distribution<int> zipf(weights.begin(), weights.end());
  auto word = [&] {
    std::string w = "w";
    w += std::to_string(zipf(rng));
    return w;
  };
  std::map<int64_t, int64_t> page_of, chunk_of;  // SQLite id -> sparse id
  for (int d = 0; d < 400; ++d) {
    std::string text = "---\ntitle: ";
    text.append(word()).append(" ").append(word()).append("\n");
    const bool is_private = d % 7 == 3;
    if (is_private) text += "visibility: private\n";
    text += "---\n";
    for (int para = 0, n = 1 + static_cast<int>(rng() % 3); para < n; ++para) {
      text.append("## Part ").append(std::to_string(para)).append("\n\n");
      for (int i = 0, len = 5 + static_cast<int>(rng() % 80); i < len; ++i) text.append(word()).append(" ");
      text += "\n\n";
    }
    std::string path = "d";
    path += std::to_string(d);
    path += ".md";
    PageWrite w = Prepare(path, text);
    auto page_id = e->PutPage(w);
    ASSERT_TRUE(page_id.ok()) << page_id.status().ToString();
    auto chunks = e->GetPageChunks(*page_id);
    ASSERT_TRUE(chunks.ok());
    ASSERT_EQ(chunks->size(), w.chunks.size());
    std::vector<int64_t> sparse_chunks;
    for (const ChunkRecord& c : *chunks) {
      chunk_of[c.chunk_id.value()] = Sparse(c.chunk_id.value());
      sparse_chunks.push_back(Sparse(c.chunk_id.value()));
    }
    page_of[page_id->value()] = Sparse(page_id->value());
    memory.Add(w, Sparse(page_id->value()), sparse_chunks, is_private);
  }
  bm25::Searcher sqlite_bm25(e->Postings()), memory_bm25(memory);
  for (int trial = 0; trial < 60; ++trial) {
    KeywordQuery q;
    for (int i = 0, n = 1 + trial % 5; i < n; ++i) q.terms.push_back({word(), 1.0f + static_cast<float>(i % 2)});
    if (trial % 9 == 4) q.terms[0].required = true;
    if (trial % 11 == 5) q.excluded_groups = {{word()}};
    q.include_private = trial % 2 == 1;
    q.limit = trial % 3 == 0 ? 1000 : 5;
    q.chunks_per_page = trial % 4 == 2 ? 2 : 1;
    for (PostingField field : {PostingField::kChunks, PostingField::kTitles}) {
      auto want = sqlite_bm25.Search(q, field);
      auto got = memory_bm25.Search(q, field);
      ASSERT_TRUE(want.ok() && got.ok()) << want.status().ToString() << got.status().ToString();
      ASSERT_EQ(got->size(), want->size()) << "trial " << trial;
      std::vector<PageId> pages, sparse_pages;
      for (size_t i = 0; i < want->size(); ++i) {
        const KeywordHit &w = (*want)[i], &g = (*got)[i];
        EXPECT_EQ(g.page_id.value(), page_of[w.page_id.value()]) << "trial " << trial << " rank " << i;
        EXPECT_EQ(g.chunk_id.value(), w.chunk_id.value() == 0 ? 0 : chunk_of[w.chunk_id.value()])
            << "trial " << trial << " rank " << i;
        EXPECT_EQ(g.score, w.score) << "trial " << trial << " rank " << i;
        pages.push_back(w.page_id);
        sparse_pages.push_back(g.page_id);
      }
      auto want_scores = sqlite_bm25.ScorePages(q, pages, field);
      auto got_scores = memory_bm25.ScorePages(q, sparse_pages, field);
      ASSERT_TRUE(want_scores.ok() && got_scores.ok());
      ASSERT_EQ(got_scores->size(), want_scores->size());
      for (size_t i = 0; i < want_scores->size(); ++i) {
        EXPECT_EQ((*got_scores)[i].page_id.value(), page_of[(*want_scores)[i].page_id.value()]);
        EXPECT_EQ((*got_scores)[i].score, (*want_scores)[i].score);
      }
    }
  }
}

// What the pruned search returns equals the exhaustive answer over sparse
// ids too (the accumulators then go through the module's hashed mapping).
TEST(Bm25, PrunedTopKEqualsTheExhaustiveTopKOverSparseIds) {
  MemoryPostingStore memory;
  std::mt19937 rng(13);
  std::vector<double> weights;
  for (int i = 0; i < 300; ++i) weights.push_back(1.0 / (i + 1));
  std::discrete_distribution<int> zipf(weights.begin(), weights.end());
  for (int d = 0; d < 1200; ++d) {
    std::string text;
    for (int i = 0, len = 5 + static_cast<int>(rng() % 60); i < len; ++i) {
      text += "w";
      text += std::to_string(zipf(rng));
      text += ' ';
    }
    std::string path = "d";
    path += std::to_string(d);
    path += ".md";
    PageWrite w = Prepare(path, text);
    std::vector<int64_t> chunks;
    for (size_t c = 0; c < w.chunks.size(); ++c) chunks.push_back(Sparse(d * 10 + static_cast<int64_t>(c) + 1));
    memory.Add(w, Sparse(d + 1), chunks, false);
  }
  bm25::Searcher bm25(memory);
  for (int trial = 0; trial < 40; ++trial) {
    KeywordQuery q;
    for (int i = 0, n = 2 + trial % 6; i < n; ++i) {
      std::string t = "w";
      t += std::to_string(trial % 2 ? zipf(rng) : static_cast<int>(rng() % 300));
      q.terms.push_back({t});
    }
    q.limit = 5;
    auto shallow = bm25.SearchChunks(q);
    q.limit = 100000;
    auto deep = bm25.SearchChunks(q);
    ASSERT_TRUE(shallow.ok() && deep.ok());
    ASSERT_EQ(shallow->size(), std::min<size_t>(5, deep->size()));
    for (size_t i = 0; i < shallow->size(); ++i) {
      EXPECT_EQ((*shallow)[i].chunk_id, (*deep)[i].chunk_id) << "trial " << trial << " rank " << i;
      EXPECT_FLOAT_EQ((*shallow)[i].score, (*deep)[i].score);
    }
  }
}

// Oracle for the seeded threshold: it never exceeds the score of the
// limit-th best page the exhaustive search finds (among the pages a filter
// lets through), so starting the pruned search from it is safe; and it is
// not idle: most queries get a seed above zero.
TEST(Bm25, TheSeedThresholdNeverExceedsTheLimitThBestPage) {
  MemoryPostingStore memory;
  std::mt19937 rng(17);
  std::vector<double> weights;
  for (int i = 0; i < 300; ++i) weights.push_back(1.0 / (i + 1));
  std::discrete_distribution<int> zipf(weights.begin(), weights.end());
  for (int d = 0; d < 3000; ++d) {
    std::string text;
    for (int i = 0, len = 5 + static_cast<int>(rng() % 80); i < len; ++i) {
      text += "w";
      text += std::to_string(zipf(rng));
      text += i % 20 == 19 ? "\n\n" : " ";
    }
    PageWrite w = Prepare("d" + std::to_string(d) + ".md", text);
    std::vector<int64_t> chunks;
    for (size_t c = 0; c < w.chunks.size(); ++c) chunks.push_back(d * 10 + static_cast<int64_t>(c) + 1);
    memory.Add(w, d + 1, chunks, false);
  }
  int seeded = 0;
  const int trials = 60;
  for (int trial = 0; trial < trials; ++trial) {
    KeywordQuery q;
    for (int i = 0, n = 2 + trial % 7; i < n; ++i) q.terms.push_back({"w" + std::to_string(zipf(rng))});
    q.limit = 100000;
    auto deep = bm25::Searcher(memory).SearchChunks(q);
    ASSERT_TRUE(deep.ok());
    const bool odd_only = trial % 3 == 0;  // a filter: only odd pages may be returned
    auto out = [&](int64_t page) { return odd_only && page % 2 == 0; };
    std::vector<float> best;  // the best score of each allowed page, best first (deep is ordered)
    for (const KeywordHit& h : *deep) {
      if (!out(h.page_id.value())) best.push_back(h.score);
    }
    for (size_t limit : {1, 5, 10}) {
      bm25::ListCache cache(memory);
      auto pq = bm25::Prepare(cache, q, PostingField::kChunks);
      ASSERT_TRUE(pq.ok());
      const float seed = bm25::SeedThreshold(*pq, limit, out);
      if (best.size() < limit) {
        EXPECT_EQ(seed, 0.0f);
        continue;
      }
      EXPECT_LE(seed, best[limit - 1]) << "trial " << trial << " limit " << limit;
      seeded += seed > 0 ? 1 : 0;
    }
  }
  EXPECT_GT(seeded, trials * 3 / 2) << "the seed should usually find limit pages";
}

}  // namespace
}  // namespace engram
