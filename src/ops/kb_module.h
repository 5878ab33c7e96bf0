// The knowledge module: a brain's knowledge collections (src/kb) — create,
// list, upsert, delete and search entries — as the red-line knowledge
// service and its operations (kb_operations.cc) use them.
#pragma once

#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "engram/brain.h"
#include "engram/store/kb_store.h"
#include "kb/kb_index.h"

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

class KbModule final : public BrainModule {
 public:
  explicit KbModule(Brain& brain);
  ~KbModule() override;

  Status Create(const OperationContext& ctx, const KbCollection& collection);
  Result<std::vector<KbCollectionStats>> List();
  Result<KbCollection> Describe(std::string_view collection);
  Status Drop(std::string_view collection);

  // Stores the docs (all or none); returns their ids in order.
  Result<std::vector<std::string>> Upsert(const OperationContext& ctx, std::string_view collection,
                                          const std::vector<KbDoc>& docs);
  // Deletes by ids, or by texts (their md5 ids) when any text is given;
  // returns the ids that existed.
  Result<std::vector<std::string>> Delete(std::string_view collection, const std::vector<std::string>& ids,
                                          const std::vector<std::string>& texts);
  // The entries most similar to text, best first (filters: kb/filter.h).
  Result<std::vector<kb::Hit>> Search(std::string_view collection, std::string_view text,
                                      const nlohmann::json& filters, const kb::SearchOptions& options);

  // The collection's entries after after_key, ascending, at most limit (a keyset page, for export).
  Result<std::vector<KbEntry>> Scan(std::string_view collection, int64_t after_key, size_t limit);

  // What produced the scores of a collection's searches: "lexical" (TF-IDF
  // cosine over the analyzer's terms) or "embedding:MODEL".
  static std::string SimilarityOf(const KbCollection& collection);

 private:
  Brain& brain_;
  std::unique_ptr<kb::KbIndex> index_;
};

}  // namespace engram::ops
