#include "ops/operations.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/utf8.h"

namespace engram::ops {

using Json = nlohmann::json;
using Type = Param::Type;

namespace {

const char* TypeName(Type t) {
  switch (t) {
    case Type::kString: return "a string";
    case Type::kInteger: return "an integer";
    case Type::kBoolean: return "true or false";
    case Type::kStrings: return "a string or a list of strings";
    case Type::kObject: return "an object";
    case Type::kNumber: return "a number";
    case Type::kObjects: return "a list of objects";
    case Type::kMap: return "an object";
  }
  return "a value";
}

std::string Names(const std::vector<Param>& params) {
  std::string out;
  for (const Param& p : params) out += (out.empty() ? "" : ", ") + p.name;
  return out.empty() ? "none" : out;
}

Status CheckString(const std::string& where, const Param& p, const Json& v) {
  const std::string& s = v.get_ref<const std::string&>();
  if (const size_t bad = common::FindInvalidUtf8(s); bad != std::string::npos) {
    return Status::InvalidArgument(where + " is not valid UTF-8 at byte " + std::to_string(bad));
  }
  if (p.max_bytes > 0 && s.size() > p.max_bytes) {
    return Status::InvalidArgument(where + " is " + std::to_string(s.size()) + " bytes, over the limit of " +
                                   std::to_string(p.max_bytes));
  }
  if (!p.choices.empty() && std::find(p.choices.begin(), p.choices.end(), s) == p.choices.end()) {
    std::string allowed;
    for (const auto& c : p.choices) allowed += (allowed.empty() ? "" : ", ") + c;
    return Status::InvalidArgument(where + " must be one of " + allowed + ", not '" + s + "'");
  }
  return Status::Ok();
}

// Validates *obj against params in place (kStrings normalised to lists).
Status Validate(const std::string& prefix, const std::vector<Param>& params, Json* obj) {
  if (obj->is_null()) *obj = Json::object();
  if (!obj->is_object()) return Status::InvalidArgument((prefix.empty() ? "arguments" : prefix) + " must be a JSON object");
  for (auto it = obj->begin(); it != obj->end(); ++it) {
    auto p = std::find_if(params.begin(), params.end(), [&](const Param& x) { return x.name == it.key(); });
    if (p == params.end()) {
      return Status::InvalidArgument("unknown field '" + prefix + it.key() + "' (expected: " + Names(params) + ")");
    }
  }
  for (const Param& p : params) {
    const std::string where = "field '" + prefix + p.name + "'";
    auto it = obj->find(p.name);
    if (it == obj->end() || it->is_null()) {
      if (p.required) return Status::InvalidArgument(where + " is required");
      if (it != obj->end()) obj->erase(it);
      continue;
    }
    Json& v = *it;
    switch (p.type) {
      case Type::kString:
        if (!v.is_string()) return Status::InvalidArgument(where + " must be " + TypeName(p.type));
        ENGRAM_RETURN_IF_ERROR(CheckString(where, p, v));
        break;
      case Type::kInteger: {
        if (!v.is_number_integer()) return Status::InvalidArgument(where + " must be " + TypeName(p.type));
        const int64_t n = v.get<int64_t>();
        if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
          return Status::InvalidArgument(where + " is out of range");
        }
        if (p.max > p.min && (n < p.min || n > p.max)) {
          return Status::InvalidArgument(where + " must be between " + std::to_string(p.min) + " and " +
                                         std::to_string(p.max) + ", not " + std::to_string(n));
        }
        break;
      }
      case Type::kBoolean:
        if (!v.is_boolean()) return Status::InvalidArgument(where + " must be " + TypeName(p.type));
        break;
      case Type::kStrings: {
        if (v.is_string()) v = Json::array({v});
        if (!v.is_array()) return Status::InvalidArgument(where + " must be " + TypeName(p.type));
        const size_t most = p.max > 0 ? static_cast<size_t>(p.max) : 50;
        if (v.size() > most) {
          return Status::InvalidArgument(where + " has " + std::to_string(v.size()) + " items, over " +
                                         std::to_string(most));
        }
        for (const Json& item : v) {
          if (!item.is_string()) return Status::InvalidArgument(where + " must hold strings only");
          ENGRAM_RETURN_IF_ERROR(CheckString(where, p, item));
        }
        break;
      }
      case Type::kObject:
        ENGRAM_RETURN_IF_ERROR(Validate(prefix + p.name + ".", p.fields, &v));
        break;
      case Type::kNumber: {
        if (!v.is_number()) return Status::InvalidArgument(where + " must be " + TypeName(p.type));
        const double x = v.get<double>();
        if (p.max > p.min && !(x >= static_cast<double>(p.min) && x <= static_cast<double>(p.max))) {
          return Status::InvalidArgument(where + " must be between " + std::to_string(p.min) + " and " +
                                         std::to_string(p.max) + ", not " + v.dump());
        }
        break;
      }
      case Type::kObjects: {
        if (!v.is_array()) return Status::InvalidArgument(where + " must be " + TypeName(p.type));
        if (p.max > 0 && v.size() > static_cast<size_t>(p.max)) {
          return Status::InvalidArgument(where + " has " + std::to_string(v.size()) + " items, over " +
                                         std::to_string(p.max));
        }
        for (size_t i = 0; i < v.size(); ++i) {
          ENGRAM_RETURN_IF_ERROR(Validate(prefix + p.name + "[" + std::to_string(i) + "].", p.fields, &v[i]));
        }
        break;
      }
      case Type::kMap:
        if (!v.is_object()) return Status::InvalidArgument(where + " must be " + TypeName(p.type));
        break;
    }
  }
  return Status::Ok();
}

Json Schema(const Param& p) {
  Json s;
  switch (p.type) {
    case Type::kString:
      s = {{"type", "string"}};
      if (p.max_bytes > 0) s["maxLength"] = p.max_bytes;
      if (!p.choices.empty()) s["enum"] = p.choices;
      break;
    case Type::kInteger:
      s = {{"type", "integer"}};
      if (p.max > p.min) {
        s["minimum"] = p.min;
        s["maximum"] = p.max;
      }
      break;
    case Type::kBoolean: s = {{"type", "boolean"}}; break;
    case Type::kStrings:
      s = {{"anyOf", Json::array({{{"type", "string"}},
                                  {{"type", "array"}, {"items", {{"type", "string"}}},
                                   {"maxItems", p.max > 0 ? p.max : int64_t{50}}}})}};
      break;
    case Type::kObject: {
      Json props = Json::object();
      for (const Param& f : p.fields) props[f.name] = Schema(f);
      s = {{"type", "object"}, {"properties", props}, {"additionalProperties", false}};
      break;
    }
    case Type::kNumber:
      s = {{"type", "number"}};
      if (p.max > p.min) {
        s["minimum"] = p.min;
        s["maximum"] = p.max;
      }
      break;
    case Type::kObjects: {
      Param item = p;
      item.type = Type::kObject;
      item.description.clear();
      s = {{"type", "array"}, {"items", Schema(item)}};
      if (p.max > 0) s["maxItems"] = p.max;
      break;
    }
    case Type::kMap: s = {{"type", "object"}}; break;
  }
  if (!p.description.empty()) s["description"] = p.description;
  return s;
}

// The whole table: each module adds its operations, in this order, which is
// the order operations are listed in (MCP tools, OpenAPI, `engram call --list`).
// A new module (kb, graph, jobs) writes its own *_operations.cc and adds its
// registrar here.
std::vector<Operation> Build() {
  OperationTable table;
  for (void (*add)(OperationTable&) : {AddSearchOperations, AddPageOperations, AddPagePartOperations,
                                        AddSyncOperations, AddEmbeddingOperations, AddKbOperations,
                                        AddGraphOperations}) {
    add(table);
  }
  if (!table.error().empty()) {
    std::fprintf(stderr, "engram: the operation table is inconsistent: %s\n", table.error().c_str());
    std::abort();  // a programming error, found by any test that lists the operations
  }
  return table.Take();
}

}  // namespace

bool Args::Has(std::string_view name) const { return j_ != nullptr && j_->contains(name); }

std::string Args::Str(std::string_view name, std::string_view fallback) const {
  if (!Has(name)) return std::string(fallback);
  return j_->at(std::string(name)).get<std::string>();
}

int64_t Args::Int(std::string_view name, int64_t fallback) const {
  return Has(name) ? j_->at(std::string(name)).get<int64_t>() : fallback;
}

bool Args::Bool(std::string_view name, bool fallback) const {
  return Has(name) ? j_->at(std::string(name)).get<bool>() : fallback;
}

double Args::Num(std::string_view name, double fallback) const {
  return Has(name) ? j_->at(std::string(name)).get<double>() : fallback;
}

const Json* Args::Raw(std::string_view name) const { return Has(name) ? &j_->at(std::string(name)) : nullptr; }

std::vector<std::string> Args::Strings(std::string_view name) const {
  if (!Has(name)) return {};
  return j_->at(std::string(name)).get<std::vector<std::string>>();
}

Args Args::Object(std::string_view name) const { return Args(Has(name) ? &j_->at(std::string(name)) : nullptr); }

void OperationTable::Add(Operation op) {
  std::string why;
  if (op.name.empty()) {
    why = "an operation without a name";
  } else if (!op.run) {
    why = "operation '" + op.name + "' has no handler";
  } else if (std::any_of(ops_.begin(), ops_.end(), [&](const Operation& o) { return o.name == op.name; })) {
    why = "operation '" + op.name + "' is added twice";
  }
  if (!why.empty()) {
    if (error_.empty()) error_ = why;
    return;
  }
  ops_.push_back(std::move(op));
}

const std::vector<Operation>& Operations() {
  static const std::vector<Operation> ops = Build();
  return ops;
}

const Operation* FindOperation(std::string_view name) {
  for (const Operation& op : Operations()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

Json InputSchema(const Operation& op) {
  Param root{"", Type::kObject, false, "", 0, 0, 0, {}, op.params};
  Json s = Schema(root);
  Json required = Json::array();
  for (const Param& p : op.params) {
    if (p.required) required.push_back(p.name);
  }
  if (!required.empty()) s["required"] = required;
  return s;
}

Status CheckArguments(const Operation& op, Json* args) { return Validate("", op.params, args); }

Status CheckCaller(const Operation& op, const OperationContext& ctx) {
  if (op.local_only && ctx.remote) {
    return Status::PermissionDenied(op.name + " is a local-only operation (run it with the engram CLI on this machine)");
  }
  if (static_cast<int>(ctx.scope) < static_cast<int>(op.scope)) {
    return Status::PermissionDenied(op.name + " needs the " + ScopeName(op.scope) + " scope; this caller has " +
                                    ScopeName(ctx.scope));
  }
  return Status::Ok();
}

Result<Json> Run(Brain& brain, const OperationContext& ctx, const Operation& op, const Json& checked_args) {
  ENGRAM_RETURN_IF_ERROR(CheckCaller(op, ctx));
  for (const Param& p : op.params) {
    if (static_cast<int>(ctx.scope) >= static_cast<int>(p.scope)) continue;
    if (checked_args.is_object() && checked_args.contains(p.name)) {
      return Status::PermissionDenied(op.name + "'s argument '" + p.name + "' needs the " + ScopeName(p.scope) +
                                      " scope; this caller has " + ScopeName(ctx.scope));
    }
  }
  return op.run(brain, ctx, Args(&checked_args));
}

Result<Json> Call(Brain& brain, const OperationContext& ctx, std::string_view name, const Json& args) {
  const Operation* op = FindOperation(name);
  if (op == nullptr) return Status::NotFound("unknown operation '" + std::string(name) + "'");
  ENGRAM_RETURN_IF_ERROR(CheckCaller(*op, ctx));
  Json checked = args;
  ENGRAM_RETURN_IF_ERROR(CheckArguments(*op, &checked));
  return Run(brain, ctx, *op, checked);
}

}  // namespace engram::ops
