// The OpenAPI 3.1 document of the HTTP API (GET /v1/openapi.json), its
// request bodies taken from the operations' JSON Schemas.
#pragma once

#include <nlohmann/json_fwd.hpp>

namespace engram::server {

nlohmann::json OpenApi();

}  // namespace engram::server
