#include "ops/git_writes.h"

#include <optional>

#include "sync/git_sync.h"

namespace engram::ops {

std::string CommitMessage(std::string_view templ, std::string_view operation, std::string_view path,
                          const OperationContext& ctx) {
  const std::string caller = ctx.caller.empty() ? std::string("local user") : ctx.caller;
  auto value = [&](std::string_view name) -> std::optional<std::string> {
    if (name == "operation") return std::string(operation);
    if (name == "path") return std::string(path);
    if (name == "caller") return caller;
    if (name == "transport") return ctx.transport;
    return std::nullopt;
  };
  std::string subject;
  for (size_t i = 0; i < templ.size();) {
    const size_t close = templ[i] == '{' ? templ.find('}', i) : std::string_view::npos;
    if (close != std::string_view::npos) {
      if (auto v = value(templ.substr(i + 1, close - i - 1))) {
        subject += *v;
        i = close + 1;
        continue;
      }
    }
    subject.push_back(templ[i++]);
  }
  // One line: a template or a name with a line break must not forge trailers.
  for (char& c : subject) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  std::string message = subject;
  message += "\n\nEngram-Operation: ";
  message += operation;
  message += "\nEngram-Caller: ";
  for (char c : caller) message.push_back(c == '\n' || c == '\r' ? ' ' : c);
  message += " (";
  message += ctx.transport;
  message += ")\n";
  return message;
}

GitWrites::GitWrites(Engine& engine, std::string source, std::unique_ptr<sync::GitCommitter> committer,
                     std::string head, bool worktree, const BrainOptions& options)
    : engine_(engine),
      source_(std::move(source)),
      committer_(std::move(committer)),
      head_(std::move(head)),
      worktree_(worktree),
      message_template_(options.git.message),
      who_{options.git.author_name, options.git.author_email} {}

Status GitWrites::IndexCommitted(const std::string& commit, const std::function<Status()>& apply) {
  ENGRAM_ASSIGN_OR_RETURN(Transaction txn, engine_.Begin());
  ENGRAM_RETURN_IF_ERROR(apply());
  ENGRAM_RETURN_IF_ERROR(engine_.SetSyncAnchor(source_, sync::MakeAnchor(commit, worktree_)));
  return txn.Commit();
}

Result<std::string> GitWrites::Commit(const std::string& path, bool removed, std::string_view operation,
                                      const OperationContext& ctx, const std::function<Status()>& apply) {
  const std::string message = CommitMessage(message_template_, operation, path, ctx);
  ENGRAM_ASSIGN_OR_RETURN(sync::CommitResult committed, committer_->CommitFile(head_, path, removed, message, who_));
  head_ = committed.commit;
  std::string warning = committed.warning;
  Status st = IndexCommitted(committed.commit, apply);
  if (!st.ok()) {
    if (!warning.empty()) warning += "; ";
    warning += "committed " + committed.commit.substr(0, 12) + ", but the index did not take it (" + st.message() +
               "); the next `engram sync` indexes it";
  }
  return warning;
}

}  // namespace engram::ops
