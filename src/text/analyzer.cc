#include "text/analyzer.h"

#include <libstemmer.h>
#include <opencc/opencc.h>

#include <array>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "common/utf8.h"

namespace engram::text {

using common::AppendUtf8;
using common::DecodeUtf8;

namespace {

// The classic English stop list of Lucene's StandardAnalyzer (33 words), plus
// the fragments "s" and "t" left when an apostrophe splits "it's" / "don't".
constexpr std::array<std::string_view, 35> kStopWords = {
    "a",    "an",   "and",  "are",  "as",   "at",    "be",   "but",   "by",
    "for",  "if",   "in",   "into", "is",   "it",    "no",   "not",   "of",
    "on",   "or",   "such", "that", "the",  "their", "then", "there", "these",
    "they", "this", "to",   "was",  "will", "with",  "s",    "t"};

// Traditional -> Simplified for single Han characters in [kT2sBase, kT2sEnd).
// Built once from OpenCC's t2s conversion, one character per line so that no
// phrase rule joins neighbours. Characters outside the range are unchanged.
constexpr char32_t kT2sBase = 0x3400;
constexpr char32_t kT2sEnd = 0xFB00;

class T2sTable {
 public:
  static const T2sTable& Get() {
    static const T2sTable table;
    return table;
  }
  char32_t Map(char32_t cp) const {
    if (cp < kT2sBase || cp >= kT2sEnd) return cp;
    char32_t m = map_[cp - kT2sBase];
    return m == 0 ? cp : m;
  }

 private:
  T2sTable() : map_(kT2sEnd - kT2sBase, 0) {
    opencc_t oc = opencc_open("t2s.json");
    if (oc == reinterpret_cast<opencc_t>(-1)) return;  // no OpenCC data: no folding
    std::string in;
    in.reserve((kT2sEnd - kT2sBase) * 4);
    for (char32_t cp = kT2sBase; cp < kT2sEnd; ++cp) {
      if (!common::IsHan(cp)) continue;
      AppendUtf8(cp, &in);
      in.push_back('\n');
    }
    char* out = opencc_convert_utf8(oc, in.data(), in.size());
    if (out != nullptr) {
      std::string_view a(in), b(out);
      size_t i = 0, j = 0;
      while (i < a.size() && j < b.size()) {
        size_t ae = a.find('\n', i), be = b.find('\n', j);
        if (ae == std::string_view::npos || be == std::string_view::npos) break;
        size_t x = i, y = j;
        char32_t from = DecodeUtf8(a, &x);
        char32_t to = DecodeUtf8(b, &y);
        // Only one-to-one character mappings are kept.
        if (x == ae && y == be && to != from) map_[from - kT2sBase] = to;
        i = ae + 1;
        j = be + 1;
      }
      opencc_convert_utf8_free(out);
    }
    opencc_close(oc);
  }
  std::vector<char32_t> map_;
};

bool IsAscii(std::string_view s) {
  for (unsigned char c : s) {
    if (c >= 0x80) return false;
  }
  return true;
}

// NFKC + case fold; ASCII text takes a fast path (NFKC is the identity there).
std::string Fold(std::string_view text) {
  if (IsAscii(text)) {
    std::string out(text);
    for (char& c : out) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
  }
  return common::NfkcCasefold(text);
}

// One Snowball stemmer per thread (sb_stemmer is not thread-safe), with a
// bounded cache: stemming the same word twice is common and costs ~0.3 us.
class Stemmer {
 public:
  Stemmer() : stemmer_(sb_stemmer_new("english", "UTF_8"), &sb_stemmer_delete) {}
  std::string Stem(const std::string& word) {
    auto it = cache_.find(word);
    if (it != cache_.end()) return it->second;
    std::string stem = word;
    if (stemmer_) {
      const sb_symbol* s = sb_stemmer_stem(stemmer_.get(), reinterpret_cast<const sb_symbol*>(word.data()),
                                           static_cast<int>(word.size()));
      if (s != nullptr) stem.assign(reinterpret_cast<const char*>(s), sb_stemmer_length(stemmer_.get()));
    }
    if (cache_.size() > 200000) cache_.clear();
    cache_.emplace(word, stem);
    return stem;
  }

 private:
  std::unique_ptr<sb_stemmer, void (*)(sb_stemmer*)> stemmer_;
  std::unordered_map<std::string, std::string> cache_;
};

Stemmer& ThreadStemmer() {
  thread_local Stemmer stemmer;
  return stemmer;
}

// Words longer than this are not words (hashes, base64): indexed unstemmed,
// cut to this many bytes.
constexpr size_t kMaxWordBytes = 64;

bool IsLatinLetters(std::string_view w) {
  for (unsigned char c : w) {
    if (c >= '0' && c <= '9') return false;
  }
  return true;
}

class Tokenizer {
 public:
  explicit Tokenizer(std::vector<Token>* out) : out_(out) {}

  void Run(std::string_view folded) {
    size_t i = 0;
    while (i < folded.size()) {
      size_t start = i;
      char32_t cp = DecodeUtf8(folded, &i);
      if (common::IsCjk(cp)) {
        FlushWord();
        if (common::IsHan(cp)) cp = T2sTable::Get().Map(cp);
        cjk_.push_back(cp);
      } else if (common::IsWordChar(cp)) {
        FlushCjk();
        word_.append(folded, start, i - start);
      } else {
        FlushWord();
        FlushCjk();
      }
    }
    FlushWord();
    FlushCjk();
  }

 private:
  void FlushWord() {
    if (word_.empty()) return;
    if (IsStopWord(word_)) {
      ++pos_;  // keep the gap so that phrases still line up
    } else {
      if (word_.size() > kMaxWordBytes) {
        size_t cut = kMaxWordBytes;
        while (cut > 0 && (static_cast<unsigned char>(word_[cut]) & 0xC0) == 0x80) --cut;
        word_.resize(cut);
        out_->push_back({word_, pos_++});
      } else if (IsLatinLetters(word_)) {
        out_->push_back({ThreadStemmer().Stem(word_), pos_++});
      } else {
        out_->push_back({word_, pos_++});
      }
    }
    word_.clear();
  }

  void FlushCjk() {
    if (cjk_.empty()) return;
    for (size_t k = 0; k < cjk_.size(); ++k) {
      std::string uni;
      AppendUtf8(cjk_[k], &uni);
      if (k + 1 < cjk_.size()) {
        std::string bi = uni;
        AppendUtf8(cjk_[k + 1], &bi);
        out_->push_back({std::move(bi), pos_});
      }
      out_->push_back({std::move(uni), pos_});
      ++pos_;
    }
    cjk_.clear();
  }

  std::vector<Token>* out_;
  std::string word_;
  std::vector<char32_t> cjk_;
  uint32_t pos_ = 0;
};

}  // namespace

bool IsStopWord(std::string_view word) {
  for (std::string_view s : kStopWords) {
    if (s == word) return true;
  }
  return false;
}

void Analyze(std::string_view text, std::vector<Token>* out) {
  std::string folded = Fold(text);
  Tokenizer(out).Run(folded);
}

std::vector<std::string> AnalyzeTerms(std::string_view text) {
  std::vector<Token> tokens;
  Analyze(text, &tokens);
  std::vector<std::string> terms;
  terms.reserve(tokens.size());
  for (auto& t : tokens) terms.push_back(std::move(t.term));
  return terms;
}

std::string FoldText(std::string_view text) {
  std::string folded = Fold(text);
  std::string out;
  out.reserve(folded.size());
  size_t i = 0;
  while (i < folded.size()) {
    char32_t cp = DecodeUtf8(folded, &i);
    if (common::IsHan(cp)) cp = T2sTable::Get().Map(cp);
    AppendUtf8(cp, &out);
  }
  return out;
}

}  // namespace engram::text
