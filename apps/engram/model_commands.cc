#include "model_commands.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "embed/embedder.h"
#include "embed/known_models.h"
#include "embed/model_config.h"
#include "engram/brain.h"
#include "ops/models.h"
#include "output.h"
#include "ops/embedding_module.h"

namespace engram::cli {

namespace {

using Json = nlohmann::json;

struct EmbedArgs {
  bool all = false;
  bool stale = false;
  bool quiet = false;
};

int RunEmbed(const EmbedArgs& a, bool json, const std::string& brain_dir) {
  auto brain = OpenBrain(brain_dir);
  if (!brain.ok()) return Fail(brain.status(), json);
  OperationContext ctx;
  if (!a.quiet && !json && isatty(STDERR_FILENO)) {
    auto start = std::chrono::steady_clock::now();
    ctx.progress = [start](size_t done, size_t total) {
      ProgressBar("embed", static_cast<int64_t>(done), static_cast<int64_t>(total), start);
    };
  }
  auto r = CallOperation(**brain, "embed", {{"all", a.all}}, ctx);
  if (!r.ok()) return Fail(r.status(), json);
  if (json) {
    Print(*r);
    return 0;
  }
  const Json& j = *r;
  std::printf("Embedded %lld chunks with %s:%s (%d dimensions) in %.2f s; %lld of %lld chunks stale\n",
              j.value("embedded", 0LL), j.value("provider", "").c_str(), j.value("model", "").c_str(),
              j.value("dims", 0), j.value("seconds", 0.0), j.value("stale", 0LL), j.value("chunks", 0LL));
  if (const std::string note = j.value("index_note", ""); !note.empty()) std::printf("%s\n", note.c_str());
  return 0;
}

int RunModelList(bool json) {
  auto models = ops::ListModels();
  if (json) {
    Json rows = Json::array();
    for (const auto& m : models) {
      rows.push_back({{"name", m.name}, {"repo", m.repo}, {"dims", m.dims}, {"installed", m.installed},
                      {"dir", m.dir.string()}, {"description", m.description}});
    }
    std::cout << engram::ops::Dump(Json{{"models", rows}, {"home", ops::ModelsHome().string()}}, 2) << "\n";
    return 0;
  }
  std::printf("models in %s\n", ops::ModelsHome().string().c_str());
  for (const auto& m : models) {
    std::printf("  %-24s %-10s %s\n", m.name.c_str(), m.installed ? "installed" : "-", m.description.c_str());
  }
  return 0;
}

int RunModelInfo(const std::string& name, bool json) {
  auto dir = ops::ResolveModelDir(name);
  if (!dir.ok()) return Fail(dir.status(), json);
  auto spec = embed::LoadModelSpec(*dir);
  if (!spec.ok()) return Fail(spec.status(), json);
  const auto& c = spec->bert;
  Json j = {{"name", spec->id},
            {"dir", dir->string()},
            {"kind", c.num_labels > 0 ? "cross-encoder" : "embedding"},
            {"dims", c.hidden},
            {"layers", c.layers},
            {"heads", c.heads},
            {"intermediate_size", c.intermediate},
            {"vocab_size", c.vocab_size},
            {"max_tokens", spec->tokenizer.max_length},
            {"pooling", embed::PoolingName(spec->pooling)},
            {"normalize", spec->normalize},
            {"lowercase", spec->tokenizer.lowercase || spec->tokenizer.pre_lowercase},
            {"query_prompt", spec->query_prompt},
            {"document_prompt", spec->document_prompt}};
  std::cout << engram::ops::Dump(j, 2) << "\n";  // the same document for people and scripts
  return 0;
}

int RunModelUse(const std::string& name, bool json, const std::string& brain_dir) {
  auto root = Brain::Locate(brain_dir);
  if (!root.ok()) return Fail(root.status(), json);
  Status st = ops::UseModel(*root / ".engram" / "config.toml", name);
  if (!st.ok()) return Fail(st, json);
  // The configuration must still load, and the model must open.
  auto brain = Brain::Open(*root);
  if (!brain.ok()) return Fail(brain.status(), json);
  auto e = (*brain)->Module<ops::EmbeddingModule>().GetEmbedder();
  if (!e.ok()) return Fail(e.status(), json);
  auto state = (*brain)->Module<ops::EmbeddingModule>().EmbeddingState(ReadScope::All(kDefaultSource));
  if (!state.ok()) return Fail(state.status(), json);
  if (json) {
    std::cout << engram::ops::Dump(Json{{"model", name}, {"dims", (*e)->info().dims}, {"stale", state->stale}}, 2) << "\n";
  } else {
    std::printf("Using %s (%d dimensions). Run `engram embed %s` to embed the brain's chunks.\n", name.c_str(),
                (*e)->info().dims,
                state->recorded_model.empty() || state->recorded_model == "bert:" + (*e)->info().model ? "--stale"
                                                                                                      : "--all");
  }
  return 0;
}

int RunModelPull(const std::string& name, const std::string& from, const std::string& endpoint, bool json) {
  ops::PullOptions o;
  o.from = from;
  o.endpoint = endpoint;
  if (!json && isatty(STDERR_FILENO)) {
    o.progress = [](const std::string& file, uint64_t done, uint64_t total) {
      if (total > 0) std::fprintf(stderr, "\r[pull] %s %.1f/%.1f MB   ", file.c_str(), done / 1e6, total / 1e6);
    };
  }
  auto dir = ops::PullModel(name, o);
  if (!json && isatty(STDERR_FILENO)) std::fprintf(stderr, "\n");
  if (!dir.ok()) return Fail(dir.status(), json);
  if (json) std::cout << engram::ops::Dump(Json{{"model", name}, {"dir", dir->string()}}, 2) << "\n";
  else std::printf("Installed %s in %s\n", name.c_str(), dir->string().c_str());
  return 0;
}

}  // namespace

void AddModelCommands(CLI::App& app, const bool* json, const std::string* brain_dir, int* exit_code) {
  auto ea = std::make_shared<EmbedArgs>();
  auto* embed = app.add_subcommand("embed", "Embed the brain's chunks with the configured model (default: the stale ones)");
  auto* stale = embed->add_flag("--stale", ea->stale, "Embed chunks without a vector of the current model (the default)");
  embed->add_flag("--all", ea->all, "Re-embed every chunk (after changing models)")->excludes(stale);
  embed->add_flag("--quiet,-q", ea->quiet, "No progress bar");
  embed->footer(
      "The model comes from [embedding] in .engram/config.toml (`engram model use NAME` sets it).\n"
      "A chunk is stale when it has no vector of that model: new or edited text, or a model change.\n"
      "sync and put embed small change sets themselves (embedding.inline_limit chunks).");
  embed->callback([ea, json, brain_dir, exit_code] { *exit_code = RunEmbed(*ea, *json, *brain_dir); });

  auto* model = app.add_subcommand("model", "List, inspect, install and choose local embedding models");
  model->require_subcommand(1);
  model->footer("Models live in $ENGRAM_MODELS, else $XDG_CACHE_HOME/engram/models, else ~/.cache/engram/models.");
  auto* list = model->add_subcommand("list", "Known models and what is installed");
  list->callback([json, exit_code] { *exit_code = RunModelList(*json); });

  auto name = std::make_shared<std::string>();
  auto* info = model->add_subcommand("info", "Architecture, pooling, limits and prompts of a model");
  info->add_option("NAME", *name, "Installed model name or model directory")->required();
  info->callback([name, json, exit_code] { *exit_code = RunModelInfo(*name, *json); });

  auto* use = model->add_subcommand("use", "Make this brain embed with a local model (rewrites [embedding])");
  use->add_option("NAME", *name, "Installed model name or model directory")->required();
  use->callback([name, json, brain_dir, exit_code] { *exit_code = RunModelUse(*name, *json, *brain_dir); });

  auto from = std::make_shared<std::string>();
  auto endpoint = std::make_shared<std::string>();
  auto* pull = model->add_subcommand("pull", "Install a model from the Hugging Face hub, or from a folder with --from");
  pull->add_option("NAME", *name, "A name from `engram model list` (any name with --from)")->required();
  pull->add_option("--from", *from, "Copy the model files from this directory instead of downloading")
      ->check(CLI::ExistingDirectory);
  pull->add_option("--endpoint", *endpoint, "Hub URL (default: $HF_ENDPOINT, else https://huggingface.co)");
  pull->footer(
      "Downloads resume from .part files; sizes and the hub's sha256 of the weights are verified.\n"
      "A token in $HF_TOKEN is sent for gated models.");
  pull->callback([name, from, endpoint, json, exit_code] {
    *exit_code = RunModelPull(*name, *from, *endpoint, *json);
  });
}

}  // namespace engram::cli
