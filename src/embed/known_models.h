// The models engram knows by name: where the Hugging Face hub keeps them,
// which files make a model directory, and what sentence-transformers users
// expect of them (query instructions, prefixes) when the directory's own
// config_sentence_transformers.json does not say.
#pragma once

#include <span>
#include <string_view>

namespace engram::embed {

struct KnownModel {
  std::string_view name;        // "bge-small-zh-v1.5"
  std::string_view repo;        // "BAAI/bge-small-zh-v1.5"
  int dims;                     // 0 for a cross-encoder
  std::string_view query_prompt;
  std::string_view document_prompt;
  std::string_view description;
};

std::span<const KnownModel> KnownModels();
// By name or by repo ("BAAI/bge-small-zh-v1.5"); nullptr when unknown.
const KnownModel* FindKnownModel(std::string_view name);

// Files of a model directory, in download order; the optional ones may be
// absent from a repository.
struct ModelFile {
  std::string_view path;
  bool required;
};
std::span<const ModelFile> ModelFiles();

}  // namespace engram::embed
