// `facts SLUG --suggest`: the optional LLM relation extractor
// (graph/llm_relations.h) on one page — see PageModule::SuggestFacts.
#include <cmath>
#include <cstdio>
#include <map>

#include "graph/entities.h"
#include "graph/facts.h"
#include "graph/llm_relations.h"
#include "llm/chat_client.h"
#include "ops/page_module.h"
#include "ops/page_names.h"
#include "text/page_edit.h"

namespace engram::ops {

namespace {

// The model's name as a note may hold it: no "--", no '>', one line.
std::string NoteSafe(std::string_view model) {
  std::string out;
  for (char c : model.substr(0, 60)) {
    const bool plain = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == ':' || c == '/';
    out += plain || (c == '-' && (out.empty() || out.back() != '-')) ? c : '_';
  }
  return out.empty() ? "model" : out;
}

// A value as it compares with a fact's: the page it names, else folded text.
bool SameValue(const graph::Fact& f, const std::string& value, const std::string& value_slug) {
  if (!value_slug.empty()) return f.value_slug == value_slug;
  return graph::FoldName(f.value) == graph::FoldName(value);
}

}  // namespace

Result<SuggestReport> PageModule::SuggestFacts(const OperationContext& ctx, std::string_view slug, bool write,
                                               double min_confidence) {
  const BrainOptions& o = brain_.options();
  if (o.llm.model.empty()) {
    return Status::FailedPrecondition(
        "facts --suggest asks an LLM: set llm.model (and llm.base_url, llm.api_key_env) in .engram/config.toml");
  }
  if (!(min_confidence >= 0 && min_confidence <= 1)) {
    return Status::InvalidArgument("min_confidence must be a number from 0 to 1");
  }
  const ReadScope scope = ReadScopeOf(ctx);
  ENGRAM_ASSIGN_OR_RETURN(StoredPage page, ResolvePage(brain_.engine(), scope, slug));
  llm::ChatOptions co;
  co.base_url = o.llm.base_url;
  co.model = o.llm.model;
  co.api_key_env = o.llm.api_key_env;
  co.timeout_ms = std::max(o.llm.timeout_ms, 30000);  // a page's relations take longer than a query's variants
  co.max_tokens = 1500;
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<llm::ChatClient> chat, llm::OpenChatClient(co));
  auto [system, user] = graph::RelationPrompt(page.title, page.content);
  ENGRAM_ASSIGN_OR_RETURN(std::string reply, chat->Complete({{"system", system}, {"user", user}}));
  const int lines = static_cast<int>(std::count(page.content.begin(), page.content.end(), '\n')) + 1;
  auto read = graph::ParseRelationReply(reply, lines);
  // A reply that is no answer is the model's failure, not the caller's (exit 1, not a usage error).
  if (!read.ok()) return Status::Unavailable(read.status().message() + " (model " + o.llm.model + ")");
  graph::RelationReply parsed = std::move(*read);

  SuggestReport report{page.slug, o.llm.model, {}, std::move(parsed.dropped), {}};
  const graph::GraphRules rules{o.graph};
  ENGRAM_ASSIGN_OR_RETURN(graph::FactSheet sheet, graph::FactsAbout(brain_.engine(), scope, page.slug, rules, ""));
  std::vector<size_t> to_write;  // indexes into report.suggestions (which grows as it goes)
  std::map<std::string, std::string> claimed;  // single-valued predicate -> the value the reply gave first
  for (graph::SuggestedRelation& r : parsed.relations) {
    FactSuggestion s{r.subject, r.predicate, r.object, "", r.line, r.confidence, ""};
    report.suggestions.push_back(s);
    FactSuggestion& out = report.suggestions.back();
    // The subject must be this page: a fact line states something about the page it is on.
    ENGRAM_ASSIGN_OR_RETURN(std::vector<graph::EntityCandidate> subject,
                            graph::ResolveEntity(brain_.engine(), scope, r.subject, rules));
    const bool is_page = std::any_of(subject.begin(), subject.end(),
                                     [&](const graph::EntityCandidate& c) { return c.slug == page.slug; });
    if (!is_page) {
      out.verdict = "about another page, not this one";
      continue;
    }
    // The value: a page the object names, else text where a text value is read (role, location, ...).
    std::string value_slug;
    if (r.predicate == "role") {
      out.value = r.object;
    } else {
      ENGRAM_ASSIGN_OR_RETURN(std::vector<graph::EntityCandidate> object,
                              graph::ResolveEntity(brain_.engine(), scope, r.object, rules));
      if (object.size() == 1) {
        value_slug = object.front().slug;
        out.value = "[[" + value_slug + "]]";
      } else if (object.size() > 1) {
        out.verdict = "'" + r.object + "' may mean " + std::to_string(object.size()) + " pages";
        continue;
      } else if (r.predicate == "location") {
        out.value = r.object;
      } else {
        out.verdict = "'" + r.object + "' names no page";
        continue;
      }
    }
    if (r.confidence < min_confidence) {
      out.verdict = "confidence below " + std::to_string(min_confidence).substr(0, 4);
      continue;
    }
    const graph::Fact* same = nullptr;
    const graph::Fact* other = nullptr;
    for (const graph::Fact& f : sheet.facts) {
      if (f.predicate != r.predicate) continue;
      if (SameValue(f, out.value, value_slug)) {
        same = &f;
      } else if (f.holds) {
        other = &f;
      }
    }
    if (same != nullptr) {
      out.verdict = "already stated (" + same->source_path + ":" + std::to_string(same->line) + ")";
    } else if (other != nullptr && rules.IsSingleValued(r.predicate)) {
      // Never over what the page says (a person wrote it, or a model before): its single value stays the only one.
      out.verdict = "the page says " + other->value + " (" + other->source_path + ":" + std::to_string(other->line) +
                    "); not overridden";
    } else if (rules.IsSingleValued(r.predicate) && !claimed.emplace(r.predicate, out.value).second &&
               claimed[r.predicate] != out.value) {
      // Two values of one single-valued predicate in one reply would be a conflict the model made.
      out.verdict = "the reply gives " + r.predicate + " another value too (" + claimed[r.predicate] + ")";
    } else {
      out.verdict = write ? "written" : "suggested";
      if (write) to_write.push_back(report.suggestions.size() - 1);
    }
  }
  if (!to_write.empty()) {
    const std::string model = NoteSafe(o.llm.model);
    ENGRAM_ASSIGN_OR_RETURN(
        PutReport put, EditPage(ctx, page.slug, "fact", [&](const StoredPage& p) -> Result<std::string> {
          std::string content = p.content;
          for (const size_t i : to_write) {
            FactSuggestion* s = &report.suggestions[i];
            char confidence[16];
            std::snprintf(confidence, sizeof confidence, "%.2f", s->confidence);
            const std::string note = "llm " + model + " " + confidence + " line " + std::to_string(s->line);
            // A line that would read back as anything but this fact (a value carrying links or fields the
            // model was told to write) is not written, and the report says why.
            Result<std::string> added = text::AddFact(p.path, content, s->predicate, s->value, "", "", note);
            if (!added.ok()) {
              s->verdict = "not written: " + added.status().message();
              continue;
            }
            content = std::move(*added);
          }
          return content;
        }));
    report.commit = put.commit;
  }
  return report;
}

}  // namespace engram::ops
