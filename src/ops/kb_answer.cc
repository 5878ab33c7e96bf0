// The guarded answer of the red-line knowledge service (KbModule::Answer):
// a search, a direct hit's standard answer, or an LLM answer from the
// references that is kept only when it stays close to the standard answer.
#include <nlohmann/json.hpp>

#include "common/utf8.h"
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
std::string Prompt(std::string_view question, const std::vector<kb::Hit>& hits) {
  std::string refs;
  for (const kb::Hit& h : hits) {
    if (!refs.empty()) refs += "\n--\n";
    refs += "输入：" + h.entry.text + "\n回复：" + FirstChars(SafeChat(h), kReferenceChars);
  }
  return "以下是参考资料：\n" + refs +
         "\n\n请根据参考资料回答用户的问题，并遵守以下约束：\n"
         "1. 回答必须与问题相符；\n"
         "2. 回答的内容必须包含在参考资料中，不得编造；\n"
         "3. 如果参考资料与问题不相符，请回答“不知道”；\n"
         "4. 回答要简洁、直接。\n\n用户的问题：" +
         std::string(question);
}

}  // namespace

Result<KbAnswer> KbModule::Answer(std::string_view collection, std::string_view text, const Json& filters,
                                  const KbAnswerOptions& options) {
  KbAnswer out;
  ENGRAM_ASSIGN_OR_RETURN(out.references, Search(collection, text, filters, options.search));
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
  const LlmOptions& llm = brain_.options().llm;
  if (llm.model.empty()) {
    out.no_answer_reason = "模型未配置 (no [llm] model is configured for answers that need one)";
    return out;
  }
  if (!chat_) {
    llm::ChatOptions co;
    co.base_url = llm.base_url;
    co.model = llm.model;
    co.api_key_env = llm.api_key_env;
    co.timeout_ms = llm.timeout_ms;
    co.max_tokens = 512;
    auto opened = llm::OpenChatClient(co);
    if (!opened.ok()) {
      out.no_answer_reason = "模型调用失败: " + opened.status().message();
      return out;
    }
    chat_ = std::move(*opened);
  }
  auto reply = chat_->Complete({{"user", Prompt(text, out.references)}});
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
  out.answer_ref_similar = kb::TextCosine(answer_cut, SafeChat(top));
  if (out.answer_ref_similar < options.answer_similarity) {
    out.answer_backup = answer_cut;
    out.no_answer_reason = "模型输出与文档相似度低";
  } else {
    out.answer = answer_cut;
  }
  return out;
}

}  // namespace engram::ops
