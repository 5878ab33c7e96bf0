// Git hooks that keep a brain fresh: a marked block in post-commit,
// post-merge and post-rewrite that starts `engram sync --quiet` in the
// background (output to .engram/sync.log), so a commit returns at once.
// Installing is idempotent and keeps whatever else the hooks contain.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "engram/status.h"

namespace engram::sync {

struct HookState {
  std::string name;            // "post-commit", …
  std::filesystem::path file;
  bool installed = false;      // the engram block is present
  bool other_content = false;  // the hook also runs other commands
};

// The hooks engram manages.
const std::vector<std::string>& ManagedHooks();

// engram: the binary the hooks start (an absolute path).
Result<std::vector<HookState>> InstallHooks(const std::filesystem::path& hooks_dir,
                                            const std::filesystem::path& engram);
Result<std::vector<HookState>> UninstallHooks(const std::filesystem::path& hooks_dir);
Result<std::vector<HookState>> HookStatus(const std::filesystem::path& hooks_dir);

}  // namespace engram::sync
