#include "kb/dialog.h"

#include <map>
#include <nlohmann/json.hpp>
#include <utility>

namespace engram::kb {

using Json = nlohmann::json;

namespace {

// A reply is read up to this many bytes, trying at most this many objects:
// a hostile or runaway reply costs bounded work.
constexpr size_t kMaxReplyBytes = 64 * 1024;
constexpr int kMaxObjects = 32;

// Where the object opening at s[start] closes (one past its '}'), or npos
// when it never does. Strings and their escapes are skipped.
size_t ObjectEnd(std::string_view s, size_t start) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = start; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// 0 or 1 from a label value, -1 for anything else.
int LabelOf(const Json& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_number_integer() || v.is_number_unsigned()) {
    const auto n = v.get<int64_t>();
    return n == 0 || n == 1 ? static_cast<int>(n) : -1;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    return d == 0.0 ? 0 : (d == 1.0 ? 1 : -1);
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    return s == "0" ? 0 : (s == "1" ? 1 : -1);
  }
  return -1;
}

}  // namespace

void KeepDialogFields(Json* history) {
  if (!history->is_array()) return;
  for (Json& m : *history) {
    if (!m.is_object()) continue;
    Json kept = Json::object();
    for (const char* key : {"role", "content", "messageId"}) {
      if (auto it = m.find(key); it != m.end()) kept[key] = std::move(*it);
    }
    m = std::move(kept);
  }
}

std::vector<DialogMessage> PrepareDialog(const std::vector<DialogMessage>& messages, size_t max_messages) {
  std::vector<DialogMessage> merged;
  std::map<std::pair<std::string, std::string>, size_t> at;  // (role, message_id) -> index in merged
  for (const DialogMessage& m : messages) {
    if (!m.message_id.empty()) {
      auto [it, fresh] = at.try_emplace({m.role, m.message_id}, merged.size());
      if (!fresh) {
        merged[it->second].content += m.content;
        continue;
      }
    }
    merged.push_back(m);
  }
  if (max_messages > 0 && merged.size() > max_messages) {
    merged.erase(merged.begin(), merged.end() - static_cast<std::ptrdiff_t>(max_messages));
  }
  return merged;
}

const std::string& DefaultDialogPrinciples() {
  static const std::string kPrinciples =
      "1. 对话中明确出现赌博或毒品相关内容，且对话整体立场是负面的（如寻求参与、教唆、宣扬、获取渠道），标记为 1；\n"
      "2. 咨询产品功能或使用方法的问题，标记为 0；\n"
      "3. 投诉、抱怨或表达不满，标记为 0；\n"
      "4. 纠正、澄清之前的说法，标记为 0；\n"
      "5. 对话不完整、无法判断意图，标记为 0；\n"
      "6. 普通的提问或闲聊，标记为 0。";
  return kPrinciples;
}

std::string DialogPrompt(std::string_view principles, const std::vector<DialogMessage>& messages) {
  nlohmann::ordered_json conversation = nlohmann::ordered_json::array();
  for (const DialogMessage& m : messages) {
    nlohmann::ordered_json message;
    message["role"] = m.role;
    message["content"] = m.content;
    conversation.push_back(std::move(message));
  }
  std::string prompt =
      "你是一名内容审核专家，负责判断一段多轮对话是否为恶意对话。请按照以下原则对整段对话进行标注：\n";
  prompt += principles.empty() ? DefaultDialogPrinciples() : std::string(principles);
  prompt += "\n\n对话内容（JSON）：\n";
  prompt += conversation.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  prompt +=
      "\n\n只回复一个 JSON 对象，不要输出其他内容：{\"label\": 0 或 1, \"reason\": \"判断理由\"}";
  return prompt;
}

Result<DialogLabel> ParseDialogReply(std::string_view reply) {
  if (reply.size() > kMaxReplyBytes) reply = reply.substr(0, kMaxReplyBytes);
  std::string first_problem;
  size_t from = 0;
  for (int tries = 0; tries < kMaxObjects; ++tries) {
    const size_t start = reply.find('{', from);
    if (start == std::string_view::npos) break;
    from = start + 1;
    const size_t end = ObjectEnd(reply, start);
    if (end == std::string_view::npos) {
      if (first_problem.empty()) {
        first_problem = "the JSON object at byte " + std::to_string(start) + " never closes";
      }
      continue;
    }
    Json object = Json::parse(reply.substr(start, end - start), nullptr, false);
    if (object.is_discarded()) {
      if (first_problem.empty()) {
        first_problem = "the text at byte " + std::to_string(start) + " is not valid JSON";
      }
      continue;
    }
    auto label = object.find("label");
    if (label == object.end()) {
      if (first_problem.empty()) first_problem = "the JSON object has no \"label\"";
      from = end;
      continue;
    }
    const int value = LabelOf(*label);
    if (value < 0) return Status::InvalidArgument("the reply's label is " + label->dump() + ", not 0 or 1");
    DialogLabel out;
    out.label = value;
    if (auto reason = object.find("reason"); reason != object.end()) {
      out.reason = reason->is_string() ? reason->get<std::string>()
                                       : reason->dump(-1, ' ', false, Json::error_handler_t::replace);
    }
    return out;
  }
  if (first_problem.empty()) first_problem = "the reply holds no JSON object";
  return Status::InvalidArgument(first_problem);
}

}  // namespace engram::kb
