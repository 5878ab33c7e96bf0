#include "graph/eval.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "graph/entities.h"

namespace engram::graph {

namespace {

using Json = nlohmann::json;

// Whether an expected string names an item's field: equal when folded, or a
// value that says more ("CEO" in "创始人兼 CEO").
bool Names(const std::string& expected, const std::string& field, bool value) {
  if (field.empty()) return false;
  const std::string e = FoldName(expected), f = FoldName(field);
  if (e.empty()) return false;
  return e == f || (value && f.find(e) != std::string::npos);
}

bool ItemNamed(const AnswerItem& it, const std::string& e) {
  return Names(e, it.slug, false) || Names(e, it.title, true) || Names(e, it.valid_from, false) ||
         Names(e, it.predicate, false);
}

}  // namespace

Result<std::vector<GoldQuestion>> LoadGold(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot read " + path);
  std::vector<GoldQuestion> out;
  std::string text;
  int number = 0;
  while (std::getline(in, text)) {
    ++number;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(number) + ": ";
    Json j = Json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return Status::InvalidArgument(where + "not a JSON object");
    GoldQuestion q;
    q.line = number;
    for (auto [key, field] : {std::pair<const char*, std::string*>{"id", &q.id},
                              {"lang", &q.lang},
                              {"kind", &q.kind},
                              {"question", &q.question},
                              {"as_of", &q.as_of}}) {
      if (!j.contains(key)) continue;
      if (!j[key].is_string()) return Status::InvalidArgument(where + "'" + key + "' is not a string");
      *field = j[key].get<std::string>();
    }
    if (q.question.empty()) return Status::InvalidArgument(where + "no 'question'");
    if (!j.contains("expect") || !j["expect"].is_array()) {
      return Status::InvalidArgument(where + "'expect' is not a list");
    }
    for (const Json& e : j["expect"]) {
      if (!e.is_string()) return Status::InvalidArgument(where + "'expect' holds a value that is not a string");
      q.expect.push_back(e.get<std::string>());
    }
    out.push_back(std::move(q));
  }
  return out;
}

bool AnswerMatches(const GraphAnswer& answer, const std::vector<std::string>& expect) {
  if (answer.question.kind == QuestionKind::kNone) return false;
  if (expect.empty()) return answer.items.empty() && !answer.entity_slug.empty();
  for (const std::string& e : expect) {
    bool found = false;
    for (const AnswerItem& it : answer.items) found = found || ItemNamed(it, e);
    if (!found) return false;
  }
  for (const AnswerItem& it : answer.items) {
    bool named = false;
    for (const std::string& e : expect) named = named || ItemNamed(it, e);
    if (!named) return false;
  }
  return true;
}

Result<GoldResult> RunGold(PageStore& store, const ReadScope& scope, const std::vector<GoldQuestion>& questions,
                           const GraphRules& rules) {
  GoldResult r;
  for (const GoldQuestion& g : questions) {
    GraphQuestion q = ParseQuestion(g.question);
    if (!g.as_of.empty()) q.as_of = g.as_of;
    ENGRAM_ASSIGN_OR_RETURN(GraphAnswer a, Answer(store, scope, q, rules));
    const bool ok = AnswerMatches(a, g.expect);
    ++r.total;
    r.correct += ok;
    r.understood += q.kind != QuestionKind::kNone;
    auto& group = r.by_group[g.kind + "/" + g.lang];
    group.first += ok;
    ++group.second;
    if (!ok) {
      std::string got = q.kind == QuestionKind::kNone ? "(not a graph question)" : RenderAnswer(a);
      r.misses.push_back({g.id, g.question, got, g.expect});
    }
  }
  return r;
}

}  // namespace engram::graph
