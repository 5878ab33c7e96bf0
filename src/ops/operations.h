// The operation layer: every user-visible operation defined once — name,
// typed parameters with limits, description, scope, local-only flag — and
// run with an OperationContext. The CLI (`engram call`), the HTTP API and
// the MCP server are thin adapters over Call(); the MCP tool list and the
// OpenAPI document are generated from the same definitions.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "engram/brain.h"
#include "engram/status.h"

namespace engram::ops {

struct Param {
  enum class Type {
    kString,
    kInteger,
    kBoolean,
    kStrings,  // a string or a list of strings (normalised to a list); at most `max` items, 50 when max is 0
    kObject,   // with `fields`
    kNumber,   // a JSON number in [min, max] when max > min
    kObjects,  // a list of objects, each with `fields`; at most `max` items when max > 0
    kMap,      // any JSON object: its keys and values are the operation's to check
  };
  std::string name;
  Type type = Type::kString;
  bool required = false;
  std::string description;
  int64_t min = 0, max = 0;          // integers: [min, max]
  size_t max_bytes = 0;              // strings (each item of kStrings): 0 = no limit
  std::vector<std::string> choices;  // strings: the allowed values (empty: any)
  std::vector<Param> fields;         // objects
  // The scope a caller needs to pass this argument at all (above the
  // operation's own: kb_create's folder, which reads pages, is admin's).
  Scope scope = Scope::kRead;
};

class Args;

struct Operation {
  std::string name;
  std::string description;
  Scope scope = Scope::kRead;
  bool local_only = false;  // refused to remote callers whatever their scope
  std::vector<Param> params;
  std::function<Result<nlohmann::json>(Brain&, const OperationContext&, const Args&)> run;
};

// Validated arguments of one call.
class Args {
 public:
  explicit Args(const nlohmann::json* j) : j_(j) {}
  bool Has(std::string_view name) const;
  std::string Str(std::string_view name, std::string_view fallback = "") const;
  int64_t Int(std::string_view name, int64_t fallback) const;
  bool Bool(std::string_view name, bool fallback = false) const;
  double Num(std::string_view name, double fallback) const;
  std::vector<std::string> Strings(std::string_view name) const;
  // The argument as given (kObjects, kMap), or null when absent.
  const nlohmann::json* Raw(std::string_view name) const;
  Args Object(std::string_view name) const;  // an absent object reads as empty

 private:
  const nlohmann::json* j_;  // an object, or nullptr
};

// The table the operations are built into. Each module adds its own
// (src/ops/search_operations.cc, page_operations.cc, sync_operations.cc,
// embedding_operations.cc) through a registrar `void
// AddXOperations(OperationTable&)` listed once in operations.cc; its handlers
// reach the module through Brain::Module<M>(). A nameless or handler-less operation, or a second one of a
// name, is refused and kept as the table's error (a programming error: the
// table aborts at startup, which any test listing operations finds).
class OperationTable {
 public:
  void Add(Operation op);
  const std::string& error() const { return error_; }
  std::vector<Operation> Take() { return std::move(ops_); }

 private:
  std::vector<Operation> ops_;
  std::string error_;
};

// The modules' registrars.
void AddSearchOperations(OperationTable& table);     // search, context
void AddPageOperations(OperationTable& table);       // get_page, list_pages, put_page, delete_page
void AddPagePartOperations(OperationTable& table);   // backlinks, timeline, links, tags
void AddSyncOperations(OperationTable& table);       // status, sync, import
void AddEmbeddingOperations(OperationTable& table);  // embed
void AddKbOperations(OperationTable& table);         // kb_create, kb_list, kb_upsert, kb_delete, kb_search
void AddGraphOperations(OperationTable& table);      // resolve_entity, get_facts, list_conflicts

// Every operation, in the order the registrars add them.
const std::vector<Operation>& Operations();
const Operation* FindOperation(std::string_view name);

// JSON Schema (draft 2020-12 subset) of an operation's arguments.
nlohmann::json InputSchema(const Operation& op);

// Checks *args against op's parameters (an object or null; unknown fields,
// missing required ones, wrong types and values out of range are
// InvalidArgument naming the field); normalises it in place.
Status CheckArguments(const Operation& op, nlohmann::json* args);

// Whether the caller may run op at all: its scope and the local-only flag
// (PermissionDenied). Checked before the arguments are, so a caller who may
// not run an operation learns nothing of its parameters.
Status CheckCaller(const Operation& op, const OperationContext& ctx);

// Runs op with arguments that already passed CheckArguments, after
// CheckCaller and the scope of each argument given (PermissionDenied).
Result<nlohmann::json> Run(Brain& brain, const OperationContext& ctx, const Operation& op,
                           const nlohmann::json& checked_args);

// CheckCaller, then args against the parameters (an object or null;
// unknown fields, missing required ones, wrong types and values out of range
// are InvalidArgument naming the field), then runs the operation (Run).
Result<nlohmann::json> Call(Brain& brain, const OperationContext& ctx, std::string_view name,
                            const nlohmann::json& args);

}  // namespace engram::ops
