#include "ops/kb_module.h"

#include <nlohmann/json.hpp>

#include "common/files.h"
#include "common/hash.h"
#include "common/utf8.h"

namespace engram::ops {

using Json = nlohmann::json;

namespace {

constexpr size_t kMaxTextBytes = 64 * 1024;
constexpr size_t kMaxMetaBytes = 64 * 1024;

std::string Who(const OperationContext& ctx) {
  return ctx.caller.empty() ? ctx.transport : ctx.transport + ":" + ctx.caller;
}

// The meta object as stored: flat (strings, numbers, booleans, null), without the keys `text` and `vector`.
Result<std::string> FlatMeta(const Json* meta, size_t index) {
  if (meta == nullptr || meta->is_null()) return std::string("{}");
  const std::string where = "docs[" + std::to_string(index) + "].meta";
  if (!meta->is_object()) return Status::InvalidArgument(where + " must be an object");
  Json out = Json::object();
  for (const auto& [key, value] : meta->items()) {
    if (key == "text" || key == "vector") continue;
    if (value.is_object() || value.is_array()) {
      return Status::InvalidArgument(where + "." + key + " must be a string, number or boolean (meta is flat)");
    }
    if (value.is_string()) {
      const std::string& s = value.get_ref<const std::string&>();
      if (common::FindInvalidUtf8(s) != std::string::npos) {
        return Status::InvalidArgument(where + "." + key + " is not valid UTF-8");
      }
    }
    out[key] = value;
  }
  std::string dumped = out.dump();
  if (dumped.size() > kMaxMetaBytes) {
    return Status::InvalidArgument(where + " is " + std::to_string(dumped.size()) + " bytes, over the limit of " +
                                   std::to_string(kMaxMetaBytes));
  }
  return dumped;
}

KbCollection DefaultCollection(const OperationContext& ctx) {
  KbCollection c;
  c.name = kDefaultKbCollection;
  c.fields = {{"className", KbFieldType::kString}, {"type", KbFieldType::kString}};
  c.created_by = Who(ctx);
  return c;
}

}  // namespace

KbModule::KbModule(Brain& brain)
    : brain_(brain), index_(std::make_unique<kb::KbIndex>(brain.engine(), brain.engine())) {}

KbModule::~KbModule() = default;

std::string KbModule::SimilarityOf(const KbCollection& collection) {
  return collection.embedder.empty() ? "lexical" : "embedding:" + collection.embedder;
}

Status KbModule::Create(const OperationContext& ctx, const KbCollection& collection) {
  KbCollection c = collection;
  c.created_by = Who(ctx);
  return brain_.engine().CreateKbCollection(c);
}

Result<std::vector<std::pair<KbCollection, int64_t>>> KbModule::List() {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<KbCollection> collections, brain_.engine().KbCollections());
  ENGRAM_ASSIGN_OR_RETURN(std::vector<KbCollectionStats> stats, brain_.engine().KbCollectionStatistics());
  std::vector<std::pair<KbCollection, int64_t>> out;
  for (KbCollection& c : collections) {
    int64_t entries = 0;
    for (const KbCollectionStats& s : stats) {
      if (s.name == c.name) entries = s.entries;
    }
    out.emplace_back(std::move(c), entries);
  }
  return out;
}

Result<KbCollection> KbModule::Describe(std::string_view collection) { return index_->Collection(collection); }

Result<std::vector<KbEntry>> KbModule::Scan(std::string_view collection, int64_t after_key, size_t limit) {
  ENGRAM_RETURN_IF_ERROR(index_->Collection(collection).status());
  return brain_.engine().ScanKbEntries(collection, after_key, limit);
}

Result<std::vector<std::string>> KbModule::Upsert(const OperationContext& ctx, std::string_view collection,
                                                  const std::vector<KbDoc>& docs) {
  if (docs.empty()) return Status::InvalidArgument("docs为空 (docs is empty)");
  std::vector<KbEntry> entries;
  entries.reserve(docs.size());
  const std::string now = common::NowIso8601();
  for (size_t i = 0; i < docs.size(); ++i) {
    const KbDoc& d = docs[i];
    const std::string where = "docs[" + std::to_string(i) + "]";
    if (common::TrimSpace(d.text).empty()) return Status::InvalidArgument(where + ".text is empty");
    if (d.text.size() > kMaxTextBytes) {
      return Status::InvalidArgument(where + ".text is " + std::to_string(d.text.size()) +
                                     " bytes, over the limit of " + std::to_string(kMaxTextBytes));
    }
    KbEntry e;
    e.collection = std::string(collection);
    e.id = d.id.empty() ? common::Md5Hex(d.text) : d.id;
    e.text = d.text;
    e.source = d.source;
    ENGRAM_ASSIGN_OR_RETURN(e.meta, FlatMeta(d.meta, i));
    e.updated_at = now;
    e.updated_by = Who(ctx);
    entries.push_back(std::move(e));
  }
  ENGRAM_RETURN_IF_ERROR(EnsureCollection(ctx, collection));
  ENGRAM_RETURN_IF_ERROR(brain_.engine().PutKbEntries(entries).status());
  std::vector<std::string> ids;
  for (const KbEntry& e : entries) ids.push_back(e.id);
  return ids;
}

Status KbModule::EnsureCollection(const OperationContext& ctx, std::string_view collection) {
  ENGRAM_ASSIGN_OR_RETURN(std::optional<KbCollection> existing, brain_.engine().FindKbCollection(collection));
  if (existing) return Status::Ok();
  if (collection != kDefaultKbCollection) {
    return Status::NotFound("no knowledge collection '" + std::string(collection) + "'");
  }
  Status made = brain_.engine().CreateKbCollection(DefaultCollection(ctx));
  return made.code() == StatusCode::kAlreadyExists ? Status::Ok() : made;
}

Result<std::vector<std::string>> KbModule::Delete(std::string_view collection, const std::vector<std::string>& ids,
                                                  const std::vector<std::string>& texts) {
  if (ids.empty() && texts.empty()) return Status::InvalidArgument("ids和texts均为空 (ids and texts are both empty)");
  std::vector<std::string> wanted;
  if (!texts.empty()) {
    for (const std::string& t : texts) wanted.push_back(common::Md5Hex(t));
  } else {
    wanted = ids;
  }
  return brain_.engine().DeleteKbEntries(collection, wanted);
}

Result<std::vector<kb::Hit>> KbModule::Search(std::string_view collection, std::string_view text,
                                              const Json& filters, const kb::SearchOptions& options) {
  Result<std::vector<kb::Hit>> hits = index_->Search(collection, text, filters, options);
  // The default collection exists for callers before their first upsert: empty, not unknown.
  if (!hits.ok() && hits.status().code() == StatusCode::kNotFound && collection == kDefaultKbCollection) {
    return std::vector<kb::Hit>();
  }
  return hits;
}

}  // namespace engram::ops
