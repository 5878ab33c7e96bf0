// Local models: where they are installed, how a configured name becomes a
// directory, and how they arrive (from the Hugging Face hub or a folder).
//
// Models live in $ENGRAM_MODELS, else $XDG_CACHE_HOME/engram/models, else
// ~/.cache/engram/models, one directory per model name.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "embed/embedder.h"
#include "engram/options.h"
#include "engram/status.h"

namespace engram::ops {

std::filesystem::path ModelsHome();

struct ModelEntry {
  std::string name;
  std::string repo;          // Hugging Face repository ("" for a model installed from a folder)
  std::string description;
  int dims = 0;
  bool installed = false;
  std::filesystem::path dir;
};

// Known models and anything else installed, by name.
std::vector<ModelEntry> ListModels();

// A configured model: an existing directory, else an installed name. A known
// but missing name says how to pull it.
Result<std::filesystem::path> ResolveModelDir(const std::string& name_or_dir);

// The embedder that settings describe for provider "hash", "bert" (model: a
// name or a directory) or "openai" (model: the server's id; expected_dims > 0
// checks every answer's dimension).
Result<std::unique_ptr<embed::Embedder>> OpenEmbedder(const BrainOptions& o, const std::string& provider,
                                                      const std::string& model, int expected_dims = 0);

struct PullOptions {
  std::string endpoint;  // hub URL; default $HF_ENDPOINT or https://huggingface.co
  std::filesystem::path from;  // install from this directory instead of downloading
  std::function<void(const std::string& file, uint64_t done, uint64_t total)> progress;
};

// Installs a model into ModelsHome()/name. Downloads resume from a .part file;
// each file's size, and the sha256 of every file the hub states one for
// (LFS files: X-Linked-Etag), are verified before the file is kept. The
// model is loaded once before it is declared installed.
Result<std::filesystem::path> PullModel(const std::string& name, const PullOptions& options);

// Rewrites the [embedding] section of a brain's config.toml to use a local
// model (provider "bert"), keeping every other section as it was.
Status UseModel(const std::filesystem::path& config_file, const std::string& name);

}  // namespace engram::ops
