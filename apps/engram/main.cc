// The `engram` command line: a thin adapter over engram::Brain and the
// operation layer. Each command registers itself from its own file
// (brain_commands, page_commands, search_commands, eval_command, ...); main()
// holds the global options and dispatches.
//
// Contract: `--json` prints exactly one JSON document on stdout; logs,
// progress and errors go to stderr. Exit codes: 0 ok, 1 the operation
// failed, 2 usage error.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "brain_commands.h"
#include "call_command.h"
#include "config_command.h"
#include "embed_commands.h"
#include "graph_commands.h"
#include "eval_command.h"
#include "kb_commands.h"
#include "model_commands.h"
#include "page_commands.h"
#include "search_commands.h"
#include "server_commands.h"
#include "vector_commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "engram: a local-first knowledge brain for people and AI agents.\n"
      "Markdown pages (Chinese and English) in a folder or git repository, indexed into an embedded\n"
      "SQLite database and searched by keyword (bilingual BM25), by meaning (a built-in BERT runtime or an\n"
      "OpenAI-compatible server, HNSW) or both (hybrid), with an agent-safe context block.",
      "engram"};
  app.set_version_flag("--version", "engram 0.1.0");
  app.require_subcommand(1);
  app.fallthrough();  // global options (--json, --brain) also after the command: `engram token create --json`
  app.footer(
      "A brain is found from --brain DIR, then $ENGRAM_BRAIN, then the current directory upwards.\n"
      "Exit codes: 0 ok, 1 the operation failed, 2 usage error.\n"
      "Run `engram COMMAND --help` for a command's options.");
  std::string brain_dir;
  bool json = false;
  app.add_option("--brain", brain_dir, "Brain root folder (the one holding .engram/)")->envname("ENGRAM_BRAIN");
  app.add_flag("--json", json, "Print one JSON document on stdout instead of text");

  int exit_code = -1;  // set by the command that ran, from its callback
  using namespace engram::cli;
  AddBrainCommands(app, &json, &brain_dir, &exit_code);  // init import sync audit check hook
  AddPageCommands(app, &json, &brain_dir, &exit_code);   // put get list delete backlinks timeline tag link
  AddSearchCommands(app, &json, &brain_dir, &exit_code);
  AddKbCommands(app, &json, &brain_dir, &exit_code);  // kb create list upsert delete search import export
  AddGraphCommands(app, &json, &brain_dir, &exit_code);  // entity facts conflicts graph path dead-links orphans
  AddStatusCommand(app, &json, &brain_dir, &exit_code);
  AddEvalCommand(app, &json, &brain_dir, &exit_code);
  AddEmbedCommands(app, &json, &exit_code);
  AddVectorBenchCommand(app, &json, &exit_code);
  AddModelCommands(app, &json, &brain_dir, &exit_code);
  AddCallCommand(app, &brain_dir, &exit_code);
  AddConfigCommand(app, &json, &brain_dir, &exit_code);
  AddServerCommands(app, &json, &brain_dir, &exit_code);
  AddBenchSearchCommand(app, &json, &brain_dir, &exit_code);  // under `bench`, after the vector bench

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "engram: " << e.what() << "\n";
    HintDashQuery(app, argc, argv);
    std::cerr << "Run `engram --help` for usage.\n";
    return 2;
  }
  return exit_code >= 0 ? exit_code : 2;
}
