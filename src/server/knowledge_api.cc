#include "server/knowledge_api.h"

#include <cmath>

#include "kb/dialog.h"

namespace engram::server::knowledge {

using Json = nlohmann::json;
using Ordered = nlohmann::ordered_json;

namespace {

// The envelope fields every request carries (unknown keys are ignored).
Status CheckCommonFields(const Json& body) {
  if (!body.is_object()) return Status::InvalidArgument("the request body must be a JSON object");
  for (const char* field : {"request_id", "business_id"}) {
    auto it = body.find(field);
    if (it == body.end() || !it->is_string()) {
      return Status::InvalidArgument(std::string(field) + " is required (a string)");
    }
  }
  auto session = body.find("session_id");
  if (session != body.end() && !session->is_null() && !session->is_string()) {
    return Status::InvalidArgument("session_id must be a string");
  }
  return Status::Ok();
}

// Copies body[key] into args when present and not null.
void Take(const Json& body, const char* key, Json* args, const char* as = nullptr) {
  auto it = body.find(key);
  if (it != body.end() && !it->is_null()) (*args)[as != nullptr ? as : key] = *it;
}

bool EmptyList(const Json& body, const char* key) {
  auto it = body.find(key);
  return it == body.end() || it->is_null() || (it->is_array() && it->empty());
}

}  // namespace

namespace {

constexpr std::string_view kGovernance = "data/redline_knowledge/";

// The governance routes: the body's fields are the operation's arguments (envelope fields dropped).
Result<Call> TranslateGovernance(std::string_view route, const Json& body) {
  static const std::pair<std::string_view, const char*> kOps[] = {
      {"upsert", "kb_gov_upsert"},   {"update", "kb_gov_update"},   {"online", "kb_gov_online"},
      {"offline", "kb_gov_offline"}, {"getById", "kb_gov_get"},     {"getByWord", "kb_gov_find"}};
  Call call;
  for (const auto& [name, op] : kOps) {
    if (route == name) call.op = op;
  }
  if (call.op.empty()) return Status::NotFound("no route /" + std::string(kGovernance) + std::string(route));
  call.args = body;
  for (const char* key : {"request_id", "business_id", "session_id"}) call.args.erase(key);
  return call;
}

}  // namespace

Result<Call> Translate(std::string_view path, const Json& body) {
  ENGRAM_RETURN_IF_ERROR(CheckCommonFields(body));
  if (path.substr(0, kGovernance.size()) == kGovernance) {
    return TranslateGovernance(path.substr(kGovernance.size()), body);
  }
  if (path == "dialog") {
    if (EmptyList(body, "history")) return Status::InvalidArgument("history为空");
    Call call{"dialog_check", Json::object()};
    Take(body, "history", &call.args);
    kb::KeepDialogFields(&call.args["history"]);
    Take(body, "maxTurns", &call.args, "max_turns");
    return call;
  }
  constexpr std::string_view kKnowledge = "knowledge/";
  if (path.substr(0, kKnowledge.size()) != kKnowledge) return Status::NotFound("no route /" + std::string(path));
  const std::string_view route = path.substr(kKnowledge.size());
  Call call;
  call.args = Json::object();
  Take(body, "collection", &call.args);
  if (route == "upsert") {
    if (EmptyList(body, "docs")) return Status::InvalidArgument("docs为空");
    call.op = "kb_upsert";
    Take(body, "docs", &call.args);
  } else if (route == "delete") {
    if (EmptyList(body, "ids") && EmptyList(body, "texts")) return Status::InvalidArgument("ids和texts均为空");
    call.op = "kb_delete";
    // Texts, when any are given, name the entries (their md5 ids) and ids are ignored.
    if (!EmptyList(body, "texts")) {
      Take(body, "texts", &call.args);
    } else {
      Take(body, "ids", &call.args);
    }
  } else if (route == "search") {
    if (EmptyList(body, "text_list")) return Status::InvalidArgument("text_list为空");
    call.op = "kb_search";
    for (const char* key : {"text_list", "top_k", "threshold", "filters", "return_embeddings"}) {
      Take(body, key, &call.args);
    }
  } else if (route == "answer" || route == "check") {
    if (EmptyList(body, "text_list")) return Status::InvalidArgument("text_list为空");
    call.op = route == "answer" ? "kb_answer" : "kb_check";
    for (const char* key : {"text_list", "top_k", "threshold", "filters", "same_threshold"}) {
      Take(body, key, &call.args);
    }
  } else {
    return Status::NotFound("no route /knowledge/" + std::string(route));
  }
  return call;
}

Ordered DataOf(std::string_view path, const Json& answer) {
  if (path.substr(0, kGovernance.size()) == kGovernance) return Ordered(answer);
  if (path == "knowledge/upsert") return Ordered(answer.value("ids", Json::array()));
  if (path == "knowledge/delete") return Ordered(answer.value("deleted", Json::array()));
  auto group = [](const Json& g) {
    Ordered o;
    for (const char* key : {"ids", "scores", "text_list", "embeddings", "metadatas"}) {
      o[key] = Ordered(g.value(key, Json::array()));
    }
    return o;
  };
  if (path == "dialog") {
    Ordered o;
    o["riskCode"] = answer.value("riskCode", 0);
    o["riskMessage"] = answer.value("riskMessage", "");
    o["reason"] = answer.value("reason", "");
    o["checked"] = answer.value("checked", false);
    return o;
  }
  if (path == "knowledge/check") {
    Ordered o;
    o["riskCode"] = answer.value("riskCode", 0);
    o["hits"] = group(answer.value("hits", Json::object()));
    o["answer"] = answer.value("answer", "");
    return o;
  }
  if (path == "knowledge/answer") {
    Ordered o;
    for (const char* key : {"answer", "answer_backup", "no_answer_reason", "answer_ref_similar"}) {
      o[key] = Ordered(answer.value(key, Json()));
    }
    o["refDocs"] = group(answer.value("refDocs", Json::object()));
    return o;
  }
  Ordered groups = Ordered::array();
  for (const Json& g : answer.value("groups", Json::array())) groups.push_back(group(g));
  return groups;
}

std::string Envelope(const Status& status, double cost_seconds, const Ordered& data) {
  Ordered e;
  e["code"] = status.ok() ? 0 : 1;
  e["message"] = status.ok() ? std::string("success") : status.message();
  e["cost"] = std::round(cost_seconds * 1e6) / 1e6;
  e["data"] = status.ok() ? data : Ordered();
  return e.dump(-1, ' ', false, Ordered::error_handler_t::replace);
}

}  // namespace engram::server::knowledge
