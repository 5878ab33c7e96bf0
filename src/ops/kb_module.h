// The knowledge module: a brain's knowledge collections (src/kb) — create,
// list, upsert, delete and search entries — as the red-line knowledge
// service and its operations (kb_operations.cc) use them.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "engram/brain.h"
#include "engram/store/kb_store.h"
#include "kb/dialog.h"
#include "kb/kb_index.h"

namespace engram::llm {
class ChatClient;
}
namespace engram::embed {
class Embedder;
}

namespace engram::ops {

// The collection a call names none of. Made on first upsert, with the
// original service's filterable fields (className, type; source always).
inline constexpr const char* kDefaultKbCollection = "default";

// An entry as a caller hands it over: id "" = md5 of the text.
struct KbDoc {
  std::string id;
  std::string text;
  std::string source;
  const nlohmann::json* meta = nullptr;  // a flat object, or null
};

// The guarded answer's settings (the original's defaults).
struct KbAnswerOptions {
  kb::SearchOptions search;          // threshold 0.8, top_k 5
  double same_threshold = 0.9;       // top-1 at least this: its safeChat, no LLM
  double answer_similarity = 0.7;    // an LLM answer at least this similar to the top-1 safeChat is kept
};

// What the guarded answer gives (the original's fields).
struct KbAnswer {
  std::string answer;
  std::string answer_backup;     // an LLM answer too unlike the references
  std::string no_answer_reason;  // "无数据", "有数据", "模型输出与文档相似度低", "模型未配置", "模型调用失败…", ""
  double answer_ref_similar = 0;
  std::vector<kb::Hit> references;
  std::string similarity;  // what scored the references (KbModule::SimilarityOf)
};

// What a dialog check gives (the original's fields, and whether the model
// was asked and answered at all: a gateway can tell "safe" from "unchecked").
struct KbDialogCheck {
  int risk_code = 0;              // the model's label: 1 = a malicious dialogue
  std::string risk_message;       // "恶意对话" or "正常文本"
  std::string reason;             // the model's reason, or why there is no label
  bool checked = false;           // false: no model, a failed call or an unreadable reply (risk_code 0)
  size_t messages = 0;            // messages given to the model, after merging and keeping the last turns
};

// A governed entry as the operations and the HTTP API return it.
nlohmann::json GovernedJson(const GovernedEntry& entry);

class KbModule final : public BrainModule {
 public:
  explicit KbModule(Brain& brain);
  ~KbModule() override;

  // Creates a collection. Its similarity is fixed here: embedding with
  // the configured [embedding] model when embed (the embedder and dimension
  // are recorded, and every later vector must come from them), else
  // lexical. FailedPrecondition for embed with no [embedding] provider.
  Status Create(const OperationContext& ctx, KbCollection collection, bool embed);
  // Whether an [embedding] provider is configured (new collections embed by default then).
  bool EmbeddingConfigured() const;
  // Every collection with its entry count (the entries scope sees), by name.
  Result<std::vector<std::pair<KbCollection, int64_t>>> List(const ReadScope& scope);
  Result<KbCollection> Describe(std::string_view collection);

  // Stores the docs (all or none); returns their ids in order.
  Result<std::vector<std::string>> Upsert(const OperationContext& ctx, std::string_view collection,
                                          const std::vector<KbDoc>& docs);
  // Deletes by ids, or by texts (their md5 ids) when any text is given;
  // returns the ids that existed.
  Result<std::vector<std::string>> Delete(std::string_view collection, const std::vector<std::string>& ids,
                                          const std::vector<std::string>& texts);
  // The entries most similar to text, best first (filters: kb/filter.h),
  // of those scope sees (a collection kept from a folder: a private page's
  // entry only for a reader of private pages, kb::KbIndex::Search);
  // similarity (optional) receives what scored them (SimilarityOf).
  Result<std::vector<kb::Hit>> Search(const ReadScope& scope, std::string_view collection, std::string_view text,
                                      const nlohmann::json& filters, const kb::SearchOptions& options,
                                      std::string* similarity = nullptr);

  // The collection's entries after after_key, ascending, at most limit (a keyset page, for export);
  // a collection kept from a folder gives all its entries scope sees for after_key 0 and none after.
  Result<std::vector<KbEntry>> Scan(const ReadScope& scope, std::string_view collection, int64_t after_key,
                                    size_t limit);

  // Governance (kb_governance.cc): governed entries and their projection
  // into their collection, changed together in one transaction; only the
  // latest version of an online entry is searchable.
  //
  // Creates version 1 of (md5(question), business_scene), online unless
  // fields.status says offline; when that pair exists, updates its latest
  // version (a new version) instead — unless nothing changed.
  Result<GovernedEntry> GovernedUpsert(const OperationContext& ctx, GovernedEntry fields);
  // A new version of the latest row of id with the given fields changed
  // (empty strings keep the old value); FailedPrecondition for an old
  // version. The entry keeps its uniq_id (its identity), also when the
  // question changes; the new version's text is what gets indexed.
  Result<GovernedEntry> GovernedUpdate(const OperationContext& ctx, int64_t id, const GovernedEntry& changes);
  // Takes the entry of id online or offline (its latest version); when this
  // returns, no search started afterwards misses / finds it.
  Result<GovernedEntry> GovernedSetStatus(const OperationContext& ctx, int64_t id, bool online);
  // Brings governed rows from elsewhere (a JoySafety MySQL dump) in as they
  // are — versions, status, people and times kept — into collection. Rows
  // of one (uniq_id, business_scene) go in together, in transactions of
  // about batch rows, each with its projection and audit record; versions
  // not newer than what the brain holds are skipped, so an import that was
  // interrupted converges when run again. progress(done, total) after each.
  struct ImportCounts {
    size_t imported = 0;
    size_t skipped = 0;  // versions the brain already had (or newer)
  };
  Result<ImportCounts> GovernedImport(const OperationContext& ctx, std::vector<GovernedEntry> rows,
                                      std::string_view collection, size_t batch,
                                      const std::function<void(size_t, size_t)>& progress);
  Result<GovernedEntry> GovernedGet(int64_t id);
  Result<std::vector<GovernedEntry>> GovernedFind(std::string_view word, size_t limit);
  Result<std::vector<KbAuditEntry>> Audit(int64_t governed_id, size_t limit);
  // Rebuilds the governed entries' projections from the rows: every online
  // latest version present, nothing else of theirs; returns how many
  // entries it wrote or removed (0 when they already agreed).
  Result<size_t> Reindex(const OperationContext& ctx);
  // Where the rows and the collections disagree (empty when they agree).
  Result<std::vector<std::string>> CheckGoverned();

  // The guarded answer in three stages: no hit -> "无数据"; top-1 score >=
  // same_threshold -> its safeChat verbatim, no LLM; otherwise an LLM
  // ([llm] model) answers from the references, kept only when its
  // similarity to the top-1 safeChat (the embedding cosine in a collection
  // with an embedder, else kb::TextCosine) reaches
  // answer_similarity, else moved to answer_backup. An LLM that is not
  // configured, fails or answers nothing is a no_answer_reason, never an error.
  // References are the entries scope sees, as Search.
  Result<KbAnswer> Answer(const ReadScope& scope, std::string_view collection, std::string_view text,
                          const nlohmann::json& filters, const KbAnswerOptions& options);

  // The multi-turn check: the conversation's streamed fragments merged, its
  // last max_turns x 2 messages labelled by the [llm] model under [kb]
  // dialog_principles. A model that is not configured, fails or gives no
  // readable label is risk_code 0, checked false, with the reason.
  Result<KbDialogCheck> Dialog(const std::vector<kb::DialogMessage>& history, size_t max_turns);

  // The guarded answer's built-in rules for the model ([kb] answer_constraints "").
  static const std::string& DefaultAnswerConstraints();

  // What produced the scores of a collection's searches: "lexical" (TF-IDF
  // cosine over the analyzer's terms) or "embedding:PROVIDER:MODEL".
  static std::string SimilarityOf(const KbCollection& collection);
  // Who a caller is in a collection's records: "transport:caller" (or the transport alone).
  static std::string Who(const OperationContext& ctx);

 private:
  // The collection exists; the default one is made on first use (NotFound for any other).
  Status EnsureCollection(const OperationContext& ctx, std::string_view collection);
  // Stores entries (of one collection or several), each with its embedding
  // when its collection has an embedder: FailedPrecondition when the
  // configured one is another (vectors are never mixed).
  Status PutEntries(std::vector<KbEntry> entries);
  // Search, with the collection as it was searched (searched: its name empty when the
  // default collection does not exist yet).
  Result<std::vector<kb::Hit>> SearchIn(const ReadScope& scope, std::string_view collection, std::string_view text,
                                        const nlohmann::json& filters, const kb::SearchOptions& options,
                                        KbCollection* searched);
  // The configured embedder when it is the one collection's vectors come from.
  Result<embed::Embedder*> EmbedderFor(const KbCollection& collection);
  // The cosine of two texts' embeddings in collection's space, in [0, 1].
  Result<double> EmbeddingCosine(const std::string& a, const std::string& b, const KbCollection& collection);

  // The [llm] model with [kb]'s call settings, opened on first use.
  Result<llm::ChatClient*> Chat();

  // The process's index of this database, bound to this brain's connection
  // for the call: fn runs under the index's lock.
  template <typename Fn>
  auto WithIndex(Fn&& fn) {
    std::lock_guard<std::mutex> lock(shared_->mu);
    if (!shared_->index) shared_->index = std::make_unique<kb::KbIndex>(brain_.engine(), brain_.engine(), brain_.engine());
    shared_->index->Rebind(brain_.engine(), brain_.engine(), brain_.engine());
    return fn(*shared_->index);
  }

  Brain& brain_;
  std::shared_ptr<kb::SharedKbIndex> shared_;
  std::mutex chat_mu_;
  std::unique_ptr<llm::ChatClient> chat_;
};

}  // namespace engram::ops
