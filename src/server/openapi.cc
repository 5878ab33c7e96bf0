#include "server/openapi.h"

#include <nlohmann/json.hpp>
#include <string>

#include "ops/operations.h"

namespace engram::server {

using Json = nlohmann::json;

namespace {

Json Responses() {
  const Json error = {{"description", "{\"error\": {\"code\", \"message\"}}"},
                      {"content", {{"application/json", {{"schema", {{"$ref", "#/components/schemas/Error"}}}}}}}};
  return {{"200", {{"description", "the operation's result"}, {"content", {{"application/json", {{"schema", {{"type", "object"}}}}}}}}},
          {"400", error}, {"401", error}, {"403", error}, {"404", error}, {"409", error}, {"413", error},
          {"429", error}, {"500", error}, {"503", error}};
}

Json Op(const std::string& op_name, const std::string& summary, bool body, bool slug_in_path) {
  const ops::Operation* op = ops::FindOperation(op_name);
  Json o = {{"operationId", op_name}, {"summary", summary}, {"description", op->description},
            {"x-engram-scope", ScopeName(op->scope)}, {"responses", Responses()}};
  if (slug_in_path) {
    o["parameters"] = Json::array({{{"name", "slug"}, {"in", "path"}, {"required", true},
                                    {"description", "the page's slug (may contain /)"}, {"schema", {{"type", "string"}}}}});
  }
  if (body) {
    Json schema = ops::InputSchema(*op);
    if (slug_in_path && schema.contains("properties")) {
      schema["properties"].erase("slug");
      if (schema.contains("required")) {
        Json req = Json::array();
        for (const auto& r : schema["required"]) {
          if (r != "slug") req.push_back(r);
        }
        schema["required"] = req;
      }
    }
    o["requestBody"] = {{"required", true}, {"content", {{"application/json", {{"schema", schema}}}}}};
  }
  return o;
}

}  // namespace

Json OpenApi() {
  Json list = Op("list_pages", "List pages", false, false);
  list["parameters"] = Json::array({{{"name", "type"}, {"in", "query"}, {"schema", {{"type", "string"}}}},
                                    {{"name", "tag"}, {"in", "query"}, {"schema", {{"type", "string"}}}},
                                    {{"name", "limit"}, {"in", "query"}, {"schema", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}}}}});
  Json call = {{"operationId", "call"},
               {"summary", "Run any remote operation by name (the MCP tools)"},
               {"parameters", Json::array({{{"name", "operation"}, {"in", "path"}, {"required", true}, {"schema", {{"type", "string"}}}}})},
               {"requestBody", {{"content", {{"application/json", {{"schema", {{"type", "object"}}}}}}}}},
               {"responses", Responses()}};
  Json paths = {
      {"/healthz", {{"get", {{"operationId", "healthz"}, {"summary", "Liveness (no auth)"}, {"security", Json::array()},
                             {"responses", {{"200", {{"description", "{\"status\": \"ok\"}"}}}}}}}}},
      {"/v1/search", {{"post", Op("search", "Search the brain", true, false)}}},
      {"/v1/context", {{"post", Op("context", "The agent context block for a question", true, false)}}},
      {"/v1/status", {{"get", Op("status", "What the brain holds", false, false)}}},
      {"/v1/pages", {{"get", list}}},
      {"/v1/pages/{slug}", {{"get", Op("get_page", "Read a page", false, true)},
                            {"put", Op("put_page", "Create or replace a page ({\"content\": markdown})", true, true)},
                            {"delete", Op("delete_page", "Delete a page", false, true)}}},
      {"/v1/backlinks/{slug}", {{"get", Op("get_backlinks", "Pages linking to a page", false, true)}}},
      {"/v1/timeline/{slug}", {{"get", Op("get_timeline", "A page's timeline", false, true)},
                               {"post", Op("add_timeline_entry", "Add a timeline entry", true, true)}}},
      {"/v1/tags/{slug}", {{"get", Op("get_tags", "A page's tags", false, true)},
                           {"post", Op("add_tag", "Add a tag", true, true)}}},
      {"/v1/links", {{"post", Op("add_link", "Link a page to another", true, false)}}},
      {"/v1/call/{operation}", {{"post", call}}},
      {"/mcp", {{"post", {{"operationId", "mcp"},
                          {"summary", "Model Context Protocol, Streamable HTTP (one JSON-RPC message per request)"},
                          {"responses", Responses()}}}}},
  };
  return {{"openapi", "3.1.0"},
          {"info", {{"title", "engram"}, {"version", "0.1.0"},
                    {"description", "A local-first knowledge brain: search, read and write Markdown pages."}}},
          {"servers", Json::array({{{"url", "/"}}})},
          {"security", Json::array({{{"bearer", Json::array()}}})},
          {"components",
           {{"securitySchemes", {{"bearer", {{"type", "http"}, {"scheme", "bearer"}}}}},
            {"schemas", {{"Error", {{"type", "object"},
                                    {"properties", {{"error", {{"type", "object"},
                                                               {"properties", {{"code", {{"type", "string"}}},
                                                                               {"message", {{"type", "string"}}}}}}}}}}}}}}},
          {"paths", paths}};
}

}  // namespace engram::server
