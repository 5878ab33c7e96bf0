#include "embed/known_models.h"

#include <array>

namespace engram::embed {

namespace {

constexpr std::array kModels = {
    KnownModel{"bge-small-zh-v1.5", "BAAI/bge-small-zh-v1.5", 512,
               "为这个句子生成表示以用于检索相关文章：", "",
               "Chinese, 4 layers, CLS pooling, 512 dimensions (95 MB)"},
    KnownModel{"bge-small-en-v1.5", "BAAI/bge-small-en-v1.5", 384,
               "Represent this sentence for searching relevant passages: ", "",
               "English, 12 layers, CLS pooling, 384 dimensions (133 MB)"},
    KnownModel{"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2", 384, "", "",
               "English, 6 layers, mean pooling, 384 dimensions, 256 tokens (91 MB)"},
    KnownModel{"e5-small-v2", "intfloat/e5-small-v2", 384, "query: ", "passage: ",
               "English, 12 layers, mean pooling, 384 dimensions (133 MB)"},
    KnownModel{"ms-marco-MiniLM-L-6-v2", "cross-encoder/ms-marco-MiniLM-L-6-v2", 0, "", "",
               "English cross-encoder reranker, 6 layers (91 MB)"},
};

constexpr std::array kFiles = {
    ModelFile{"config.json", true},
    ModelFile{"vocab.txt", false},
    ModelFile{"tokenizer.json", false},
    ModelFile{"tokenizer_config.json", false},
    ModelFile{"special_tokens_map.json", false},
    ModelFile{"modules.json", false},
    ModelFile{"sentence_bert_config.json", false},
    ModelFile{"config_sentence_transformers.json", false},
    ModelFile{"1_Pooling/config.json", false},
    ModelFile{"model.safetensors", true},
};

}  // namespace

std::span<const KnownModel> KnownModels() { return kModels; }

const KnownModel* FindKnownModel(std::string_view name) {
  for (const KnownModel& m : kModels) {
    if (m.name == name || m.repo == name) return &m;
  }
  return nullptr;
}

std::span<const ModelFile> ModelFiles() { return kFiles; }

}  // namespace engram::embed
