#include "text/analyzer.h"

#include <libstemmer.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <memory>

#include "common/flat_string_map.h"
#include "common/utf8.h"

namespace engram::text {

using common::AppendUtf8;
using common::DecodeUtf8;

namespace {

// The classic English stop list of Lucene's StandardAnalyzer (33 words), plus
// the fragments "s" and "t" left when an apostrophe splits "it's" / "don't";
// grouped by length so a check compares only words of the same length.
constexpr std::string_view kStop1[] = {"a", "s", "t"};
constexpr std::string_view kStop2[] = {"an", "as", "at", "be", "by", "if", "in", "is",
                                       "it", "no", "of", "on", "or", "to"};
constexpr std::string_view kStop3[] = {"and", "are", "but", "for", "not", "the", "was"};
constexpr std::string_view kStop4[] = {"into", "such", "that", "then", "they", "this", "will", "with"};
constexpr std::string_view kStop5[] = {"their", "there", "these"};

// Traditional -> Simplified for single Han characters: OpenCC's t2s table,
// generated at build time (gen_t2s.cc) as sorted {from, to} pairs.
struct T2sPair {
  char32_t from;
  char32_t to;
};
constexpr T2sPair kT2sPairs[] = {
#include "t2s_table.inc"
};

char32_t MapT2s(char32_t cp) {
  if (cp < kT2sPairs[0].from) return cp;
  const T2sPair* end = std::end(kT2sPairs);
  const T2sPair* it = std::lower_bound(std::begin(kT2sPairs), end, cp,
                                       [](const T2sPair& p, char32_t c) { return p.from < c; });
  return it != end && it->from == cp ? it->to : cp;
}

// NFKC + case folding without ICU for the text engram sees most: ASCII, Han
// ideographs, CJK and general punctuation, full-width ASCII. Returns false
// (and ICU does the work) as soon as any other code point appears, so the
// result always equals ICU's NFKC_Casefold up to punctuation, which is a
// separator either way. Saves loading ICU's normalisation data (~5 ms) in
// short-lived processes.
bool FoldFast(std::string_view text, std::string* out) {
  out->clear();
  out->reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      out->push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : static_cast<char>(c));
      ++i;
      continue;
    }
    size_t start = i;
    char32_t cp = DecodeUtf8(text, &i);
    if ((cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF)) {
      out->append(text, start, i - start);
    } else if ((cp >= 0x2010 && cp <= 0x2027) || (cp >= 0x2030 && cp <= 0x205E) ||
               (cp >= 0x3000 && cp <= 0x3003) || (cp >= 0x3008 && cp <= 0x3011) ||
               (cp >= 0x3014 && cp <= 0x301F)) {
      out->push_back(' ');  // punctuation: a separator
    } else if (cp >= 0xFF01 && cp <= 0xFF5E) {
      char a = static_cast<char>(cp - 0xFEE0);  // full-width ASCII
      out->push_back(a >= 'A' && a <= 'Z' ? static_cast<char>(a - 'A' + 'a') : a);
    } else {
      return false;
    }
  }
  return true;
}

std::string Fold(std::string_view text) {
  std::string out;
  if (FoldFast(text, &out)) return out;
  return common::NfkcCasefold(text);
}

// One Snowball stemmer per thread (sb_stemmer is not thread-safe), with a
// bounded cache: stemming the same word twice is common and costs ~0.3 us.
class Stemmer {
 public:
  Stemmer() : stemmer_(sb_stemmer_new("english", "UTF_8"), &sb_stemmer_delete) {}
  const std::string& Stem(const std::string& word) {
    if (const std::string* hit = cache_.Find(word)) return *hit;
    std::string stem = word;
    if (stemmer_) {
      const sb_symbol* s = sb_stemmer_stem(stemmer_.get(), reinterpret_cast<const sb_symbol*>(word.data()),
                                           static_cast<int>(word.size()));
      if (s != nullptr) stem.assign(reinterpret_cast<const char*>(s), sb_stemmer_length(stemmer_.get()));
    }
    if (cache_.size() > 200000) cache_.Clear();
    cache_.Put(word, std::move(stem));
    return *cache_.Find(word);
  }

 private:
  std::unique_ptr<sb_stemmer, void (*)(sb_stemmer*)> stemmer_;
  common::FlatStringMap<std::string> cache_{1 << 14};
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
        if (common::IsHan(cp)) cp = MapT2s(cp);
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
  auto in = [&](const auto& list) {
    for (std::string_view s : list) {
      if (s[0] == word[0] && s == word) return true;
    }
    return false;
  };
  switch (word.size()) {
    case 1: return in(kStop1);
    case 2: return in(kStop2);
    case 3: return in(kStop3);
    case 4: return in(kStop4);
    case 5: return in(kStop5);
    default: return false;
  }
}

void Analyze(std::string_view text, std::vector<Token>* out) {
  out->reserve(out->size() + text.size() / 4 + 8);
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
    if (common::IsHan(cp)) cp = MapT2s(cp);
    AppendUtf8(cp, &out);
  }
  return out;
}

}  // namespace engram::text
