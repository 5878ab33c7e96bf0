// Fuzz target: the WordPiece tokenizer on arbitrary bytes (invalid UTF-8,
// control characters, huge words, literal special tokens). Invariants: no
// crash; every id is in the vocabulary; encodings respect max_length.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "embed/wordpiece.h"

namespace {
const engram::embed::WordPieceTokenizer& Tokenizer() {
  static const auto t = [] {
    engram::embed::WordPieceOptions o;
    o.max_length = 32;
    return std::move(engram::embed::WordPieceTokenizer::FromVocab(
                         "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\n##s\nun\n##aff\n##able\n,\n.\n中\n文\n##4\n€\n"
                         "a\n##b\n\xe2\x80\xa8\n##\xe2\x80\xa8\n",
                         o))
        .value();
  }();
  return *t;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto& t = Tokenizer();
  for (int32_t id : t.Tokenize(text)) {
    if (id < 0 || static_cast<size_t>(id) >= t.vocab_size()) std::abort();
  }
  size_t half = size / 2;
  auto e = t.EncodePair(text.substr(0, half), text.substr(half));
  if (e.ids.size() > 32 || e.ids.size() != e.type_ids.size()) std::abort();
  if (t.Encode(text).ids.size() > 32) std::abort();
  return 0;
}
