// The WordPiece tokenizer of BERT-family models, matching Hugging Face's
// BertTokenizer / tokenizers (BertNormalizer + BertPreTokenizer + WordPiece):
//
//   clean text (drop NUL, U+FFFD and control characters; whitespace -> ' ')
//   -> isolate CJK ideographs -> [NFD + drop combining marks] -> [lower-case]
//   -> split on whitespace and around every punctuation character
//   -> greedy longest-match sub-words ("##" continuations); a word with any
//      unmatched rest, or longer than 100 characters, becomes one [UNK].
// Literal special tokens ("[MASK]", "[SEP]"…) in the text stay special.
//
// Thread safety: const methods may be called from any number of threads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engram/status.h"

namespace engram::embed {

struct WordPieceOptions {
  bool lowercase = true;       // BertNormalizer lowercase
  bool strip_accents = true;   // NFD + drop Mn; Hugging Face's default follows `lowercase`
  bool split_cjk = true;       // handle_chinese_chars
  // sentence-transformers' do_lower_case: Python str.lower() on the whole
  // text before tokenising — full Unicode lower-casing, no accent stripping.
  bool pre_lowercase = false;
  size_t max_chars_per_word = 100;
  size_t max_length = 512;     // with special tokens; longer input is truncated (longest first for pairs)
  // Truncation of a single text keeps the head by default; head_tail keeps
  // the first quarter and the last three quarters of the room instead.
  bool head_tail = false;
};

struct Encoding {
  std::vector<int32_t> ids;
  std::vector<int32_t> type_ids;
  std::vector<int32_t> attention_mask;
};

class WordPieceTokenizer {
 public:
  // Reads vocab.txt (one token per line, split on '\n' only: the Chinese
  // vocab holds U+2028 as a token). InvalidArgument when [UNK], [CLS] or
  // [SEP] is missing.
  static Result<std::unique_ptr<WordPieceTokenizer>> FromVocabFile(const std::filesystem::path& vocab,
                                                                   const WordPieceOptions& options);
  static Result<std::unique_ptr<WordPieceTokenizer>> FromVocab(std::string_view vocab_text,
                                                               const WordPieceOptions& options);
  // The vocabulary of a Hugging Face tokenizer.json (model.type WordPiece).
  // Its truncation and padding fields are ignored: the caller's max_length rules.
  static Result<std::unique_ptr<WordPieceTokenizer>> FromTokenizerJson(const std::filesystem::path& file,
                                                                       const WordPieceOptions& options);
  static Result<std::unique_ptr<WordPieceTokenizer>> FromTokens(std::vector<std::string> tokens,
                                                                const WordPieceOptions& options);

  // Token ids of text, without special tokens and without truncation.
  std::vector<int32_t> Tokenize(std::string_view text) const;
  // [CLS] text [SEP], truncated to max_length.
  Encoding Encode(std::string_view text) const;
  // [CLS] a [SEP] b [SEP] with type ids 0…0 1…1, truncated longest first.
  Encoding EncodePair(std::string_view a, std::string_view b) const;

  int32_t unk_id() const { return unk_; }
  int32_t cls_id() const { return cls_; }
  int32_t sep_id() const { return sep_; }
  int32_t pad_id() const { return pad_; }
  size_t vocab_size() const { return vocab_.size(); }
  const WordPieceOptions& options() const { return options_; }

 private:
  WordPieceTokenizer() = default;
  void TokenizeSegment(std::string_view text, std::vector<int32_t>* out) const;
  void WordPiece(std::u32string_view word, std::vector<int32_t>* out) const;

  WordPieceOptions options_;
  std::unordered_map<std::string, int32_t> vocab_;
  std::vector<std::pair<std::string, int32_t>> specials_;  // literal special tokens in text
  int32_t unk_ = -1, cls_ = -1, sep_ = -1, pad_ = 0;
};

}  // namespace engram::embed
