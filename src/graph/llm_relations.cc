#include "graph/llm_relations.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/utf8.h"
#include "text/page_relations.h"

namespace engram::graph {

namespace {

using Json = nlohmann::json;

constexpr size_t kMaxRelations = 100;
constexpr size_t kMaxNameBytes = 200;

// One line of text, 1..kMaxNameBytes bytes, no control characters, no "-->".
bool PlainName(const std::string& s) {
  if (s.empty() || s.size() > kMaxNameBytes || !common::IsValidUtf8(s)) return false;
  if (s.find("-->") != std::string::npos || s.find("<!--") != std::string::npos) return false;
  return std::none_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; });
}

}  // namespace

const std::vector<std::string>& LlmRelationTypes() {
  static const std::vector<std::string> kTypes = [] {
    std::vector<std::string> out = {"role"};
    for (const text::RelationPattern& p : text::RelationPatterns()) {
      if (std::find(out.begin(), out.end(), p.type) == out.end()) out.emplace_back(p.type);
    }
    return out;
  }();
  return kTypes;
}

std::pair<std::string, std::string> RelationPrompt(std::string_view title, std::string_view text) {
  std::string types;
  for (const std::string& t : LlmRelationTypes()) types += (types.empty() ? "" : ", ") + t;
  std::string system =
      "You read one note of a personal knowledge base and list the relations it states as facts, in any "
      "language. Only what the note states as true now or at a stated time: not plans, questions, rumours, "
      "negations, quotes or examples. Relation types: " +
      types +
      ". role is a job title (its object is the title, e.g. CTO). For the others the subject and the object "
      "are names of people, companies, places, projects or events, written as the note writes them. Reply "
      "with one JSON object and nothing else: {\"relations\": [{\"subject\": \"...\", \"predicate\": \"...\", "
      "\"object\": \"...\", \"line\": N, \"confidence\": 0.0-1.0}]}, where line is the numbered line that "
      "states it. An empty list when the note states none.";
  std::string user = "Note: " + std::string(title) + "\n\n";
  size_t at = 0;
  int n = 0;
  while (at <= text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    user += std::to_string(++n) + ": " + std::string(text.substr(at, nl - at)) + "\n";
    at = nl + 1;
  }
  return {std::move(system), std::move(user)};
}

Result<RelationReply> ParseRelationReply(std::string_view reply, int lines) {
  const size_t open = reply.find('{');
  const size_t close = reply.rfind('}');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return Status::InvalidArgument("the model's reply holds no JSON object");
  }
  Json doc = Json::parse(reply.substr(open, close - open + 1), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return Status::InvalidArgument("the model's reply is not a JSON object");
  if (!doc.contains("relations") || !doc["relations"].is_array()) {
    return Status::InvalidArgument("the model's reply has no \"relations\" list");
  }
  RelationReply out;
  const auto& types = LlmRelationTypes();
  size_t index = 0;
  for (const Json& item : doc["relations"]) {
    const std::string at = "relation " + std::to_string(++index) + ": ";
    if (out.relations.size() >= kMaxRelations) {
      out.dropped.push_back(at + "over " + std::to_string(kMaxRelations) + " relations");
      break;
    }
    if (!item.is_object()) {
      out.dropped.push_back(at + "not an object");
      continue;
    }
    auto text_of = [&](const char* key) -> std::string {
      return item.contains(key) && item[key].is_string() ? item[key].get<std::string>() : std::string();
    };
    SuggestedRelation r;
    r.subject = std::string(common::TrimSpace(text_of("subject")));
    r.predicate = common::AsciiLower(common::TrimSpace(text_of("predicate")));
    r.object = std::string(common::TrimSpace(text_of("object")));
    r.confidence = -1;
    if (item.contains("line") && item["line"].is_number_integer()) r.line = item["line"].get<int>();
    if (item.contains("confidence") && item["confidence"].is_number()) r.confidence = item["confidence"].get<double>();
    if (std::find(types.begin(), types.end(), r.predicate) == types.end()) {
      out.dropped.push_back(at + "unknown relation type '" + r.predicate.substr(0, 40) + "'");
    } else if (!PlainName(r.subject) || !PlainName(r.object)) {
      out.dropped.push_back(at + "subject and object must be names of one line (1 to 200 bytes)");
    } else if (r.line < 1 || r.line > lines) {
      out.dropped.push_back(at + "line " + std::to_string(r.line) + " is not a line of the note");
    } else if (!(r.confidence >= 0 && r.confidence <= 1)) {
      out.dropped.push_back(at + "confidence must be a number from 0 to 1");
    } else {
      out.relations.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace engram::graph
