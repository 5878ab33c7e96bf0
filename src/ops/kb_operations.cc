// The knowledge module's operations: collections and their entries, and the
// similarity search the red-line knowledge service answers from.
#include <cstdint>
#include <nlohmann/json.hpp>

#include "common/utf8.h"
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

// One group of the original's search answer: parallel lists, best first;
// the hits' embeddings when asked for (none in a lexical collection).
Json Group(const std::vector<kb::Hit>& hits, bool embeddings = false) {
  Json g = {{"ids", Json::array()}, {"scores", Json::array()}, {"text_list", Json::array()},
            {"embeddings", Json::array()}, {"metadatas", Json::array()}};
  for (const kb::Hit& h : hits) {
    g["ids"].push_back(h.entry.id);
    g["scores"].push_back(h.score);
    g["text_list"].push_back(h.entry.text);
    g["metadatas"].push_back(Metadata(h.entry));
    if (embeddings && !h.entry.vector.empty()) g["embeddings"].push_back(h.entry.vector);
  }
  return g;
}

Result<Json> Search(Brain& b, const OperationContext& ctx, const Args& a) {
  kb::SearchOptions o;
  const KbOptions& d = b.options().kb;
  o.top_k = static_cast<size_t>(a.Int("top_k", d.top_k));
  o.threshold = a.Num("threshold", d.threshold);
  const Json* filters = a.Raw("filters");
  const std::string collection = CollectionOf(a);
  Json groups = Json::array();
  std::string similarity = "lexical";  // what the searches report; an empty text_list searches nothing
  for (const std::string& text : a.Strings("text_list")) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<kb::Hit> hits,
                            Kb(b).Search(ReadScopeOf(ctx), collection, text, filters != nullptr ? *filters : Json(), o, &similarity));
    groups.push_back(Group(hits, a.Bool("return_embeddings", true)));
  }
  return Json{{"collection", collection}, {"similarity", similarity}, {"groups", groups}};
}

// The guarded answer's parameters (kb_answer, kb_check).
std::vector<Param> AnswerParams() {
  return {Collection(),
          {"text_list", Type::kStrings, true, "the question (the first text is answered)", 0, 0, 65536, {}, {}},
          {"top_k", Type::kInteger, false, "references (1-100, default [kb] top_k, 5)", 1, 100, 0, {}, {}},
          {"threshold", Type::kNumber, false,
           "minimum reference score, inclusive (0-1, default [kb] threshold, 0.8)", 0, 1, 0, {},
           {}},
          {"same_threshold", Type::kNumber, false,
           "a top hit this similar answers directly (0-1, default [kb] same_threshold, 0.9)", 0,
           1, 0, {}, {}},
          {"answer_similarity", Type::kNumber, false,
           "an LLM answer less similar than this to the top hit's safeChat is not given (0-1, default [kb] "
           "answer_similarity, 0.7)", 0, 1,
           0, {}, {}},
          {"filters", Type::kMap, false, "as kb_search", 0, 0, 0, {}, {}}};
}

Result<KbAnswer> Answer(Brain& b, const OperationContext& ctx, const Args& a) {
  const std::vector<std::string> texts = a.Strings("text_list");
  if (texts.empty()) return Status::InvalidArgument("text_list为空");
  if (common::TrimSpace(texts.front()).empty()) {
    return Status::InvalidArgument("text_list[0]为空 (the question to answer is empty)");
  }
  const KbOptions& d = b.options().kb;
  KbAnswerOptions o;
  o.search.top_k = static_cast<size_t>(a.Int("top_k", d.top_k));
  o.search.threshold = a.Num("threshold", d.threshold);
  o.same_threshold = a.Num("same_threshold", d.same_threshold);
  o.answer_similarity = a.Num("answer_similarity", d.answer_similarity);
  const Json* filters = a.Raw("filters");
  return Kb(b).Answer(ReadScopeOf(ctx), CollectionOf(a), texts.front(), filters != nullptr ? *filters : Json(), o);
}

// The governed entry's fields a caller writes (upsert, update).
std::vector<Param> GovernedFields(bool upsert) {
  auto text = [](const char* name, const char* what, size_t max_bytes) {
    return Param{name, Type::kString, false, what, 0, 0, max_bytes, {}, {}};
  };
  std::vector<Param> p;
  if (upsert) {
    p.push_back({"business_scene", Type::kString, true, "the business scene it belongs to", 0, 0, 256, {}, {}});
    p.push_back({"question", Type::kString, true, "the red-line question (uniq_id = its md5)", 0, 0, 65536, {}, {}});
    p.push_back({"status", Type::kString, false, "online (default: searchable) or offline", 0, 0, 16,
                 {"online", "offline"}, {}});
    p.push_back(Collection());
  } else {
    p.push_back({"id", Type::kInteger, true, "the governed entry (its latest version)", 1, INT64_MAX, 0, {}, {}});
    p.push_back(text("question", "a new question text", 65536));
  }
  p.push_back(text("answer", "the safe standard answer (safeChat)", 65536));
  p.push_back({"metadata", Type::kMap, false, "any JSON object kept with it", 0, 0, 0, {}, {}});
  p.push_back(text("class_name", "its class, levels joined by '/'", 1024));
  p.push_back(text("class_no", "its class number", 256));
  p.push_back(text("source", "where it comes from", 256));
  p.push_back(text("type", "its type (indexed as \"none\" when empty)", 256));
  p.push_back(text("desc", "a description", 4096));
  for (const char* who : {"editor", "editor_id", "auditor", "auditor_id", "releaser", "releaser_id"}) {
    p.push_back(text(who, "who edited, audited or released it", 256));
  }
  return p;
}

GovernedEntry GovernedOf(const Args& a) {
  GovernedEntry g;
  g.business_scene = a.Str("business_scene");
  g.question = a.Str("question");
  g.answer = a.Str("answer");
  const Json* meta = a.Raw("metadata");
  g.metadata = meta != nullptr ? meta->dump(-1, ' ', false, Json::error_handler_t::replace) : "{}";
  g.class_name = a.Str("class_name");
  g.class_no = a.Str("class_no");
  g.source = a.Str("source");
  g.type = a.Str("type");
  g.desc = a.Str("desc");
  g.status = a.Str("status", "online");
  g.editor = a.Str("editor");
  g.editor_id = a.Str("editor_id");
  g.auditor = a.Str("auditor");
  g.auditor_id = a.Str("auditor_id");
  g.releaser = a.Str("releaser");
  g.releaser_id = a.Str("releaser_id");
  g.collection = a.Str("collection", kDefaultKbCollection);
  return g;
}

Param GovernedId() { return {"id", Type::kInteger, true, "the governed entry", 1, INT64_MAX, 0, {}, {}}; }

Json AuditJson(const KbAuditEntry& e) {
  auto parsed = [](const std::string& s) { return s.empty() ? Json() : Json::parse(s, nullptr, false); };
  return {{"at", e.at}, {"who", e.who}, {"action", e.action}, {"governed_id", e.governed_id},
          {"before", parsed(e.before)}, {"after", parsed(e.after)}};
}

void AddGovernanceOperations(OperationTable& ops) {
  ops.Add({"kb_gov_upsert",
           "Add a governed red-line entry (version 1), or, when its question and scene exist, a new version of it. "
           "Its latest online version is searchable in its collection, changed in the same transaction.",
           Scope::kWrite, false, GovernedFields(true),
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(GovernedEntry g, Kb(b).GovernedUpsert(ctx, GovernedOf(a)));
             return GovernedJson(g);
           }});
  ops.Add({"kb_gov_update",
           "Update a governed entry: a new version with the given fields changed, re-indexed (the old version "
           "leaves search in the same transaction).",
           Scope::kWrite, false, GovernedFields(false),
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             GovernedEntry changes = GovernedOf(a);
             if (!a.Has("metadata")) changes.metadata.clear();
             ENGRAM_ASSIGN_OR_RETURN(GovernedEntry g, Kb(b).GovernedUpdate(ctx, a.Int("id", 0), changes));
             return GovernedJson(g);
           }});
  for (const bool online : {true, false}) {
    ops.Add({online ? "kb_gov_online" : "kb_gov_offline",
             online ? "Put a governed entry online: searchable as soon as this returns."
                    : "Take a governed entry offline: no search started after this returns finds it.",
             Scope::kWrite, false, {GovernedId()},
             [online](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
               ENGRAM_ASSIGN_OR_RETURN(GovernedEntry g, Kb(b).GovernedSetStatus(ctx, a.Int("id", 0), online));
               return GovernedJson(g);
             }});
  }
  ops.Add({"kb_gov_get", "Read a governed entry by id (any version, any status).", Scope::kRead, false, {GovernedId()},
           [](Brain& b, const OperationContext&, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(GovernedEntry g, Kb(b).GovernedGet(a.Int("id", 0)));
             return GovernedJson(g);
           }});
  ops.Add({"kb_gov_find", "Find online governed entries whose question contains a word (latest versions).",
           Scope::kRead, false,
           {{"word", Type::kString, true, "the word, matched as written", 0, 0, 1024, {}, {}},
            {"limit", Type::kInteger, false, "entries (1-1000, default 100)", 1, 1000, 0, {}, {}}},
           [](Brain& b, const OperationContext&, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(std::vector<GovernedEntry> found,
                                     Kb(b).GovernedFind(a.Str("word"), static_cast<size_t>(a.Int("limit", 100))));
             Json out = Json::array();
             for (const GovernedEntry& g : found) out.push_back(GovernedJson(g));
             return Json{{"entries", out}};
           }});
  ops.Add({"kb_audit", "The governance log: who changed which entry when, with the row before and after.",
           Scope::kRead, false,
           {{"id", Type::kInteger, false, "only this governed entry's changes", 1, INT64_MAX, 0, {}, {}},
            {"limit", Type::kInteger, false, "entries, newest first (1-10000, default 100)", 1, 10000, 0, {}, {}}},
           [](Brain& b, const OperationContext&, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(std::vector<KbAuditEntry> log,
                                     Kb(b).Audit(a.Int("id", 0), static_cast<size_t>(a.Int("limit", 100))));
             Json out = Json::array();
             for (const KbAuditEntry& e : log) out.push_back(AuditJson(e));
             return Json{{"audit", out}};
           }});
  ops.Add({"kb_reindex",
           "Rebuild the searchable entries of governed rows: every online latest version present, nothing else of "
           "theirs. Idempotent: a second run changes nothing.",
           Scope::kAdmin, false, {},
           [](Brain& b, const OperationContext& ctx, const Args&) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(size_t changed, Kb(b).Reindex(ctx));
             return Json{{"changed", changed}};
           }});
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
               {"string", "number", "date"}, {}}}},
            {"similarity", Type::kString, false,
             "embedding (the [embedding] model's cosine; the default when one is configured) or lexical", 0, 0, 16,
             {"embedding", "lexical"}, {}},
            {"folder", Type::kString, false,
             "keep the collection from this folder of Markdown pages (one entry per page: frontmatter question/answer/"
             "class/type/status or ## Q / ## A sections), current with every sync; lexical. It reads pages: "
             "an admin's (or the local CLI's)",
             0, 0, 1024, {}, {}, Scope::kAdmin}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             KbCollection c;
             c.name = a.Str("collection");
             if (const Json* fields = a.Raw("fields")) {
               for (const Json& f : *fields) {
                 c.fields.push_back({f["name"].get<std::string>(),
                                     ParseKbFieldType(f.value("type", "string")).value_or(KbFieldType::kString)});
               }
             }
             c.folder = a.Str("folder");
             const bool embed =
                 a.Str("similarity", Kb(b).EmbeddingConfigured() && c.folder.empty() ? "embedding" : "lexical") ==
                 "embedding";
             ENGRAM_RETURN_IF_ERROR(Kb(b).Create(ctx, c, embed));
             ENGRAM_ASSIGN_OR_RETURN(KbCollection made, Kb(b).Describe(c.name));
             return Json{{"created", c.name}, {"fields", FieldsJson(c.fields)},
                         {"similarity", KbModule::SimilarityOf(made)}, {"folder", made.folder}};
           }});
  ops.Add({"kb_list", "List the knowledge collections with their entry counts, fields and similarity.", Scope::kRead,
           false, {},
           [](Brain& b, const OperationContext& ctx, const Args&) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(auto collections, Kb(b).List(ReadScopeOf(ctx)));
             Json out = Json::array();
             for (const auto& [c, entries] : collections) {
               out.push_back({{"collection", c.name}, {"entries", entries}, {"fields", FieldsJson(c.fields)},
                              {"similarity", KbModule::SimilarityOf(c)}, {"folder", c.folder},
                              {"created_at", c.created_at}, {"created_by", c.created_by}});
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
            {"ids", Type::kStrings, false, "entry ids (at most 1000)", 0, 1000, 256, {}, {}},
            {"texts", Type::kStrings, false, "entry texts (at most 1000)", 0, 1000, 65536, {}, {}}},
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
            {"top_k", Type::kInteger, false, "hits per text (1-100, default [kb] top_k, 5)", 1, 100, 0, {}, {}},
            {"threshold", Type::kNumber, false, "minimum score, inclusive (0-1, default [kb] threshold, 0.8)", 0, 1, 0,
             {}, {}},
            {"filters", Type::kMap, false,
             "{field: [values]} (IN, AND across fields), or {field: {in, not_in, gt, gte, lt, lte}}", 0, 0, 0, {},
             {}},
            {"return_embeddings", Type::kBoolean, false, "include the hits' embeddings (none for lexical)", 0, 0, 0,
             {}, {}}},
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> { return Search(b, ctx, a); }});
  ops.Add({"kb_answer",
           "Answer a question from a knowledge collection, guarded: no hit -> no answer (\"无数据\"); a top hit at "
           "least same_threshold similar -> its safeChat verbatim; otherwise the configured LLM answers from the "
           "hits, kept only when close to the top hit's safeChat.",
           Scope::kRead,
           false,
           AnswerParams(),
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(KbAnswer r, Answer(b, ctx, a));
             return Json{{"answer", r.answer}, {"answer_backup", r.answer_backup},
                         {"no_answer_reason", r.no_answer_reason}, {"answer_ref_similar", r.answer_ref_similar},
                         {"refDocs", Group(r.references)}, {"similarity", r.similarity}};
           }});
  ops.Add({"kb_check",
           "For gateways: the guarded answer as a risk code — 110101 when an answer is returned, 110100 when the "
           "text resembles a red-line entry but no answer is given, 0 otherwise — with the hits and the answer.",
           Scope::kRead, false, AnswerParams(),
           [](Brain& b, const OperationContext& ctx, const Args& a) -> Result<Json> {
             ENGRAM_ASSIGN_OR_RETURN(KbAnswer r, Answer(b, ctx, a));
             const int risk = !r.answer.empty() ? 110101 : (!r.references.empty() ? 110100 : 0);
             return Json{{"riskCode", risk}, {"hits", Group(r.references)}, {"answer", r.answer},
                         {"no_answer_reason", r.no_answer_reason}, {"similarity", r.similarity}};
           }});
  ops.Add({"dialog_check",
           "Check a multi-turn conversation for a step-by-step jailbreak: the [llm] model labels it under [kb] "
           "dialog_principles (riskCode 1 = 恶意对话). Streamed fragments (same role and messageId) are merged and "
           "the last max_turns x 2 messages kept. checked is false when no model answered with a label.",
           Scope::kRead,
           false,
           {{"history",
             Type::kObjects,
             true,
             "the conversation, oldest first (1-10000 messages)",
             0,
             10000,
             0,
             {},
             {{"role", Type::kString, true, "user, assistant, ...", 0, 0, 64, {}, {}},
              {"content", Type::kString, true, "the message (or a streamed fragment of it)", 0, 0, 65536, {}, {}},
              {"messageId", Type::kString, false, "fragments with the same role and messageId are one message", 0,
               0, 256, {}, {}}}},
            {"max_turns", Type::kInteger, false, "turns kept (1-1000, default [kb] max_turns, 20)", 1, 1000, 0, {},
             {}}},
           [](Brain& b, const OperationContext&, const Args& a) -> Result<Json> {
             std::vector<kb::DialogMessage> history;
             for (const Json& m : *a.Raw("history")) {
               history.push_back({m["role"].get<std::string>(), m["content"].get<std::string>(),
                                  m.value("messageId", "")});
             }
             const int64_t turns = a.Int("max_turns", b.options().kb.max_turns);
             ENGRAM_ASSIGN_OR_RETURN(KbDialogCheck r, Kb(b).Dialog(history, static_cast<size_t>(turns)));
             return Json{{"riskCode", r.risk_code}, {"riskMessage", r.risk_message}, {"reason", r.reason},
                         {"checked", r.checked}, {"messages", r.messages}};
           }});
  AddGovernanceOperations(ops);
}

}  // namespace engram::ops
