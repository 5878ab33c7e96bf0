#include "server/knowledge_api.h"

#include <cmath>

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

Result<Call> Translate(std::string_view route, const Json& body) {
  ENGRAM_RETURN_IF_ERROR(CheckCommonFields(body));
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
  } else {
    return Status::NotFound("no route /knowledge/" + std::string(route));
  }
  return call;
}

Ordered DataOf(std::string_view route, const Json& answer) {
  if (route == "upsert") return Ordered(answer.value("ids", Json::array()));
  if (route == "delete") return Ordered(answer.value("deleted", Json::array()));
  Ordered groups = Ordered::array();
  for (const Json& g : answer.value("groups", Json::array())) {
    Ordered o;
    for (const char* key : {"ids", "scores", "text_list", "embeddings", "metadatas"}) {
      o[key] = Ordered::parse(g.value(key, Json::array()).dump());
    }
    groups.push_back(std::move(o));
  }
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
