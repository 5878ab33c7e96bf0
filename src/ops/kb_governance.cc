// Governed knowledge entries (the original's red_line_knowledge admin
// layer), kept in agreement with the searchable collection by construction:
// every change writes the row, the collection's entry and the audit record
// in one transaction.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <tuple>

#include "common/crash_point.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/utf8.h"
#include "ops/kb_module.h"

namespace engram::ops {

using Json = nlohmann::json;

namespace {

constexpr size_t kCutAbove = 500;  // characters
constexpr size_t kKeepEachEnd = 250;
constexpr size_t kScanPage = 1000;

// The question as indexed: its first and last 250 characters when it has more than 500.
std::string CutQuestion(const std::string& q) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < q.size();) {
    starts.push_back(i);
    (void)common::DecodeUtf8(q, &i);
  }
  if (starts.size() <= kCutAbove) return q;
  return q.substr(0, starts[kKeepEachEnd]) + q.substr(starts[starts.size() - kKeepEachEnd]);
}

std::string ProjectionId(const GovernedEntry& g) {
  return g.business_scene + "_" + g.uniq_id + "_" + std::to_string(g.version);
}

KbEntry ProjectionOf(const GovernedEntry& g, const std::string& who) {
  KbEntry e;
  e.collection = g.collection;
  e.id = ProjectionId(g);
  e.text = CutQuestion(g.question);
  e.source = g.source;
  e.meta = Json{{"safeChat", g.answer}, {"className", g.class_name}, {"type", g.type.empty() ? "none" : g.type}}
               .dump(-1, ' ', false, Json::error_handler_t::replace);
  e.updated_by = who;
  return e;
}

}  // namespace

Json GovernedJson(const GovernedEntry& g) {
  Json metadata = Json::parse(g.metadata, nullptr, false);
  if (!metadata.is_object()) metadata = Json::object();
  return {{"id", g.id},
          {"uniq_id", g.uniq_id},
          {"business_scene", g.business_scene},
          {"question", g.question},
          {"answer", g.answer},
          {"metadata", metadata},
          {"class_name", g.class_name},
          {"class_no", g.class_no},
          {"source", g.source},
          {"type", g.type},
          {"desc", g.desc},
          {"version", g.version},
          {"status", g.status},
          {"editor", g.editor},
          {"editor_id", g.editor_id},
          {"auditor", g.auditor},
          {"auditor_id", g.auditor_id},
          {"releaser", g.releaser},
          {"releaser_id", g.releaser_id},
          {"create_time", g.create_time},
          {"update_time", g.update_time},
          {"collection", g.collection},
          {"latest", g.latest},
          {"indexed_id", ProjectionId(g)}};
}

namespace {

std::string Dumped(const GovernedEntry& g) {
  return GovernedJson(g).dump(-1, ' ', false, Json::error_handler_t::replace);
}

Status CheckFields(const GovernedEntry& g) {
  if (common::TrimSpace(g.question).empty()) return Status::InvalidArgument("question is empty");
  if (common::TrimSpace(g.business_scene).empty()) return Status::InvalidArgument("business_scene is empty");
  if (g.status != "online" && g.status != "offline") {
    return Status::InvalidArgument("status must be online or offline, not '" + g.status + "'");
  }
  Json meta = Json::parse(g.metadata, nullptr, false);
  if (!meta.is_object()) return Status::InvalidArgument("metadata must be a JSON object");
  return Status::Ok();
}

}  // namespace

Result<GovernedEntry> KbModule::GovernedUpsert(const OperationContext& ctx, GovernedEntry fields) {
  fields.uniq_id = common::Md5Hex(fields.question);
  if (fields.collection.empty()) fields.collection = kDefaultKbCollection;
  ENGRAM_ASSIGN_OR_RETURN(std::optional<GovernedEntry> latest,
                          brain_.engine().LatestGoverned(fields.uniq_id, fields.business_scene));
  if (latest) return GovernedUpdate(ctx, latest->id, fields);
  ENGRAM_RETURN_IF_ERROR(CheckFields(fields));
  Engine& engine = brain_.engine();
  ENGRAM_RETURN_IF_ERROR(EnsureCollection(ctx, fields.collection));
  ENGRAM_ASSIGN_OR_RETURN(Transaction txn, engine.Begin());
  fields.version = 1;
  fields.latest = true;
  fields.create_time = fields.update_time = common::NowIso8601();
  ENGRAM_ASSIGN_OR_RETURN(fields.id, engine.InsertGoverned(fields));
  if (fields.status == "online") ENGRAM_RETURN_IF_ERROR(PutEntries({ProjectionOf(fields, KbModule::Who(ctx))}));
  ENGRAM_RETURN_IF_ERROR(
      engine.AppendKbAudit({0, fields.create_time, KbModule::Who(ctx), "create", fields.id, "", Dumped(fields)}));
  ENGRAM_RETURN_IF_ERROR(txn.Commit());
  return fields;
}

Result<GovernedEntry> KbModule::GovernedUpdate(const OperationContext& ctx, int64_t id, const GovernedEntry& changes) {
  Engine& engine = brain_.engine();
  ENGRAM_ASSIGN_OR_RETURN(Transaction txn, engine.Begin());
  ENGRAM_ASSIGN_OR_RETURN(GovernedEntry old, GovernedGet(id));
  if (!old.latest) {
    return Status::FailedPrecondition("governed entry " + std::to_string(id) + " is version " +
                                      std::to_string(old.version) + ", not the latest: update the latest version");
  }
  GovernedEntry next = old;
  auto take = [](std::string* field, const std::string& value) {
    if (!value.empty()) *field = value;
  };
  take(&next.question, changes.question);
  take(&next.answer, changes.answer);
  if (!changes.metadata.empty() && changes.metadata != "{}") next.metadata = changes.metadata;
  take(&next.class_name, changes.class_name);
  take(&next.class_no, changes.class_no);
  take(&next.source, changes.source);
  take(&next.type, changes.type);
  take(&next.desc, changes.desc);
  take(&next.editor, changes.editor);
  take(&next.editor_id, changes.editor_id);
  take(&next.auditor, changes.auditor);
  take(&next.auditor_id, changes.auditor_id);
  take(&next.releaser, changes.releaser);
  take(&next.releaser_id, changes.releaser_id);
  ENGRAM_RETURN_IF_ERROR(CheckFields(next));
  if (Dumped(next) == Dumped(old)) return old;  // nothing changed: no new version
  const std::string who = KbModule::Who(ctx);
  old.latest = false;
  ENGRAM_RETURN_IF_ERROR(engine.UpdateGoverned(old));
  ENGRAM_RETURN_IF_ERROR(engine.DeleteKbEntries(old.collection, {ProjectionId(old)}).status());
  next.version = old.version + 1;
  next.latest = true;
  next.update_time = common::NowIso8601();
  ENGRAM_ASSIGN_OR_RETURN(next.id, engine.InsertGoverned(next));
  if (next.status == "online") ENGRAM_RETURN_IF_ERROR(PutEntries({ProjectionOf(next, who)}));
  ENGRAM_RETURN_IF_ERROR(
      engine.AppendKbAudit({0, next.update_time, who, "update", next.id, Dumped(old), Dumped(next)}));
  ENGRAM_RETURN_IF_ERROR(txn.Commit());
  return next;
}

Result<GovernedEntry> KbModule::GovernedSetStatus(const OperationContext& ctx, int64_t id, bool online) {
  Engine& engine = brain_.engine();
  ENGRAM_ASSIGN_OR_RETURN(Transaction txn, engine.Begin());
  ENGRAM_ASSIGN_OR_RETURN(GovernedEntry g, GovernedGet(id));
  if (!g.latest) {
    return Status::FailedPrecondition("governed entry " + std::to_string(id) + " is version " +
                                      std::to_string(g.version) + ", not the latest");
  }
  const std::string status = online ? "online" : "offline";
  if (g.status == status) return g;
  const GovernedEntry before = g;
  g.status = status;
  g.update_time = common::NowIso8601();
  ENGRAM_RETURN_IF_ERROR(engine.UpdateGoverned(g));
  if (online) {
    ENGRAM_RETURN_IF_ERROR(EnsureCollection(ctx, g.collection));
    ENGRAM_RETURN_IF_ERROR(PutEntries({ProjectionOf(g, KbModule::Who(ctx))}));
  } else {
    ENGRAM_RETURN_IF_ERROR(engine.DeleteKbEntries(g.collection, {ProjectionId(g)}).status());
  }
  ENGRAM_RETURN_IF_ERROR(
      engine.AppendKbAudit({0, g.update_time, KbModule::Who(ctx), status, g.id, Dumped(before), Dumped(g)}));
  common::CrashPoint("status flip written, not committed");
  ENGRAM_RETURN_IF_ERROR(txn.Commit());
  common::CrashPoint("status flip committed");
  return g;
}

Result<KbModule::ImportCounts> KbModule::GovernedImport(const OperationContext& ctx, std::vector<GovernedEntry> rows,
                                                       std::string_view collection, size_t batch,
                                                       const std::function<void(size_t, size_t)>& progress) {
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].collection = std::string(collection);
    if (Status st = CheckFields(rows[i]); !st.ok()) {
      return Status::InvalidArgument("row " + std::to_string(i + 1) + ": " + st.message());
    }
  }
  // By entry, then version; of two rows with one version the later one in the input counts.
  std::stable_sort(rows.begin(), rows.end(), [](const GovernedEntry& a, const GovernedEntry& b) {
    return std::tie(a.business_scene, a.uniq_id, a.version) < std::tie(b.business_scene, b.uniq_id, b.version);
  });
  const auto same_entry = [](const GovernedEntry& a, const GovernedEntry& b) {
    return a.uniq_id == b.uniq_id && a.business_scene == b.business_scene;
  };
  std::vector<GovernedEntry> versions;
  for (GovernedEntry& g : rows) {
    if (!versions.empty() && same_entry(versions.back(), g) && versions.back().version == g.version) {
      versions.back() = std::move(g);
    } else {
      versions.push_back(std::move(g));
    }
  }
  ENGRAM_RETURN_IF_ERROR(EnsureCollection(ctx, collection));
  Engine& engine = brain_.engine();
  const std::string who = KbModule::Who(ctx);
  const std::string now = common::NowIso8601();
  ImportCounts counts;
  for (size_t start = 0; start < versions.size();) {
    ENGRAM_ASSIGN_OR_RETURN(Transaction txn, engine.Begin());
    std::vector<KbEntry> projections;
    size_t i = start;
    while (i < versions.size() && (i - start < batch || i == start)) {
      // One entry's versions [i, end), ascending; those after the brain's latest [first, end) come in.
      size_t end = i + 1;
      while (end < versions.size() && same_entry(versions[end], versions[i])) ++end;
      ENGRAM_ASSIGN_OR_RETURN(std::optional<GovernedEntry> held,
                              engine.LatestGoverned(versions[i].uniq_id, versions[i].business_scene));
      size_t first = i;
      while (first < end && held && versions[first].version <= held->version) ++first;
      counts.skipped += first - i;
      if (first < end && held) {
        GovernedEntry old = *held;
        old.latest = false;
        ENGRAM_RETURN_IF_ERROR(engine.UpdateGoverned(old));
        ENGRAM_RETURN_IF_ERROR(engine.DeleteKbEntries(old.collection, {ProjectionId(old)}).status());
      }
      for (size_t k = first; k < end; ++k) {
        GovernedEntry& g = versions[k];
        g.latest = k + 1 == end;
        if (g.create_time.empty()) g.create_time = now;
        if (g.update_time.empty()) g.update_time = g.create_time;
        ENGRAM_ASSIGN_OR_RETURN(g.id, engine.InsertGoverned(g));
        if (g.latest && g.status == "online") projections.push_back(ProjectionOf(g, who));
        ENGRAM_RETURN_IF_ERROR(engine.AppendKbAudit({0, now, who, "import", g.id, "", Dumped(g)}));
        ++counts.imported;
      }
      i = end;
    }
    if (!projections.empty()) ENGRAM_RETURN_IF_ERROR(PutEntries(std::move(projections)));
    common::CrashPoint("import batch written, not committed");
    ENGRAM_RETURN_IF_ERROR(txn.Commit());
    common::CrashPoint("import batch committed");
    start = i;
    if (progress) progress(start, versions.size());
  }
  return counts;
}

Result<GovernedEntry> KbModule::GovernedGet(int64_t id) {
  ENGRAM_ASSIGN_OR_RETURN(std::optional<GovernedEntry> g, brain_.engine().GetGoverned(id));
  if (!g) return Status::NotFound("no governed entry " + std::to_string(id));
  return *g;
}

Result<std::vector<GovernedEntry>> KbModule::GovernedFind(std::string_view word, size_t limit) {
  if (common::TrimSpace(word).empty()) return Status::InvalidArgument("word is empty");
  return brain_.engine().FindGoverned(word, true, limit);
}

Result<std::vector<KbAuditEntry>> KbModule::Audit(int64_t governed_id, size_t limit) {
  return brain_.engine().KbAudit(governed_id, limit);
}

Result<std::vector<std::string>> KbModule::CheckGoverned() {
  std::vector<std::string> problems;
  Engine& engine = brain_.engine();
  for (int64_t after = 0;;) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<GovernedEntry> page, engine.ScanGoverned(after, kScanPage));
    for (const GovernedEntry& g : page) {
      const bool wanted = g.latest && g.status == "online";
      auto found = engine.FindKbCollection(g.collection);
      std::optional<KbEntry> entry;
      if (found.ok() && found->has_value()) {
        ENGRAM_ASSIGN_OR_RETURN(entry, engine.FindKbEntry(g.collection, ProjectionId(g)));
      }
      const std::string name = "governed entry " + std::to_string(g.id) + " (" + ProjectionId(g) + ")";
      if (wanted && !entry) problems.push_back(name + " is online but not searchable in " + g.collection);
      if (!wanted && entry) {
        problems.push_back(name + (g.latest ? " is offline" : " is an old version") + " but searchable in " +
                           g.collection);
      }
      if (wanted && entry) {
        const KbEntry expected = ProjectionOf(g, "");
        if (entry->text != expected.text || entry->meta != expected.meta || entry->source != expected.source) {
          problems.push_back(name + " is searchable with other text or fields than its row");
        }
      }
    }
    if (page.size() < kScanPage) break;
    after = page.back().id;
  }
  return problems;
}

Result<size_t> KbModule::Reindex(const OperationContext& ctx) {
  Engine& engine = brain_.engine();
  ENGRAM_ASSIGN_OR_RETURN(Transaction txn, engine.Begin());
  size_t changed = 0;
  const std::string who = KbModule::Who(ctx);
  for (int64_t after = 0;;) {
    ENGRAM_ASSIGN_OR_RETURN(std::vector<GovernedEntry> page, engine.ScanGoverned(after, kScanPage));
    for (const GovernedEntry& g : page) {
      const bool wanted = g.latest && g.status == "online";
      if (wanted) ENGRAM_RETURN_IF_ERROR(EnsureCollection(ctx, g.collection));
      auto found = engine.FindKbCollection(g.collection);
      if (!found.ok()) return found.status();
      if (!found->has_value()) continue;  // not wanted, and nothing of it can be searchable
      ENGRAM_ASSIGN_OR_RETURN(std::optional<KbEntry> entry, engine.FindKbEntry(g.collection, ProjectionId(g)));
      const KbEntry expected = ProjectionOf(g, who);
      if (wanted && (!entry || entry->text != expected.text || entry->meta != expected.meta ||
                     entry->source != expected.source)) {
        ENGRAM_RETURN_IF_ERROR(PutEntries({expected}));
        ++changed;
      } else if (!wanted && entry) {
        ENGRAM_RETURN_IF_ERROR(engine.DeleteKbEntries(g.collection, {ProjectionId(g)}).status());
        ++changed;
      }
    }
    if (page.size() < kScanPage) break;
    after = page.back().id;
  }
  if (changed > 0) {
    ENGRAM_RETURN_IF_ERROR(engine.AppendKbAudit(
        {0, common::NowIso8601(), who, "reindex", 0, "", Json{{"changed", changed}}.dump()}));
  }
  ENGRAM_RETURN_IF_ERROR(txn.Commit());
  return changed;
}

}  // namespace engram::ops
