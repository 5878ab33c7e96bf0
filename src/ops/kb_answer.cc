// The model paths of the red-line knowledge service, both through [llm]'s
// model with [kb]'s call settings: the guarded answer (KbModule::Answer) —
// a search, a direct hit's standard answer, or an LLM answer from the
// references that is kept only when it stays close to the standard answer —
// and the multi-turn check (KbModule::Dialog).
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/utf8.h"
#include "embed/embedder.h"
#include "kb/lexical_index.h"
#include "llm/chat_client.h"
#include "ops/kb_module.h"

namespace engram::ops {

using Json = nlohmann::json;

namespace {

constexpr size_t kReferenceChars = 500;

std::string SafeChat(const kb::Hit& h) {
  Json meta = Json::parse(h.entry.meta, nullptr, false);
  if (!meta.is_object()) return "";
  auto it = meta.find("safeChat");
  return it != meta.end() && it->is_string() ? it->get<std::string>() : "";
}

// The first n characters of s (whole UTF-8 sequences).
std::string FirstChars(const std::string& s, size_t n) {
  size_t i = 0;
  for (size_t chars = 0; i < s.size() && chars < n; ++chars) (void)common::DecodeUtf8(s, &i);
  return s.substr(0, i);
}

// The prompt: the references, then the constraints, then the question.
std::string Prompt(std::string_view question, const std::vector<kb::Hit>& hits, const std::string& constraints) {
  std::string refs;
  for (const kb::Hit& h : hits) {
    if (!refs.empty()) refs += "\n--\n";
    refs += "输入：" + h.entry.text + "\n回复：" + FirstChars(SafeChat(h), kReferenceChars);
  }
  return "以下是参考资料：\n" + refs + "\n\n请根据参考资料回答用户的问题，并遵守以下约束：\n" +
         (constraints.empty() ? KbModule::DefaultAnswerConstraints() : constraints) + "\n\n用户的问题：" +
         std::string(question);
}

}  // namespace

const std::string& KbModule::DefaultAnswerConstraints() {
  static const std::string kConstraints =
      "1. 回答必须与问题相符；\n"
      "2. 回答的内容必须包含在参考资料中，不得编造；\n"
      "3. 如果参考资料与问题不相符，请回答“不知道”；\n"
      "4. 回答要简洁、直接。";
  return kConstraints;
}

Result<double> KbModule::EmbeddingCosine(const std::string& a, const std::string& b, const KbCollection& c) {
  ENGRAM_ASSIGN_OR_RETURN(embed::Embedder * e, EmbedderFor(c));
  ENGRAM_ASSIGN_OR_RETURN(std::vector<float> v, e->Embed({a, b}, embed::EmbedKind::kDocument));
  const size_t dims = v.size() / 2;
  double dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < dims; ++i) {
    dot += static_cast<double>(v[i]) * v[dims + i];
    na += static_cast<double>(v[i]) * v[i];
    nb += static_cast<double>(v[dims + i]) * v[dims + i];
  }
  return na > 0 && nb > 0 ? std::clamp(dot / std::sqrt(na * nb), 0.0, 1.0) : 0.0;
}

Result<llm::ChatClient*> KbModule::Chat() {
  std::lock_guard<std::mutex> lock(chat_mu_);
  if (chat_) return chat_.get();
  const BrainOptions& o = brain_.options();
  if (o.llm.model.empty()) return Status::FailedPrecondition("no [llm] model is configured");
  llm::ChatOptions co;
  co.base_url = o.llm.base_url;
  co.model = o.llm.model;
  co.api_key_env = o.llm.api_key_env;
  co.timeout_ms = o.kb.timeout_ms;
  co.max_tokens = o.kb.max_tokens;
  co.temperature = o.kb.temperature;
  ENGRAM_ASSIGN_OR_RETURN(chat_, llm::OpenChatClient(co));
  return chat_.get();
}

Result<KbDialogCheck> KbModule::Dialog(const std::vector<kb::DialogMessage>& history, size_t max_turns) {
  if (history.empty()) return Status::InvalidArgument("history为空");
  KbDialogCheck out;
  const std::vector<kb::DialogMessage> messages = kb::PrepareDialog(history, max_turns * 2);
  out.messages = messages.size();
  out.risk_message = "正常文本";
  auto chat = Chat();
  if (!chat.ok()) {
    out.reason = chat.status().code() == StatusCode::kFailedPrecondition
                     ? "模型未配置 (no [llm] model is configured: the dialogue was not checked)"
                     : "模型调用失败: " + chat.status().message();
    return out;
  }
  auto reply = (*chat)->Complete({{"user", kb::DialogPrompt(brain_.options().kb.dialog_principles, messages)}});
  if (!reply.ok()) {
    out.reason = "模型调用失败: " + reply.status().message();
    return out;
  }
  auto label = kb::ParseDialogReply(*reply);
  if (!label.ok()) {
    out.reason = "模型输出无法解析: " + label.status().message();
    return out;
  }
  out.checked = true;
  out.risk_code = label->label;
  out.risk_message = label->label == 1 ? "恶意对话" : "正常文本";
  out.reason = label->reason;
  return out;
}

Result<KbAnswer> KbModule::Answer(const ReadScope& scope, std::string_view collection, std::string_view text,
                                  const Json& filters, const KbAnswerOptions& options) {
  KbAnswer out;
  KbCollection c;
  ENGRAM_ASSIGN_OR_RETURN(out.references, SearchIn(scope, collection, text, filters, options.search, &c));
  out.similarity = SimilarityOf(c);
  if (out.references.empty()) {
    out.no_answer_reason = "无数据";
    return out;
  }
  const kb::Hit& top = out.references.front();
  if (top.score >= options.same_threshold) {
    out.answer = SafeChat(top);
    out.answer_ref_similar = top.score;
    out.no_answer_reason = "有数据";
    return out;
  }
  auto chat = Chat();
  if (!chat.ok()) {
    out.no_answer_reason = chat.status().code() == StatusCode::kFailedPrecondition
                               ? "模型未配置 (no [llm] model is configured for answers that need one)"
                               : "模型调用失败: " + chat.status().message();
    return out;
  }
  auto reply = (*chat)->Complete({{"user", Prompt(text, out.references, brain_.options().kb.answer_constraints)}});
  if (!reply.ok()) {
    out.no_answer_reason = "模型调用失败: " + reply.status().message();
    return out;
  }
  const std::string answer(common::TrimSpace(*reply));
  if (answer.empty() || !common::IsValidUtf8(answer)) {
    out.no_answer_reason = "模型调用失败: the model answered with no usable text";
    return out;
  }
  const std::string answer_cut = FirstChars(answer, kReferenceChars);
  // As the collection's searches: embedding cosine with a model, the term cosine without.
  if (c.embedder.empty()) {
    out.answer_ref_similar = kb::TextCosine(answer_cut, SafeChat(top));
  } else {
    auto similar = EmbeddingCosine(answer_cut, SafeChat(top), c);
    if (!similar.ok()) {
      out.no_answer_reason = "模型调用失败: " + similar.status().message();
      return out;
    }
    out.answer_ref_similar = *similar;
  }
  if (out.answer_ref_similar < options.answer_similarity) {
    out.answer_backup = answer_cut;
    out.no_answer_reason = "模型输出与文档相似度低";
  } else {
    out.answer = answer_cut;
  }
  return out;
}

}  // namespace engram::ops
