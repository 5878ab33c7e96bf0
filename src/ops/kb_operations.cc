// The knowledge module's operations: collections and their entries, and the
// similarity search the red-line knowledge service answers from.
#include <nlohmann/json.hpp>

#include "ops/kb_module.h"
#include "ops/operations.h"

namespace engram::ops {

using Json = nlohmann::json;
using Type = Param::Type;

namespace {

KbModule& Kb(Brain& brain) { return brain.Module<KbModule>(); }

Param Collection() {
  return {"collection", Type::kString, false, "the collection (default: \"default\")", 0, 0, 64, {}, {}};
}

std::string CollectionOf(const Args& a) { return a.Str("collection", kDefaultKbCollection); }

Json FieldsJson(const std::vector<KbField>& fields) {
  Json out = Json::array();
  for (const KbField& f : fields) out.push_back({{"name", f.name}, {"type", KbFieldTypeName(f.type)}});
  return out;
}

// A hit's fields as the original service returns them: source and the meta keys.
Json Metadata(const KbEntry& e) {
  Json m = Json::parse(e.meta, nullptr, false);
  if (!m.is_object()) m = Json::object();
  m["source"] = e.source;
  return m;
}

// One group of the original's search answer: parallel lists, best first.
Json Group(const std::vector<kb::Hit>& hits) {
  Json g = {{"ids", Json::array()}, {"scores", Json::array()}, {"text_list", Json::array()},
            {"embeddings", Json::array()}, {"metadatas", Json::array()}};
  for (const kb::Hit& h : hits) {
    g["ids"].push_back(h.entry.id);
    g["scores"].push_back(h.score);
    g["text_list"].push_back(h.entry.text);
    g["metadatas"].push_back(Metadata(h.entry));
  }
  return g;
}

Result<Json> Search(Brain& b, const Args& a) {
  kb::SearchOptions o;
  o.top_k = static_cast<size_t>(a.Int("top_k", 5));
  o.threshold = a.Num("threshold", 0.8);
  const Json* filters = a.Raw("filters");
  const std::string collection = CollectionOf(a);
  Json groups = Json::array();
  for (const std::string& text : a.Strings("text_list")) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<kb::Hit> hits,
                            Kb(b).Search(collection, text, filters != nullptr ? *filters : Json(), o));
    groups.push_back(Group(hits));
  }
  std::string similarity = "lexical";
  if (auto c = Kb(b).Describe(collection); c.ok()) similarity = KbModule::SimilarityOf(*c);
  return Json{{"collection", collection}, {"similarity", similarity}, {"groups", groups}};
}

}  // namespace

void AddKbOperations(OperationTable& ops) {
  ops.Add({"kb_create",
           "Create a knowledge collection: curated entries (id, text, source, meta) searched by similarity, with "
           "the meta fields it can filter on and their types.",
           Scope::kWrite,
           false,
           {{"collection", Type::kString, true, "its name: 1-64 letters, digits, '_', '-' or '.'", 0, 0, 64, {}, {}},
            {"fields",
             Type::kObjects,
             false,
             "filterable meta fields (source always is)",
             0,
             64,
             0,
             {},
             {{"name", Type::kString, true, "the meta key", 0, 0, 64, {}, {}},
              {"type", Type::kString, false, "string (default), number or date", 0, 0, 16,
               {"string", "number", "date"}, {}}}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             KbCollection c;
             c.name = a.Str("collection");
             if (const Json* fields = a.Raw("fields")) {
               for (const Json& f : *fields) {
                 c.fields.push_back({f["name"].get<std::string>(),
                                     ParseKbFieldType(f.value("type", "string")).value_or(KbFieldType::kString)});
               }
             }
             ENGRAM_RETURN_IF_ERROR(Kb(b).Create(ctx, c));
             return Json{{"created", c.name}, {"fields", FieldsJson(c.fields)}, {"similarity", "lexical"}};
           }});
  ops.Add({"kb_list", "List the knowledge collections with their entry counts, fields and similarity.", Scope::kRead,
           false, {},
           [](Brain& b, const OperationContext&, const Args&) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(std::vector<KbCollectionStats> stats, Kb(b).List());
             Json out = Json::array();
             for (const KbCollectionStats& s : stats) {
               ENGRAM_ASSIGN_OR_RETURN(KbCollection c, Kb(b).Describe(s.name));
               out.push_back({{"collection", s.name}, {"entries", s.entries}, {"fields", FieldsJson(c.fields)},
                              {"similarity", KbModule::SimilarityOf(c)}, {"created_at", c.created_at},
                              {"created_by", c.created_by}});
             }
             return Json{{"collections", out}};
           }});
  ops.Add({"kb_upsert",
           "Add or replace knowledge entries (all or none). An entry without an id gets md5(text); one with the id "
           "of an existing entry replaces it.",
           Scope::kWrite,
           false,
           {Collection(),
            {"docs",
             Type::kObjects,
             true,
             "the entries (1-1000)",
             0,
             1000,
             0,
             {},
             {{"id", Type::kString, false, "its id (default: md5 of the text)", 0, 0, 256, {}, {}},
              {"text", Type::kString, true, "the text searched", 0, 0, 65536, {}, {}},
              {"source", Type::kString, false, "where it comes from (filterable)", 0, 0, 256, {}, {}},
              {"meta", Type::kMap, false, "flat fields: safeChat (the safe answer), className, type, ...", 0, 0, 0,
               {}, {}}}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             std::vector<KbDoc> docs;
             for (const Json& d : *a.Raw("docs")) {
               auto meta = d.find("meta");
               docs.push_back({d.value("id", ""), d["text"].get<std::string>(), d.value("source", ""),
                               meta != d.end() ? &*meta : nullptr});
             }
             ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> ids, Kb(b).Upsert(ctx, CollectionOf(a), docs));
             return Json{{"collection", CollectionOf(a)}, {"ids", ids}};
           }});
  ops.Add({"kb_delete",
           "Delete knowledge entries by id, or by text (the md5 ids of the texts; then ids are ignored).",
           Scope::kWrite,
           false,
           {Collection(),
            {"ids", Type::kStrings, false, "entry ids", 0, 0, 256, {}, {}},
            {"texts", Type::kStrings, false, "entry texts", 0, 0, 65536, {}, {}}},
           [](Brain& b, const OperationContext&, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> deleted,
                                     Kb(b).Delete(CollectionOf(a), a.Strings("ids"), a.Strings("texts")));
             return Json{{"collection", CollectionOf(a)}, {"deleted", deleted}};
           }});
  ops.Add({"kb_search",
           "Find the knowledge entries most similar to each text (one group per text, best first, each score >= "
           "threshold). Scores are cosines in [0, 1]: of embeddings when the collection has a model, else TF-IDF "
           "over the analyzer's terms; `similarity` says which.",
           Scope::kRead,
           false,
           {Collection(),
            {"text_list", Type::kStrings, true, "the texts to match (1-50)", 0, 0, 65536, {}, {}},
            {"top_k", Type::kInteger, false, "hits per text (1-100, default 5)", 1, 100, 0, {}, {}},
            {"threshold", Type::kNumber, false, "minimum score, inclusive (0-1, default 0.8)", 0, 1, 0, {}, {}},
            {"filters", Type::kMap, false,
             "{field: [values]} (IN, AND across fields), or {field: {in, not_in, gt, gte, lt, lte}}", 0, 0, 0, {},
             {}},
            {"return_embeddings", Type::kBoolean, false, "include the hits' embeddings (none for lexical)", 0, 0, 0,
             {}, {}}},
           [](Brain& b, const OperationContext&, const Args& a) -> Result<Json> { return Search(b, a); }});
}

}  // namespace engram::ops
