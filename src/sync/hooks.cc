#include "sync/hooks.h"

#include <sys/stat.h>

#include "common/files.h"

namespace engram::sync {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kBegin = "# >>> engram sync >>>";
constexpr std::string_view kEnd = "# <<< engram sync <<<";

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out.push_back(c);
  }
  return out + "'";
}

std::string Block(const fs::path& engram) {
  std::string b(kBegin);
  b += "\n# Added by `engram hook install`: index each new commit in the background.\n";
  b += "( cd \"$(git rev-parse --show-toplevel)\" && mkdir -p .engram && nohup " + ShellQuote(engram.string()) +
       " sync --quiet >> .engram/sync.log 2>&1 & ) >/dev/null 2>&1\n";
  b += kEnd;
  b += "\n";
  return b;
}

// Removes the engram block (and the newline before it, if the block was appended).
std::string WithoutBlock(const std::string& text, bool* had) {
  size_t b = text.find(kBegin);
  *had = b != std::string::npos;
  if (!*had) return text;
  size_t e = text.find(kEnd, b);
  size_t end = e == std::string::npos ? text.size() : e + kEnd.size();
  if (end < text.size() && text[end] == '\n') ++end;
  return text.substr(0, b) + text.substr(end);
}

bool OnlyShebang(const std::string& text) {
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (line.find_first_not_of(" \t\r") != std::string::npos && line.rfind("#!", 0) != 0) return false;
    start = end + 1;
  }
  return true;
}

Result<std::string> ReadHook(const fs::path& file) {
  auto text = common::ReadFile(file, 1 << 20);
  if (!text.ok() && text.status().code() == StatusCode::kNotFound) return std::string();
  return text;
}

HookState StateOf(const std::string& name, const fs::path& file, const std::string& text) {
  bool had = false;
  std::string rest = WithoutBlock(text, &had);
  return {name, file, had, !OnlyShebang(rest)};
}

}  // namespace

const std::vector<std::string>& ManagedHooks() {
  static const std::vector<std::string> kHooks = {"post-commit", "post-merge", "post-rewrite"};
  return kHooks;
}

Result<std::vector<HookState>> InstallHooks(const fs::path& hooks_dir, const fs::path& engram) {
  std::error_code ec;
  fs::create_directories(hooks_dir, ec);
  if (ec) return Status::IOError(hooks_dir.string() + ": " + ec.message());
  std::vector<HookState> out;
  for (const std::string& name : ManagedHooks()) {
    fs::path file = hooks_dir / name;
    ENGRAM_ASSIGN_OR_RETURN(std::string text, ReadHook(file));
    bool had = false;
    std::string rest = WithoutBlock(text, &had);
    if (rest.find_first_not_of(" \t\r\n") == std::string::npos) rest = "#!/bin/sh\n";
    if (!rest.empty() && rest.back() != '\n') rest.push_back('\n');
    std::string updated = rest + Block(engram);
    ENGRAM_RETURN_IF_ERROR(common::WriteFileAtomic(file, updated));
    if (::chmod(file.c_str(), 0755) != 0) return Status::IOError(file.string() + ": cannot make it executable");
    out.push_back(StateOf(name, file, updated));
  }
  return out;
}

Result<std::vector<HookState>> UninstallHooks(const fs::path& hooks_dir) {
  std::vector<HookState> out;
  for (const std::string& name : ManagedHooks()) {
    fs::path file = hooks_dir / name;
    ENGRAM_ASSIGN_OR_RETURN(std::string text, ReadHook(file));
    bool had = false;
    std::string rest = WithoutBlock(text, &had);
    if (had) {
      if (OnlyShebang(rest)) {
        std::error_code ec;
        fs::remove(file, ec);  // the hook only ran engram: remove it
        if (ec) return Status::IOError(file.string() + ": " + ec.message());
      } else {
        ENGRAM_RETURN_IF_ERROR(common::WriteFileAtomic(file, rest));
        if (::chmod(file.c_str(), 0755) != 0) return Status::IOError(file.string() + ": cannot keep it executable");
      }
    }
    out.push_back(StateOf(name, file, rest));
  }
  return out;
}

Result<std::vector<HookState>> HookStatus(const fs::path& hooks_dir) {
  std::vector<HookState> out;
  for (const std::string& name : ManagedHooks()) {
    fs::path file = hooks_dir / name;
    ENGRAM_ASSIGN_OR_RETURN(std::string text, ReadHook(file));
    out.push_back(StateOf(name, file, text));
  }
  return out;
}

}  // namespace engram::sync
