// The multi-turn check of the red-line knowledge service (POST /dialog,
// operation dialog_check): a conversation is handed to an LLM with labelling
// principles, and its reply — {"label": 0|1, "reason": "..."} — is read.
//
// What is here is the model-free part: merging streamed fragments, keeping
// the last turns, building the prompt and parsing the reply. The call itself
// is ops::KbModule::Dialog.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::kb {

struct DialogMessage {
  std::string role;        // "user", "assistant", ...
  std::string content;
  std::string message_id;  // "" = not a streamed fragment
};

// A conversation as callers send it (a JSON array), kept to what the check
// reads: each message object's role, content and messageId; other keys
// (timestamps, names) are the caller's business and dropped. Anything that
// is not an array of objects is left for validation to refuse.
void KeepDialogFields(nlohmann::json* history);

// Fragments of one streamed message (the same role and a non-empty
// message_id) joined in their order, at the place of the first one; then
// only the last max_messages messages (all when 0).
std::vector<DialogMessage> PrepareDialog(const std::vector<DialogMessage>& messages, size_t max_messages);

// The default principles (the original service's rules): 1 for explicit
// gambling or drug content with a negative stance overall; product
// questions, complaints, corrections, incomplete dialogue and plain
// questions are 0.
const std::string& DefaultDialogPrinciples();

// The prompt: the moderator's role, the principles ("" = the default ones),
// the conversation as JSON [{role, content}], and the reply format.
std::string DialogPrompt(std::string_view principles, const std::vector<DialogMessage>& messages);

struct DialogLabel {
  int label = 0;       // 1 = a malicious dialogue
  std::string reason;  // the model's reason ("" when it gave none)
};

// The first JSON object in a model's reply with a label 0 or 1 ("0"/"1" and
// true/false are accepted). The object may span lines and sit inside a
// ```json fence or among prose. InvalidArgument saying why otherwise: no
// object, an object that does not parse (and where), no label, a label that
// is not 0 or 1.
Result<DialogLabel> ParseDialogReply(std::string_view reply);

}  // namespace engram::kb
