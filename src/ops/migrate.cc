#include "ops/migrate.h"

#include <chrono>

#include "engram/store/open_store.h"
#include "ops/config.h"
#include "ops/config_edit.h"
#include "sync/write_lock.h"

namespace engram::ops {

namespace {

Status SetStoreSetting(const std::filesystem::path& config, const char* key, const std::string& value) {
  ENGRAM_ASSIGN_OR_RETURN(const SettingInfo* setting, FindSetting(key));
  return SetSetting(config, *setting, value).status();
}

}  // namespace

Result<MigrateReport> MigrateBrain(Brain& brain, const std::string& target, bool switch_config,
                                   const std::function<void(const CopyProgress&)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  const std::filesystem::path own_db = brain.root() / ".engram" / "engram.db";
  std::string uri;
  bool postgres = false;
  if (target == "sqlite") {
    uri = "sqlite:" + own_db.string();
  } else if (target.rfind("sqlite:", 0) == 0) {
    uri = target;
  } else if (target.rfind("postgres://", 0) == 0 || target.rfind("postgresql://", 0) == 0) {
    uri = target;
    postgres = true;
  } else {
    return Status::InvalidArgument("--to must be sqlite, sqlite:PATH or a postgres:// URL");
  }
  ENGRAM_ASSIGN_OR_RETURN(std::string source_uri, BrainStoreUri(brain.root(), brain.options().store));
  MigrateReport report;
  report.from = DescribeStore(source_uri);
  report.to = DescribeStore(uri);
  if (report.from == report.to) return Status::InvalidArgument("the brain is already stored in " + report.to);
  ENGRAM_ASSIGN_OR_RETURN(auto lock, brain.LockForWrite("migrate"));
  EngineOptions eo;
  eo.create_if_missing = true;
  eo.busy_timeout_ms = brain.options().store.busy_timeout_ms;
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Engine> to, OpenStore(uri, eo));
  auto copied = CopyStore(brain.engine(), *to, report.from, progress);
  if (!copied.ok()) {
    std::string hint;
    if (uri == "sqlite:" + own_db.string()) hint = " (move .engram/engram.db aside to migrate back into it)";
    return copied.status().WithContext("migrating to " + report.to + hint);
  }
  report.copy = std::move(copied).value();
  if (switch_config) {
    const std::filesystem::path config = brain.root() / ".engram" / "config.toml";
    if (postgres) {
      ENGRAM_RETURN_IF_ERROR(SetStoreSetting(config, "store.engine", "postgres"));
      ENGRAM_RETURN_IF_ERROR(SetStoreSetting(config, "store.url", WithoutPassword(uri)));
      report.switched = true;
    } else if (uri == "sqlite:" + own_db.string()) {
      ENGRAM_RETURN_IF_ERROR(SetStoreSetting(config, "store.engine", "sqlite"));
      report.switched = true;
    }
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace engram::ops
