#include "kb_commands.h"

#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "command_support.h"
#include "output.h"
#include "kb/dialog.h"
#include "kb/entry_reader.h"
#include "kb/mysql_dump.h"
#include "ops/kb_module.h"

namespace engram::cli {

namespace {

using Json = nlohmann::json;

constexpr size_t kImportBatch = 1000;
constexpr uint64_t kMaxImportBytes = uint64_t{1} << 30;

struct KbArgs {
  std::string collection = ops::kDefaultKbCollection;
  std::vector<std::string> fields;  // create: NAME or NAME:TYPE
  std::vector<std::string> texts;   // search, delete --text
  std::vector<std::string> ids;     // delete
  std::string text, id, source, meta, filters, file, format, similarity, folder;
  int top_k = 0;            // 0: [kb] top_k
  double threshold = -1;    // below 0: [kb] threshold
  double same_threshold = -1;
  int64_t governed_id = 0;  // online, offline, audit --id
  int limit = 100;
  int max_turns = 0;  // dialog: 0 = [kb] max_turns
};


Result<Json> ParseJsonFlag(const std::string& flag, const std::string& value) {
  if (value.empty()) return Json();
  Json j = Json::parse(value, nullptr, false);
  if (j.is_discarded()) return Status::InvalidArgument(flag + " is not valid JSON: " + value.substr(0, 200));
  return j;
}

void PrintKbCreate(const Json& r) {
  std::cout << "Created collection " << r["created"].get<std::string>() << " (similarity: "
            << r["similarity"].get<std::string>() << ")\n";
}

void PrintKbList(const Json& r) {
  if (r["collections"].empty()) std::cout << "No knowledge collections (engram kb create NAME)\n";
  for (const Json& c : r["collections"]) {
    std::string fields;
    for (const Json& f : c["fields"]) {
      fields += (fields.empty() ? "" : ", ") + f["name"].get<std::string>() + ":" + f["type"].get<std::string>();
    }
    std::cout << c["collection"].get<std::string>() << "  " << c["entries"].get<int64_t>() << " entries  "
              << c["similarity"].get<std::string>() << (fields.empty() ? "" : "  fields: " + fields)
              << (c.value("folder", "").empty() ? "" : "  from " + c["folder"].get<std::string>() + "/") << "\n";
  }
}

void PrintKbIds(const Json& r) {
  const bool deleted = r.contains("deleted");
  const Json& ids = deleted ? r["deleted"] : r["ids"];
  std::cout << (deleted ? "Deleted " : "Stored ") << ids.size() << (ids.size() == 1 ? " entry" : " entries")
            << " in " << r["collection"].get<std::string>() << "\n";
  for (const Json& id : ids) std::cout << "  " << id.get<std::string>() << "\n";
}

void PrintKbSearch(const Json& r) {
  const Json& groups = r["groups"];
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups.size() > 1) std::cout << (g == 0 ? "" : "\n") << "#" << g + 1 << "\n";
    const Json& grp = groups[g];
    if (grp["ids"].empty()) std::cout << "No entry scores at or above the threshold\n";
    for (size_t i = 0; i < grp["ids"].size(); ++i) {
      std::cout << std::fixed << std::setprecision(3) << grp["scores"][i].get<double>() << "  "
                << grp["ids"][i].get<std::string>() << "  " << grp["text_list"][i].get<std::string>() << "\n";
      const Json& meta = grp["metadatas"][i];
      if (meta.contains("safeChat") && meta["safeChat"].is_string()) {
        std::cout << "       safeChat: " << meta["safeChat"].get<std::string>() << "\n";
      }
    }
  }
  std::cout << "(similarity: " << r["similarity"].get<std::string>() << ")\n";
}

void PrintGoverned(const Json& g) {
  std::cout << "Governed entry " << g["id"].get<int64_t>() << " (" << g["indexed_id"].get<std::string>() << ", version "
            << g["version"].get<int64_t>() << ") is " << g["status"].get<std::string>()
            << (g["status"] == "online" && g["latest"].get<bool>() ? ": searchable" : ": not searchable") << "\n";
}

void PrintKbAudit(const Json& r) {
  if (r["audit"].empty()) std::cout << "No governance changes yet\n";
  for (const Json& e : r["audit"]) {
    std::cout << e["at"].get<std::string>() << "  " << e["action"].get<std::string>() << "  entry "
              << e["governed_id"].get<int64_t>() << "  by " << e["who"].get<std::string>() << "\n";
  }
}

void PrintKbReindex(const Json& r) {
  const auto n = r["changed"].get<int64_t>();
  std::cout << (n == 0 ? std::string("The collections already agree with the governed entries")
                       : "Reindexed: " + std::to_string(n) + " searchable entries written or removed")
            << "\n";
}

int RunKbCreate(const KbArgs& a, bool json, const std::string& brain_dir) {
  Json fields = Json::array();
  for (const std::string& f : a.fields) {
    const size_t colon = f.find(':');
    Json field = {{"name", f.substr(0, colon)}};
    if (colon != std::string::npos) field["type"] = f.substr(colon + 1);
    fields.push_back(field);
  }
  Json args = {{"collection", a.collection}, {"fields", fields}};
  if (!a.similarity.empty()) args["similarity"] = a.similarity;
  if (!a.folder.empty()) args["folder"] = a.folder;
  return RunOperation("kb_create", args, json, brain_dir, PrintKbCreate);
}

int RunKbUpsert(const KbArgs& a, bool json, const std::string& brain_dir) {
  auto meta = ParseJsonFlag("--meta", a.meta);
  if (!meta.ok()) return Fail(meta.status(), json);
  Json doc = {{"text", a.text}};
  if (!a.id.empty()) doc["id"] = a.id;
  if (!a.source.empty()) doc["source"] = a.source;
  if (!meta->is_null()) doc["meta"] = *meta;
  return RunOperation("kb_upsert", {{"collection", a.collection}, {"docs", Json::array({doc})}}, json, brain_dir,
                      PrintKbIds);
}

void PrintKbAnswer(const Json& r) {
  const std::string answer = r["answer"].get<std::string>();
  if (!answer.empty()) std::cout << answer << "\n";
  const std::string reason = r["no_answer_reason"].get<std::string>();
  if (!reason.empty()) std::cout << "(" << reason << ")\n";
  const std::string backup = r.value("answer_backup", "");
  if (!backup.empty()) std::cout << "held back: " << backup << "\n";
  const Json& refs = r.contains("refDocs") ? r["refDocs"] : r["hits"];
  for (size_t i = 0; i < refs["ids"].size(); ++i) {
    std::cout << "  " << std::fixed << std::setprecision(3) << refs["scores"][i].get<double>() << "  "
              << refs["text_list"][i].get<std::string>() << "\n";
  }
}

void PrintKbCheck(const Json& r) {
  std::cout << "riskCode " << r["riskCode"].get<int>() << "\n";
  PrintKbAnswer(r);
}

void PrintKbDialog(const Json& r) {
  std::cout << "riskCode " << r["riskCode"].get<int>() << " (" << r["riskMessage"].get<std::string>() << ")"
            << (r["checked"].get<bool>() ? "" : ", not checked") << "\n";
  if (!r["reason"].get<std::string>().empty()) std::cout << r["reason"].get<std::string>() << "\n";
}

// The search arguments shared by search, answer and check: what was not given comes from [kb].
Result<Json> SearchArgs(const KbArgs& a) {
  ENGRAM_ASSIGN_OR_RETURN(Json filters, ParseJsonFlag("--filter", a.filters));
  Json args = {{"collection", a.collection}, {"text_list", a.texts}};
  if (a.top_k > 0) args["top_k"] = a.top_k;
  if (a.threshold >= 0) args["threshold"] = a.threshold;
  if (a.same_threshold >= 0) args["same_threshold"] = a.same_threshold;
  if (!filters.is_null()) args["filters"] = filters;
  return args;
}

int RunKbSearch(const std::string& op, const KbArgs& a, bool json, const std::string& brain_dir,
                void (*print)(const Json&)) {
  auto args = SearchArgs(a);
  if (!args.ok()) return Fail(args.status(), json);
  return RunOperation(op, *args, json, brain_dir, print);
}

// A conversation file: a JSON array of {role, content, messageId?}, or an
// object holding it as "history" (a /dialog request body); "-" is stdin.
int RunKbDialog(const KbArgs& a, bool json, const std::string& brain_dir) {
  std::string text;
  if (a.file == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    text = ss.str();
  } else {
    auto data = ReadInputFile(a.file, 64u << 20);
    if (!data.ok()) return Fail(data.status(), json);
    text = std::move(*data);
  }
  Json conversation = Json::parse(text, nullptr, false);
  if (conversation.is_object() && conversation.contains("history")) conversation = conversation["history"];
  if (!conversation.is_array()) {
    return Fail(Status::InvalidArgument(a.file + ": not a JSON array of messages ({role, content}) or an object "
                                                 "with \"history\""),
                json);
  }
  kb::KeepDialogFields(&conversation);  // as POST /dialog does
  Json args = {{"history", conversation}};
  if (a.max_turns > 0) args["max_turns"] = a.max_turns;
  return RunOperation("dialog_check", args, json, brain_dir, PrintKbDialog);
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A JoySafety MySQL dump: its red_line_knowledge rows become governed entries, as they were.
int RunKbImportDump(const KbArgs& a, const std::string& data, Brain& brain, bool json) {
  auto rows = kb::ReadRedLineDump(data);
  if (!rows.ok()) return Fail(Status::InvalidArgument(a.file + ": " + rows.status().message()), json);
  OperationContext ctx;
  ctx.transport = "cli";
  const auto start = std::chrono::steady_clock::now();
  auto counts = brain.Module<ops::KbModule>().GovernedImport(
      ctx, std::move(*rows), a.collection, kImportBatch, [&](size_t done, size_t total) {
        if (!json) ProgressBar("import", static_cast<int64_t>(done), static_cast<int64_t>(total), start);
      });
  if (!counts.ok()) return Fail(Status(counts.status().code(), a.file + ": " + counts.status().message()), json);
  Json out = {{"collection", a.collection}, {"imported", counts->imported}, {"skipped", counts->skipped},
              {"file", a.file}, {"format", "mysql"}};
  if (json) {
    Print(out);
  } else {
    std::cout << "Imported " << counts->imported << " governed entries into " << a.collection;
    if (counts->skipped > 0) std::cout << " (" << counts->skipped << " versions were already here)";
    std::cout << "\n";
  }
  return 0;
}

int RunKbImport(const KbArgs& a, bool json, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  auto data = ReadInputFile(a.file, kMaxImportBytes);
  if (!data.ok()) return Fail(data.status(), json);
  std::string format = a.format;
  if (format.empty()) format = EndsWith(a.file, ".csv") ? "csv" : (EndsWith(a.file, ".sql") ? "mysql" : "jsonl");
  if (format == "mysql") return RunKbImportDump(a, *data, **brain, json);
  auto entries = format == "csv" ? kb::ReadCsv(*data) : kb::ReadJsonl(*data);
  if (!entries.ok()) return Fail(Status::InvalidArgument(a.file + ": " + entries.status().message()), json);
  const auto start = std::chrono::steady_clock::now();
  size_t done = 0;
  for (size_t first = 0; first < entries->size(); first += kImportBatch) {
    Json docs = Json::array();
    const size_t end = std::min(entries->size(), first + kImportBatch);
    for (size_t i = first; i < end; ++i) {
      const kb::ReadEntry& e = (*entries)[i];
      Json d = {{"text", e.text}, {"source", e.source}, {"meta", e.meta}};
      if (!e.id.empty()) d["id"] = e.id;
      docs.push_back(std::move(d));
    }
    auto r = CallOperation(**brain, "kb_upsert", {{"collection", a.collection}, {"docs", docs}});
    if (!r.ok()) {
      // Which line: the operation names the batch's index of the entry.
      return Fail(Status(r.status().code(), a.file + " (entries from line " +
                                                std::to_string((*entries)[first].line) + "): " + r.status().message()),
                  json);
    }
    done = end;
    if (!json) ProgressBar("import", static_cast<int64_t>(done), static_cast<int64_t>(entries->size()), start);
  }
  Json out = {{"collection", a.collection}, {"imported", done}, {"file", a.file}, {"format", format}};
  if (json) Print(out);
  else std::cout << "Imported " << done << " entries into " << a.collection << "\n";
  return 0;
}

int RunKbExport(const KbArgs& a, bool json, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  ops::KbModule& kb = (*brain)->Module<ops::KbModule>();
  for (int64_t after = 0;;) {
    auto page = kb.Scan(ReadScope::All(kDefaultSource), a.collection, after, kImportBatch);
    if (!page.ok()) return Fail(page.status(), json);
    for (const KbEntry& e : *page) {
      Json meta = Json::parse(e.meta, nullptr, false);
      Json line = {{"id", e.id}, {"text", e.text}, {"source", e.source},
                   {"meta", meta.is_object() ? meta : Json::object()}};
      std::cout << line.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
    }
    if (page->size() < kImportBatch) break;
    after = page->back().key;
  }
  return 0;
}

}  // namespace

void AddKbCommands(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto a = std::make_shared<KbArgs>();
  auto* kb = app.add_subcommand("kb", "Knowledge collections: curated Q/A entries found by similarity (red-line "
                                      "knowledge service)");
  kb->require_subcommand(1);
  kb->footer(
      "Entries are (id, text, source, meta); meta.safeChat holds an entry's safe answer. A collection made while\n"
      "[embedding] names a model scores by the cosine of that model's vectors; otherwise by a calibrated TF-IDF\n"
      "cosine over the analyzer's terms (Chinese characters and pairs, English stems). Defaults (threshold 0.8,\n"
      "same_threshold 0.9, top_k 5, the model's settings) are the config's [kb] section. `engram serve` answers\n"
      "JoySafety's /knowledge/*, /dialog and /data/redline_knowledge/* routes from the same collections.");
  auto collection = [a](CLI::App* cmd) {
    cmd->add_option("--collection,-c", a->collection, "The collection (default: \"default\")");
  };

  auto* create = kb->add_subcommand("create", "Create a collection with the meta fields it filters on");
  create->add_option("NAME", a->collection, "Its name: letters, digits, '_', '-' or '.'")->required();
  create->add_option("--field", a->fields, "A filterable meta field: NAME or NAME:TYPE (string, number, date)");
  create->add_option("--similarity", a->similarity,
                     "embedding (cosine of the [embedding] model's vectors; the default when one is configured) or "
                     "lexical (TF-IDF over the analyzer's terms, no model)")
      ->check(CLI::IsMember({"embedding", "lexical"}));
  create->add_option("--folder", a->folder,
                     "Keep the collection from this folder of Markdown pages, one entry per page (lexical)");
  create->footer(
      "A folder collection is never written to: each page under the folder is an entry (id = its slug), kept\n"
      "current by `engram sync` / `import` like every page, so red-line knowledge is reviewed as commits.\n"
      "A page gives its question and answer in its frontmatter (question, answer, class, type, status:\n"
      "offline hides it) or as `## Q` and `## A` sections; a page with no question is not an entry.");
  create->callback([a, json, brain_dir, exit_code] { *exit_code = RunKbCreate(*a, *json, *brain_dir); });

  auto* list = kb->add_subcommand("list", "List the collections with their entry counts and fields");
  list->callback([json, brain_dir, exit_code] {
    *exit_code = RunOperation("kb_list", Json::object(), *json, *brain_dir, PrintKbList);
  });

  auto* upsert = kb->add_subcommand("upsert", "Add or replace one entry (an existing id is replaced)");
  upsert->add_option("TEXT", a->text, "The entry's text (the question)")->required();
  upsert->add_option("--id", a->id, "Its id (default: md5 of the text)");
  upsert->add_option("--source", a->source, "Where it comes from");
  upsert->add_option("--meta", a->meta, "Flat JSON fields, e.g. '{\"safeChat\": \"...\", \"type\": \"drugs\"}'");
  collection(upsert);
  upsert->callback([a, json, brain_dir, exit_code] { *exit_code = RunKbUpsert(*a, *json, *brain_dir); });

  auto* del = kb->add_subcommand("delete", "Delete entries by id, or by text (--text)");
  del->add_option("ID", a->ids, "Entry ids");
  del->add_option("--text", a->texts, "Delete the entry of this text (its md5 id); repeatable");
  collection(del);
  del->callback([a, json, brain_dir, exit_code] {
    *exit_code = RunOperation("kb_delete", {{"collection", a->collection}, {"ids", a->ids}, {"texts", a->texts}}, *json,
                     *brain_dir, PrintKbIds);
  });

  auto* search = kb->add_subcommand("search", "Find the entries most similar to each text");
  search->add_option("TEXT", a->texts, "One or more texts (one group of hits each)")->required();
  auto search_options = [a, collection](CLI::App* cmd) {
    cmd->add_option("--top-k,-k", a->top_k, "Hits per text (default: [kb] top_k, 5)")
        ->check(OperationRange("kb_search", "top_k"));
    cmd->add_option("--threshold,-t", a->threshold, "Minimum score, inclusive (default: [kb] threshold, 0.8)")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--filter", a->filters,
                    "JSON: {\"type\": [\"a\", \"b\"]} (IN, AND across fields), {\"level\": {\"gte\": 2}}, "
                    "{\"type\": {\"not_in\": [\"c\"]}}");
    collection(cmd);
  };
  search_options(search);
  search->callback([a, json, brain_dir, exit_code] {
    *exit_code = RunKbSearch("kb_search", *a, *json, *brain_dir, PrintKbSearch);
  });

  for (const bool check : {false, true}) {
    auto* cmd = kb->add_subcommand(check ? "check" : "answer",
                                   check ? "The guarded answer as a gateway's risk code (110101, 110100 or 0)"
                                         : "Answer a question from a collection, guarded (三段式: 无数据 / "
                                           "the entry's safeChat / an LLM answer kept only when close to it)");
    cmd->add_option("TEXT", a->texts, "The question")->required()->expected(1);
    search_options(cmd);
    cmd->add_option("--same-threshold", a->same_threshold,
                    "A top hit this similar is answered with its safeChat, no LLM (default: [kb] same_threshold, "
                    "0.9)")
        ->check(CLI::Range(0.0, 1.0));
    cmd->footer("Stage 3 asks [llm]'s model under these rules ([kb] answer_constraints replaces them):\n" +
                ops::KbModule::DefaultAnswerConstraints() +
                (check ? "\nriskCode: 110101 when an answer is returned, 110100 on a red-line hit without one, 0 "
                         "otherwise."
                       : ""));
    cmd->callback([a, check, json, brain_dir, exit_code] {
      *exit_code = check ? RunKbSearch("kb_check", *a, *json, *brain_dir, PrintKbCheck)
                         : RunKbSearch("kb_answer", *a, *json, *brain_dir, PrintKbAnswer);
    });
  }

  auto* dialog = kb->add_subcommand("dialog", "Check a multi-turn conversation for a step-by-step jailbreak");
  dialog->add_option("FILE", a->file,
                     "A JSON file (\"-\": stdin): [{\"role\", \"content\", \"messageId\"?}, ...] or "
                     "{\"history\": [...]}")
      ->required();
  dialog->add_option("--max-turns", a->max_turns, "Read the last N x 2 messages (default: [kb] max_turns, 20)")
      ->check(CLI::Range(1, 1000));
  dialog->footer("[llm]'s model labels the conversation (riskCode 1 = 恶意对话) under these principles\n"
                 "([kb] dialog_principles replaces them):\n" +
                 kb::DefaultDialogPrinciples() +
                 "\nStreamed fragments (same role and messageId) are merged first. With no model, a failed call or "
                 "an\nunreadable reply the answer is riskCode 0 and `not checked`, with the reason.");
  dialog->callback([a, json, brain_dir, exit_code] { *exit_code = RunKbDialog(*a, *json, *brain_dir); });

  auto* import = kb->add_subcommand(
      "import", "Import entries from JSON Lines or CSV, or a JoySafety MySQL dump (all checked first)");
  import->add_option("FILE", a->file, "The file: .jsonl ({id?, text, source?, meta?} per line), .csv (a header "
                                      "row with text and optionally id, source; other columns become meta), or .sql "
                                      "(a MySQL dump of JoySafety's red_line_knowledge)")
      ->required();
  import->add_option("--format", a->format, "jsonl, csv or mysql (default: from the file name)")
      ->check(CLI::IsMember({"jsonl", "csv", "mysql"}));
  collection(import);
  import->footer(
      "Every line is read and checked before anything is stored: a bad line stops the import with its\n"
      "line number. Entries are then stored 1,000 at a time; ids make a re-import converge.\n"
      "A MySQL dump (mysqldump's INSERT statements of red_line_knowledge, multi-row, escaped strings) becomes\n"
      "governed entries with their versions, status, people and times; the latest online version of each is\n"
      "searchable. Versions the brain already holds are skipped, so an interrupted import converges when rerun.");
  import->callback([a, json, brain_dir, exit_code] { *exit_code = RunKbImport(*a, *json, *brain_dir); });

  for (const bool online : {true, false}) {
    auto* flip = kb->add_subcommand(online ? "online" : "offline",
                                    online ? "Put a governed entry online (searchable when this returns)"
                                           : "Take a governed entry offline (unsearchable when this returns)");
    flip->add_option("ID", a->governed_id, "The governed entry's id")->required();
    flip->callback([a, online, json, brain_dir, exit_code] {
      *exit_code = RunOperation(online ? "kb_gov_online" : "kb_gov_offline", {{"id", a->governed_id}}, *json,
                                *brain_dir, PrintGoverned);
    });
  }
  auto* audit = kb->add_subcommand("audit", "Show the governance log: who changed which entry when");
  audit->add_option("--id", a->governed_id, "Only this governed entry's changes");
  audit->add_option("--limit", a->limit, "At most this many, newest first (default 100)")
      ->check(OperationRange("kb_audit", "limit"));
  audit->callback([a, json, brain_dir, exit_code] {
    Json args = {{"limit", a->limit}};
    if (a->governed_id > 0) args["id"] = a->governed_id;
    *exit_code = RunOperation("kb_audit", args, *json, *brain_dir, PrintKbAudit);
  });
  auto* reindex = kb->add_subcommand("reindex", "Rebuild the governed entries' searchable side from their rows");
  reindex->footer("Every online latest version is made searchable and nothing else of theirs is; a second run\n"
                  "changes nothing. `engram check` reports any disagreement.");
  reindex->callback([json, brain_dir, exit_code] {
    *exit_code = RunOperation("kb_reindex", Json::object(), *json, *brain_dir, PrintKbReindex);
  });

  auto* exp = kb->add_subcommand("export", "Print a collection's entries as JSON Lines (what import reads)");
  collection(exp);
  exp->callback([a, json, brain_dir, exit_code] { *exit_code = RunKbExport(*a, *json, *brain_dir); });
}

}  // namespace engram::cli
