#include "ops/kb_module.h"

#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "common/files.h"
#include "common/hash.h"
#include "common/utf8.h"
#include "embed/embedder.h"
#include "ops/embedding_module.h"

namespace engram::ops {

using Json = nlohmann::json;

namespace {

constexpr size_t kMaxTextBytes = 64 * 1024;
constexpr size_t kMaxMetaBytes = 64 * 1024;

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

KbCollection DefaultCollection() {
  KbCollection c;
  c.name = kDefaultKbCollection;
  c.fields = {{"className", KbFieldType::kString}, {"type", KbFieldType::kString}};
  return c;
}

// The id a collection records for an embedder (as the brain records its pages' model).
std::string EmbedderId(const embed::EmbedderInfo& info) { return info.provider + ":" + info.model; }

// Refuses a write to a collection kept from a folder of pages.
Status KeptFromFolder(const KbCollection& c) {
  return Status::FailedPrecondition("collection '" + c.name + "' is kept from the pages under " + c.folder +
                                    "/: edit or delete those pages (engram sync picks them up)");
}

}  // namespace

KbModule::KbModule(Brain& brain)
    : brain_(brain), shared_(kb::SharedKbIndexFor(brain.engine().StoreIdentity())) {}

KbModule::~KbModule() = default;

std::string KbModule::Who(const OperationContext& ctx) {
  return ctx.caller.empty() ? ctx.transport : ctx.transport + ":" + ctx.caller;
}

std::string KbModule::SimilarityOf(const KbCollection& collection) {
  return collection.embedder.empty() ? "lexical" : "embedding:" + collection.embedder;
}

bool KbModule::EmbeddingConfigured() const { return brain_.options().embedding.provider != "none"; }

Status KbModule::Create(const OperationContext& ctx, KbCollection c, bool embed) {
  c.created_by = KbModule::Who(ctx);
  c.embedder.clear();
  c.dimension = 0;
  while (!c.folder.empty() && c.folder.back() == '/') c.folder.pop_back();
  if (!c.folder.empty()) {
    const std::string wrapped = "/" + c.folder + "/";
    if (c.folder.front() == '/' || c.folder.find('\\') != std::string::npos ||
        wrapped.find("/../") != std::string::npos || wrapped.find("/./") != std::string::npos) {
      return Status::InvalidArgument("folder must be a path inside the brain, like redline/ (not '" + c.folder + "')");
    }
    if (wrapped.find("/.") != std::string::npos) {  // .engram, .git, .obsidian: never pages
      return Status::InvalidArgument("folder '" + c.folder + "' is hidden (a name starting with '.'): no pages live there");
    }
    if (embed) return Status::InvalidArgument("a collection kept from a folder of pages is lexical");
  }
  if (embed) {
    if (!EmbeddingConfigured()) {
      return Status::FailedPrecondition("an embedding collection needs an [embedding] provider (engram model use)");
    }
    ENGRAM_ASSIGN_OR_RETURN(embed::Embedder * e, brain_.Module<EmbeddingModule>().GetEmbedder());
    c.embedder = EmbedderId(e->info());
    c.dimension = e->info().dims;
  }
  return brain_.engine().CreateKbCollection(c);
}

Result<embed::Embedder*> KbModule::EmbedderFor(const KbCollection& c) {
  auto refuse = [&](const std::string& now) {
    return Status::FailedPrecondition(
        "collection '" + c.name + "' holds vectors of " + c.embedder + " (" + std::to_string(c.dimension) +
        " dimensions) and [embedding] is now " + now +
        ": vectors of two models are never mixed. Configure that model again, or make a new collection and "
        "import `engram kb export -c " + c.name + "` into it");
  };
  if (!EmbeddingConfigured()) return refuse("none");
  ENGRAM_ASSIGN_OR_RETURN(embed::Embedder * e, brain_.Module<EmbeddingModule>().GetEmbedder());
  if (EmbedderId(e->info()) != c.embedder || e->info().dims != c.dimension) {
    return refuse(EmbedderId(e->info()) + " (" + std::to_string(e->info().dims) + " dimensions)");
  }
  return e;
}

Status KbModule::PutEntries(std::vector<KbEntry> entries) {
  Engine& engine = brain_.engine();
  // Each collection's entries embedded together (most calls hold one collection).
  std::map<std::string, std::vector<size_t>> by_collection;
  for (size_t i = 0; i < entries.size(); ++i) by_collection[entries[i].collection].push_back(i);
  for (const auto& [name, at] : by_collection) {
    ENGRAM_ASSIGN_OR_RETURN(std::optional<KbCollection> c, engine.FindKbCollection(name));
    if (!c) return Status::NotFound("no knowledge collection '" + name + "'");
    if (!c->folder.empty()) return KeptFromFolder(*c);
    if (c->embedder.empty()) continue;
    ENGRAM_ASSIGN_OR_RETURN(embed::Embedder * e, EmbedderFor(*c));
    std::vector<std::string> texts;
    for (size_t i : at) texts.push_back(entries[i].text);
    ENGRAM_ASSIGN_OR_RETURN(std::vector<float> flat, e->Embed(texts, embed::EmbedKind::kDocument));
    const auto dims = static_cast<size_t>(c->dimension);
    if (flat.size() != dims * at.size()) return Status::Internal("the embedder returned vectors of another size");
    for (size_t k = 0; k < at.size(); ++k) {
      entries[at[k]].vector.assign(flat.begin() + static_cast<std::ptrdiff_t>(k * dims),
                                   flat.begin() + static_cast<std::ptrdiff_t>((k + 1) * dims));
    }
  }
  return engine.PutKbEntries(entries).status();
}

Result<std::vector<std::pair<KbCollection, int64_t>>> KbModule::List(const ReadScope& scope) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<KbCollection> collections, brain_.engine().KbCollections());
  ENGRAM_ASSIGN_OR_RETURN(std::vector<KbCollectionStats> stats, brain_.engine().KbCollectionStatistics());
  std::vector<std::pair<KbCollection, int64_t>> out;
  for (KbCollection& c : collections) {
    int64_t entries = 0;
    for (const KbCollectionStats& s : stats) {
      if (s.name == c.name) entries = s.entries;
    }
    if (!c.folder.empty()) {
      ENGRAM_ASSIGN_OR_RETURN(std::vector<KbEntry> kept,
                              WithIndex([&](kb::KbIndex& ix) { return ix.FolderEntries(c.name, scope); }));
      entries = static_cast<int64_t>(kept.size());
    }
    out.emplace_back(std::move(c), entries);
  }
  return out;
}

Result<KbCollection> KbModule::Describe(std::string_view collection) {
  return WithIndex([&](kb::KbIndex& ix) { return ix.Collection(collection); });
}

Result<std::vector<KbEntry>> KbModule::Scan(const ReadScope& scope, std::string_view collection, int64_t after_key,
                                            size_t limit) {
  ENGRAM_ASSIGN_OR_RETURN(KbCollection c, Describe(collection));
  if (!c.folder.empty()) {  // one page holds all: the folder's entries, by id
    if (after_key != 0) return std::vector<KbEntry>();
    ENGRAM_ASSIGN_OR_RETURN(std::vector<KbEntry> all,
                            WithIndex([&](kb::KbIndex& ix) { return ix.FolderEntries(collection, scope); }));
    (void)limit;
    return all;
  }
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
    e.updated_by = KbModule::Who(ctx);
    entries.push_back(std::move(e));
  }
  ENGRAM_RETURN_IF_ERROR(EnsureCollection(ctx, collection));
  ENGRAM_RETURN_IF_ERROR(PutEntries(std::move(entries)));
  std::vector<std::string> ids;
  for (const KbDoc& d : docs) ids.push_back(d.id.empty() ? common::Md5Hex(d.text) : d.id);
  return ids;
}

Status KbModule::EnsureCollection(const OperationContext& ctx, std::string_view collection) {
  ENGRAM_ASSIGN_OR_RETURN(std::optional<KbCollection> existing, brain_.engine().FindKbCollection(collection));
  if (existing) return Status::Ok();
  if (collection != kDefaultKbCollection) {
    return Status::NotFound("no knowledge collection '" + std::string(collection) + "'");
  }
  Status made = Create(ctx, DefaultCollection(), EmbeddingConfigured());
  return made.code() == StatusCode::kAlreadyExists ? Status::Ok() : made;
}

Result<std::vector<std::string>> KbModule::Delete(std::string_view collection, const std::vector<std::string>& ids,
                                                  const std::vector<std::string>& texts) {
  if (ids.empty() && texts.empty()) return Status::InvalidArgument("ids和texts均为空 (ids and texts are both empty)");
  ENGRAM_ASSIGN_OR_RETURN(KbCollection c, Describe(collection));
  if (!c.folder.empty()) return KeptFromFolder(c);
  std::vector<std::string> wanted;
  if (!texts.empty()) {
    for (const std::string& t : texts) wanted.push_back(common::Md5Hex(t));
  } else {
    wanted = ids;
  }
  return brain_.engine().DeleteKbEntries(collection, wanted);
}

Result<std::vector<kb::Hit>> KbModule::Search(const ReadScope& scope, std::string_view collection,
                                              std::string_view text, const Json& filters,
                                              const kb::SearchOptions& options, std::string* similarity) {
  KbCollection searched;
  ENGRAM_ASSIGN_OR_RETURN(std::vector<kb::Hit> hits, SearchIn(scope, collection, text, filters, options, &searched));
  if (similarity != nullptr) *similarity = SimilarityOf(searched);
  return hits;
}

Result<std::vector<kb::Hit>> KbModule::SearchIn(const ReadScope& scope, std::string_view collection,
                                                std::string_view text, const Json& filters,
                                                const kb::SearchOptions& options, KbCollection* searched) {
  // Queries are embedded as documents: a red-line entry and a user's text are the same kind of text. The
  // query is embedded before the index's lock is taken: searches of other connections go on meanwhile.
  std::optional<Result<std::vector<float>>> query;
  if (Result<KbCollection> c = Describe(collection); c.ok() && !c->embedder.empty()) {
    query = [&]() -> Result<std::vector<float>> {
      ENGRAM_ASSIGN_OR_RETURN(embed::Embedder * e, EmbedderFor(*c));
      return e->Embed({std::string(text)}, embed::EmbedKind::kDocument);
    }();
  }
  Result<std::vector<kb::Hit>> hits = WithIndex([&](kb::KbIndex& ix) {
    return ix.Search(
        collection, scope, text, filters, options,
        [&](const KbCollection& c) -> Result<std::vector<float>> {
          if (query) return *query;
          ENGRAM_ASSIGN_OR_RETURN(embed::Embedder * e, EmbedderFor(c));  // made since it was described
          return e->Embed({std::string(text)}, embed::EmbedKind::kDocument);
        },
        searched);
  });
  // The default collection exists for callers before their first upsert: empty (and lexical), not unknown —
  // with the fields it will have, so a filter on any other is the same error as once it exists.
  if (!hits.ok() && hits.status().code() == StatusCode::kNotFound && collection == kDefaultKbCollection) {
    ENGRAM_RETURN_IF_ERROR(kb::Filter::Parse(kb::FilterableFields(DefaultCollection()), filters).status());
    return std::vector<kb::Hit>();
  }
  return hits;
}

}  // namespace engram::ops
