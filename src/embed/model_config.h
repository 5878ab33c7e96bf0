// What a Hugging Face model directory says about a BERT-family model:
// config.json (architecture), the tokenizer files (vocab.txt +
// tokenizer_config.json, or tokenizer.json), and the sentence-transformers
// files (modules.json, sentence_bert_config.json, 1_Pooling/config.json,
// config_sentence_transformers.json).
//
// sentence-transformers semantics win where they differ from the raw
// tokenizer files: `do_lower_case` in sentence_bert_config.json lower-cases
// the text before tokenising (bge-small-zh), and `max_seq_length` replaces
// the truncation and padding stored in tokenizer.json (all-MiniLM: 256, not
// 128). Every unsupported or inconsistent field is an error naming the file
// and the field.
#pragma once

#include <filesystem>
#include <string>

#include "embed/wordpiece.h"
#include "engram/status.h"

namespace engram::embed {

struct BertConfig {
  int vocab_size = 0;
  int hidden = 0;
  int layers = 0;
  int heads = 0;
  int intermediate = 0;
  int max_positions = 0;
  int type_vocab = 0;
  float layer_norm_eps = 1e-12f;
  int num_labels = 0;  // > 0 for a cross-encoder (BertForSequenceClassification)
};

enum class Pooling { kCls, kMean };
const char* PoolingName(Pooling p);

struct ModelSpec {
  std::filesystem::path dir;
  std::string id;               // the directory's name
  BertConfig bert;
  WordPieceOptions tokenizer;   // max_length = the sentence-transformers limit
  std::filesystem::path vocab;  // vocab.txt, or tokenizer.json when that is all there is
  Pooling pooling = Pooling::kCls;
  bool normalize = true;
  std::string query_prompt;     // prepended to queries only ("query: ", a bge instruction…)
  std::string document_prompt;  // prepended to documents ("passage: " for e5)
};

// Reads and checks everything under dir. NotFound names a missing file,
// InvalidArgument a malformed or unsupported field.
Result<ModelSpec> LoadModelSpec(const std::filesystem::path& dir);

// The spec's tokenizer: from vocab.txt, or from tokenizer.json when that is all there is.
Result<std::unique_ptr<WordPieceTokenizer>> LoadTokenizer(const ModelSpec& spec);

}  // namespace engram::embed
