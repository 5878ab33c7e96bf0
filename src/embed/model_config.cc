#include "embed/model_config.h"

#include <nlohmann/json.hpp>

#include "common/files.h"
#include "common/json_limits.h"
#include "embed/known_models.h"

namespace engram::embed {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

constexpr size_t kMaxConfigBytes = 4u << 20;

// Reads a JSON object; NotFound when the file is absent and !required
// gives an empty object instead.
Result<Json> ReadJson(const fs::path& file, bool required) {
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    if (required) return Status::NotFound(file.string() + ": missing (is this a Hugging Face model directory?)");
    return Json::object();
  }
  ENGRAM_ASSIGN_OR_RETURN(std::string text, common::ReadFile(file, kMaxConfigBytes));
  // Before parsing: a deeply nested value would exhaust the stack when an
  // error message renders it (IntField dumps the offending value).
  if (Status st = common::CheckJsonLimits(text, "the file"); !st.ok()) return st.WithContext(file.string());
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded()) return Status::InvalidArgument(file.string() + ": not valid JSON");
  if (!j.is_object() && !j.is_array()) return Status::InvalidArgument(file.string() + ": not a JSON object");
  return j;
}

// An integer field within [lo, hi]; InvalidArgument names file and field.
Result<int> IntField(const Json& j, const fs::path& file, const char* field, int lo, int hi, int fallback = -1) {
  if (!j.contains(field)) {
    if (fallback >= 0) return fallback;
    return Status::InvalidArgument(file.string() + ": missing field '" + field + "'");
  }
  const Json& v = j[field];
  if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi) {
    return Status::InvalidArgument(file.string() + ": field '" + field + "' must be an integer in [" +
                                   std::to_string(lo) + ", " + std::to_string(hi) + "], got " + v.dump());
  }
  return static_cast<int>(v.get<int64_t>());
}

Result<bool> BoolField(const Json& j, const fs::path& file, const char* field, bool fallback) {
  if (!j.is_object() || !j.contains(field) || j[field].is_null()) return fallback;
  if (!j[field].is_boolean()) {
    return Status::InvalidArgument(file.string() + ": field '" + field + "' must be true, false or null");
  }
  return j[field].get<bool>();
}

Status ReadArchitecture(const fs::path& dir, ModelSpec* spec) {
  const fs::path file = dir / "config.json";
  ENGRAM_ASSIGN_OR_RETURN(Json j, ReadJson(file, true));
  if (!j.is_object()) return Status::InvalidArgument(file.string() + ": not a JSON object");
  std::string type = j.value("model_type", std::string());
  if (type != "bert") {
    return Status::InvalidArgument(file.string() + ": model_type '" + type +
                                   "' is not supported (engram runs BERT-family models: model_type \"bert\")");
  }
  std::string act = j.contains("hidden_act") && j["hidden_act"].is_string() ? j["hidden_act"].get<std::string>() : "gelu";
  if (act != "gelu") {
    return Status::InvalidArgument(file.string() + ": hidden_act '" + act + "' is not supported (only exact \"gelu\")");
  }
  std::string pos = j.value("position_embedding_type", std::string("absolute"));
  if (pos != "absolute") {
    return Status::InvalidArgument(file.string() + ": position_embedding_type '" + pos + "' is not supported");
  }
  BertConfig& c = spec->bert;
  ENGRAM_ASSIGN_OR_RETURN(c.vocab_size, IntField(j, file, "vocab_size", 8, 10'000'000));
  ENGRAM_ASSIGN_OR_RETURN(c.hidden, IntField(j, file, "hidden_size", 1, 16384));
  ENGRAM_ASSIGN_OR_RETURN(c.layers, IntField(j, file, "num_hidden_layers", 1, 128));
  ENGRAM_ASSIGN_OR_RETURN(c.heads, IntField(j, file, "num_attention_heads", 1, 256));
  ENGRAM_ASSIGN_OR_RETURN(c.intermediate, IntField(j, file, "intermediate_size", 1, 65536));
  ENGRAM_ASSIGN_OR_RETURN(c.max_positions, IntField(j, file, "max_position_embeddings", 2, 65536));
  ENGRAM_ASSIGN_OR_RETURN(c.type_vocab, IntField(j, file, "type_vocab_size", 1, 1024, 2));
  if (c.hidden % c.heads != 0) {
    return Status::InvalidArgument(file.string() + ": hidden_size " + std::to_string(c.hidden) +
                                   " is not a multiple of num_attention_heads " + std::to_string(c.heads));
  }
  if (j.contains("layer_norm_eps")) {
    if (!j["layer_norm_eps"].is_number() || j["layer_norm_eps"].get<double>() <= 0) {
      return Status::InvalidArgument(file.string() + ": field 'layer_norm_eps' must be a positive number");
    }
    c.layer_norm_eps = j["layer_norm_eps"].get<float>();
  }
  std::string arch;
  if (j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty() &&
      j["architectures"][0].is_string()) {
    arch = j["architectures"][0].get<std::string>();
  }
  if (arch == "BertForSequenceClassification") {
    int labels = 1;
    if (j.contains("id2label") && j["id2label"].is_object()) labels = static_cast<int>(j["id2label"].size());
    ENGRAM_ASSIGN_OR_RETURN(labels, IntField(j, file, "num_labels", 1, 1, labels));
    if (labels != 1) {
      return Status::InvalidArgument(file.string() + ": a cross-encoder must have one label (relevance score), has " +
                                     std::to_string(labels));
    }
    c.num_labels = 1;
  } else if (!arch.empty() && arch != "BertModel" && arch != "BertForMaskedLM" && arch != "BertForPreTraining") {
    return Status::InvalidArgument(file.string() + ": architecture '" + arch + "' is not supported");
  }
  return Status::Ok();
}

Status ReadTokenizer(const fs::path& dir, ModelSpec* spec) {
  WordPieceOptions& t = spec->tokenizer;
  if (fs::exists(dir / "vocab.txt")) {
    spec->vocab = dir / "vocab.txt";
    const fs::path file = dir / "tokenizer_config.json";
    ENGRAM_ASSIGN_OR_RETURN(Json j, ReadJson(file, false));
    ENGRAM_ASSIGN_OR_RETURN(t.lowercase, BoolField(j, file, "do_lower_case", true));
    ENGRAM_ASSIGN_OR_RETURN(t.strip_accents, BoolField(j, file, "strip_accents", t.lowercase));
    ENGRAM_ASSIGN_OR_RETURN(t.split_cjk, BoolField(j, file, "tokenize_chinese_chars", true));
  } else if (fs::exists(dir / "tokenizer.json")) {
    spec->vocab = dir / "tokenizer.json";
    // Only the normalizer matters here; the vocabulary is read by the tokenizer.
    ENGRAM_ASSIGN_OR_RETURN(Json j, ReadJson(spec->vocab, true));
    const fs::path file = spec->vocab;
    Json norm = j.is_object() && j.contains("normalizer") ? j["normalizer"] : Json();
    if (!norm.is_object() || norm.value("type", std::string()) != "BertNormalizer") {
      return Status::InvalidArgument(file.string() + ": normalizer must be a BertNormalizer");
    }
    ENGRAM_ASSIGN_OR_RETURN(t.lowercase, BoolField(norm, file, "lowercase", true));
    ENGRAM_ASSIGN_OR_RETURN(t.strip_accents, BoolField(norm, file, "strip_accents", t.lowercase));
    ENGRAM_ASSIGN_OR_RETURN(t.split_cjk, BoolField(norm, file, "handle_chinese_chars", true));
  } else {
    return Status::NotFound((dir / "vocab.txt").string() + ": missing (and no tokenizer.json either)");
  }
  return Status::Ok();
}

Status ReadSentenceTransformers(const fs::path& dir, ModelSpec* spec) {
  const fs::path st_file = dir / "sentence_bert_config.json";
  ENGRAM_ASSIGN_OR_RETURN(Json st, ReadJson(st_file, false));
  ENGRAM_ASSIGN_OR_RETURN(spec->tokenizer.pre_lowercase, BoolField(st, st_file, "do_lower_case", false));
  ENGRAM_ASSIGN_OR_RETURN(int max_seq, IntField(st, st_file, "max_seq_length", 2, 65536,
                                                std::min(512, spec->bert.max_positions)));
  if (max_seq > spec->bert.max_positions) {
    return Status::InvalidArgument(st_file.string() + ": max_seq_length " + std::to_string(max_seq) +
                                   " exceeds max_position_embeddings " + std::to_string(spec->bert.max_positions));
  }
  spec->tokenizer.max_length = static_cast<size_t>(max_seq);

  // Pooling: CLS or mean; the default for a directory without the file is CLS.
  const fs::path pool_file = dir / "1_Pooling" / "config.json";
  ENGRAM_ASSIGN_OR_RETURN(Json pool, ReadJson(pool_file, false));
  ENGRAM_ASSIGN_OR_RETURN(bool cls, BoolField(pool, pool_file, "pooling_mode_cls_token", false));
  ENGRAM_ASSIGN_OR_RETURN(bool mean, BoolField(pool, pool_file, "pooling_mode_mean_tokens", false));
  ENGRAM_ASSIGN_OR_RETURN(bool max, BoolField(pool, pool_file, "pooling_mode_max_tokens", false));
  ENGRAM_ASSIGN_OR_RETURN(bool sqrt_len, BoolField(pool, pool_file, "pooling_mode_mean_sqrt_len_tokens", false));
  if (max || sqrt_len || (cls && mean)) {
    return Status::InvalidArgument(pool_file.string() + ": only CLS or mean pooling (one of them) is supported");
  }
  spec->pooling = mean ? Pooling::kMean : Pooling::kCls;

  // Normalisation: a Normalize module in modules.json; without modules.json, normalise.
  const fs::path modules_file = dir / "modules.json";
  ENGRAM_ASSIGN_OR_RETURN(Json modules, ReadJson(modules_file, false));
  if (modules.is_array()) {
    spec->normalize = false;
    for (const Json& m : modules) {
      std::string type = m.is_object() ? m.value("type", std::string()) : std::string();
      if (type == "sentence_transformers.models.Normalize") spec->normalize = true;
      else if (type == "sentence_transformers.models.Dense") {
        return Status::InvalidArgument(modules_file.string() + ": a Dense module is not supported");
      }
    }
  }

  // Prompts: the directory's own, else what the known model expects.
  const fs::path prompt_file = dir / "config_sentence_transformers.json";
  ENGRAM_ASSIGN_OR_RETURN(Json cst, ReadJson(prompt_file, false));
  const KnownModel* known = FindKnownModel(spec->id);
  if (known != nullptr) {
    spec->query_prompt = std::string(known->query_prompt);
    spec->document_prompt = std::string(known->document_prompt);
  }
  if (cst.is_object() && cst.contains("prompts")) {
    const Json& p = cst["prompts"];
    if (!p.is_object()) return Status::InvalidArgument(prompt_file.string() + ": field 'prompts' must be an object");
    for (const char* key : {"query", "passage", "document"}) {
      if (p.contains(key) && !p[key].is_string()) {
        return Status::InvalidArgument(prompt_file.string() + ": prompts." + key + " must be a string");
      }
    }
    spec->query_prompt = p.value("query", std::string());
    spec->document_prompt = p.value("passage", p.value("document", std::string()));
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<WordPieceTokenizer>> LoadTokenizer(const ModelSpec& spec) {
  if (spec.vocab.filename() == "tokenizer.json") return WordPieceTokenizer::FromTokenizerJson(spec.vocab, spec.tokenizer);
  return WordPieceTokenizer::FromVocabFile(spec.vocab, spec.tokenizer);
}

const char* PoolingName(Pooling p) { return p == Pooling::kCls ? "cls" : "mean"; }

Result<ModelSpec> LoadModelSpec(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Status::NotFound(dir.string() + ": not a model directory");
  ModelSpec spec;
  spec.dir = dir;
  spec.id = fs::absolute(dir).lexically_normal().filename().string();
  if (spec.id.empty()) spec.id = fs::absolute(dir).lexically_normal().parent_path().filename().string();
  ENGRAM_RETURN_IF_ERROR(ReadArchitecture(dir, &spec));
  ENGRAM_RETURN_IF_ERROR(ReadTokenizer(dir, &spec));
  ENGRAM_RETURN_IF_ERROR(ReadSentenceTransformers(dir, &spec));
  if (!fs::exists(dir / "model.safetensors")) {
    return Status::NotFound((dir / "model.safetensors").string() +
                            ": missing (engram reads safetensors weights; convert pytorch_model.bin first)");
  }
  return spec;
}

}  // namespace engram::embed
