// Fuzz target: the readers of a Hugging Face model directory — config.json,
// tokenizer_config.json, tokenizer.json, vocab.txt and the
// sentence-transformers files — on arbitrary contents. The input is a list of
// files, each introduced by a line "=== NAME" (see seeds/model_dir). They are
// written into a scratch directory that LoadModelSpec and LoadTokenizer read.
// Invariants: no crash; an accepted spec has positive sizes and heads that
// divide the hidden size; an accepted tokenizer encodes text within its
// limit to ids inside its vocabulary, starting with [CLS].
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "embed/model_config.h"

namespace {

namespace fs = std::filesystem;

const char* const kFiles[] = {"config.json",
                              "tokenizer_config.json",
                              "tokenizer.json",
                              "vocab.txt",
                              "sentence_bert_config.json",
                              "modules.json",
                              "config_sentence_transformers.json",
                              "1_Pooling/config.json"};

const fs::path& Scratch() {
  static const fs::path dir = fs::temp_directory_path() / ("engram-fuzz-model-" + std::to_string(::getpid()));
  static const bool made = [] {
    fs::create_directories(dir / "1_Pooling");
    std::atexit([] { std::error_code ec; fs::remove_all(dir, ec); });
    return true;
  }();
  (void)made;
  return dir;
}

void WriteFiles(std::string_view input) {
  const fs::path& dir = Scratch();
  for (const char* name : kFiles) {
    std::error_code ec;
    fs::remove(dir / name, ec);
  }
  std::ofstream out;
  size_t pos = 0;
  while (pos < input.size()) {
    size_t end = input.find('\n', pos);
    std::string_view line = input.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos + 1);
    pos = end == std::string_view::npos ? input.size() : end + 1;
    if (line.substr(0, 4) == "=== ") {
      std::string_view name = line.substr(4);
      while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.remove_suffix(1);
      if (out.is_open()) out.close();
      for (const char* known : kFiles) {
        if (name == known) out.open(dir / known, std::ios::binary | std::ios::trunc);
      }
      continue;
    }
    if (out.is_open()) out.write(line.data(), static_cast<std::streamsize>(line.size()));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  WriteFiles(std::string_view(reinterpret_cast<const char*>(data), size));
  auto spec = engram::embed::LoadModelSpec(Scratch());
  if (!spec.ok()) return 0;
  const auto& b = spec->bert;
  if (b.vocab_size <= 0 || b.hidden <= 0 || b.layers <= 0 || b.heads <= 0 || b.hidden % b.heads != 0 ||
      b.max_positions <= 0 || spec->tokenizer.max_length < 2) {
    std::abort();
  }
  auto tok = engram::embed::LoadTokenizer(*spec);
  if (!tok.ok()) return 0;
  for (std::string_view text : {std::string_view("Hello, wörld! 混合检索 unaffable"), std::string_view("")}) {
    auto e = (*tok)->Encode(std::string(spec->query_prompt) + std::string(text));
    if (e.ids.empty() || e.ids.size() > spec->tokenizer.max_length || e.ids.front() != (*tok)->cls_id()) std::abort();
    for (int32_t id : e.ids) {
      if (id < 0 || static_cast<size_t>(id) >= (*tok)->vocab_size()) std::abort();
    }
  }
  return 0;
}
