#include "embed/wordpiece.h"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/locid.h>
#include <unicode/unistr.h>

#include <nlohmann/json.hpp>

#include "common/files.h"
#include "common/json_limits.h"
#include "common/utf8.h"

namespace engram::embed {

namespace {

using common::AppendUtf8;
using common::DecodeUtf8;

bool IsWhitespace(char32_t c) {
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r') return true;
  return u_charType(static_cast<UChar32>(c)) == U_SPACE_SEPARATOR;
}

bool IsControl(char32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  int8_t t = u_charType(static_cast<UChar32>(c));
  return t == U_CONTROL_CHAR || t == U_FORMAT_CHAR;
}

// ASCII symbols count as punctuation in BERT even where Unicode says otherwise.
bool IsPunctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
  int8_t t = u_charType(static_cast<UChar32>(c));
  return t == U_CONNECTOR_PUNCTUATION || t == U_DASH_PUNCTUATION || t == U_START_PUNCTUATION ||
         t == U_END_PUNCTUATION || t == U_INITIAL_PUNCTUATION || t == U_FINAL_PUNCTUATION ||
         t == U_OTHER_PUNCTUATION;
}

bool IsChineseChar(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

std::string ToUtf8(std::u32string_view s) {
  std::string out;
  for (char32_t c : s) AppendUtf8(c, &out);
  return out;
}

std::u32string Nfd(const std::u32string& s) {
  UErrorCode err = U_ZERO_ERROR;
  const icu::Normalizer2* nfd = icu::Normalizer2::getNFDInstance(err);
  if (U_FAILURE(err)) return s;
  icu::UnicodeString in = icu::UnicodeString::fromUTF32(reinterpret_cast<const UChar32*>(s.data()),
                                                        static_cast<int32_t>(s.size()));
  icu::UnicodeString out = nfd->normalize(in, err);
  if (U_FAILURE(err)) return s;
  std::u32string result(static_cast<size_t>(out.countChar32()), U'\0');
  UErrorCode e2 = U_ZERO_ERROR;
  out.toUTF32(reinterpret_cast<UChar32*>(result.data()), static_cast<int32_t>(result.size()), e2);
  return result;
}

// Python's str.lower(): full Unicode case mapping, language-neutral; invalid
// UTF-8 is left to the tokenizer's clean-up.
std::string PythonLower(std::string_view text) {
  icu::UnicodeString s = icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  s.toLower(icu::Locale::getRoot());
  std::string out;
  s.toUTF8String(out);
  return out;
}

}  // namespace

Result<std::unique_ptr<WordPieceTokenizer>> WordPieceTokenizer::FromVocabFile(const std::filesystem::path& vocab,
                                                                             const WordPieceOptions& options) {
  ENGRAM_ASSIGN_OR_RETURN(std::string text, common::ReadFile(vocab, 64u << 20));
  auto t = FromVocab(text, options);
  if (!t.ok()) return t.status().WithContext(vocab.string());
  return t;
}

Result<std::unique_ptr<WordPieceTokenizer>> WordPieceTokenizer::FromVocab(std::string_view text,
                                                                         const WordPieceOptions& options) {
  std::vector<std::string> tokens;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view token = text.substr(start, end - start);
    if (!token.empty() && token.back() == '\r') token.remove_suffix(1);
    tokens.emplace_back(token);
    start = end + 1;
  }
  return FromTokens(std::move(tokens), options);
}

Result<std::unique_ptr<WordPieceTokenizer>> WordPieceTokenizer::FromTokenizerJson(const std::filesystem::path& file,
                                                                                 const WordPieceOptions& options) {
  ENGRAM_ASSIGN_OR_RETURN(std::string text, common::ReadFile(file, 256u << 20));
  auto bad = [&](const std::string& what) { return Status::InvalidArgument(file.string() + ": " + what); };
  if (Status st = common::CheckJsonLimits(text, "the file"); !st.ok()) return bad(st.message());
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  if (!j.contains("model") || !j["model"].is_object()) return bad("missing field 'model'");
  const auto& model = j["model"];
  if (model.value("type", std::string()) != "WordPiece") {
    return bad("model.type is '" + model.value("type", std::string()) + "'; only WordPiece is supported");
  }
  if (!model.contains("vocab") || !model["vocab"].is_object()) return bad("missing field 'model.vocab'");
  std::vector<std::string> tokens(model["vocab"].size());
  for (const auto& item : model["vocab"].items()) {
    if (!item.value().is_number_unsigned() || item.value().get<uint64_t>() >= tokens.size()) {
      return bad("model.vocab['" + item.key() + "'] is not an id below the vocabulary size");
    }
    size_t id = item.value().get<size_t>();
    if (!tokens[id].empty()) return bad("model.vocab gives id " + std::to_string(id) + " twice");
    tokens[id] = item.key();
  }
  auto t = FromTokens(std::move(tokens), options);
  if (!t.ok()) return t.status().WithContext(file.string());
  return t;
}

Result<std::unique_ptr<WordPieceTokenizer>> WordPieceTokenizer::FromTokens(std::vector<std::string> tokens,
                                                                          const WordPieceOptions& options) {
  std::unique_ptr<WordPieceTokenizer> t(new WordPieceTokenizer());
  t->options_ = options;
  int32_t id = 0;
  for (auto& token : tokens) t->vocab_.emplace(std::move(token), id++);
  auto find = [&](const char* token) {
    auto it = t->vocab_.find(token);
    return it == t->vocab_.end() ? -1 : it->second;
  };
  t->unk_ = find("[UNK]");
  t->cls_ = find("[CLS]");
  t->sep_ = find("[SEP]");
  t->pad_ = std::max(find("[PAD]"), 0);
  if (t->unk_ < 0 || t->cls_ < 0 || t->sep_ < 0) {
    return Status::InvalidArgument("vocabulary lacks [UNK], [CLS] or [SEP]");
  }
  for (const char* s : {"[CLS]", "[SEP]", "[PAD]", "[MASK]", "[UNK]"}) {
    if (find(s) >= 0) t->specials_.emplace_back(s, find(s));
  }
  return t;
}

void WordPieceTokenizer::WordPiece(std::u32string_view word, std::vector<int32_t>* out) const {
  if (word.size() > options_.max_chars_per_word) {
    out->push_back(unk_);
    return;
  }
  std::vector<int32_t> pieces;
  size_t start = 0;
  while (start < word.size()) {
    size_t end = word.size();
    int32_t found = -1;
    while (end > start) {
      std::string piece = (start > 0 ? "##" : "") + ToUtf8(word.substr(start, end - start));
      auto it = vocab_.find(piece);
      if (it != vocab_.end()) {
        found = it->second;
        break;
      }
      --end;
    }
    if (found < 0) {  // any unmatched rest makes the whole word unknown
      out->push_back(unk_);
      return;
    }
    pieces.push_back(found);
    start = end;
  }
  out->insert(out->end(), pieces.begin(), pieces.end());
}

void WordPieceTokenizer::TokenizeSegment(std::string_view text, std::vector<int32_t>* out) const {
  // Normalise: clean, isolate CJK, then accents and case.
  std::u32string chars;
  size_t i = 0;
  while (i < text.size()) {
    char32_t c = DecodeUtf8(text, &i);
    if (c == 0 || c == 0xFFFD || IsControl(c)) continue;
    if (IsWhitespace(c)) {
      chars.push_back(U' ');
    } else if (options_.split_cjk && IsChineseChar(c)) {
      chars.push_back(U' ');
      chars.push_back(c);
      chars.push_back(U' ');
    } else {
      chars.push_back(c);
    }
  }
  if (options_.strip_accents) {
    std::u32string decomposed = Nfd(chars);
    chars.clear();
    for (char32_t c : decomposed) {
      if (u_charType(static_cast<UChar32>(c)) != U_NON_SPACING_MARK) chars.push_back(c);
    }
  }
  if (options_.lowercase) {
    for (char32_t& c : chars) c = static_cast<char32_t>(u_tolower(static_cast<UChar32>(c)));
  }
  // Pre-tokenise: whitespace separates, punctuation stands alone.
  std::u32string word;
  auto flush = [&] {
    if (!word.empty()) WordPiece(word, out);
    word.clear();
  };
  for (char32_t c : chars) {
    if (IsWhitespace(c)) {
      flush();
    } else if (IsPunctuation(c)) {
      flush();
      WordPiece(std::u32string_view(&c, 1), out);
    } else {
      word.push_back(c);
    }
  }
  flush();
}

std::vector<int32_t> WordPieceTokenizer::Tokenize(std::string_view input) const {
  std::vector<int32_t> out;
  std::string lowered;
  std::string_view text = input;
  if (options_.pre_lowercase) {
    lowered = PythonLower(input);
    text = lowered;
  }
  // Literal special tokens are kept whole; the text between them is tokenised.
  size_t start = 0;
  while (start <= text.size()) {
    size_t best = std::string_view::npos;
    const std::pair<std::string, int32_t>* which = nullptr;
    for (const auto& sp : specials_) {
      size_t at = text.find(sp.first, start);
      if (at < best) {
        best = at;
        which = &sp;
      }
    }
    if (which == nullptr) {
      TokenizeSegment(text.substr(start), &out);
      break;
    }
    TokenizeSegment(text.substr(start, best - start), &out);
    out.push_back(which->second);
    start = best + which->first.size();
  }
  return out;
}

Encoding WordPieceTokenizer::Encode(std::string_view text) const {
  std::vector<int32_t> ids = Tokenize(text);
  size_t room = options_.max_length >= 2 ? options_.max_length - 2 : 0;
  if (ids.size() > room) {
    if (options_.head_tail) {
      size_t head = room / 4;
      ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(head),
                ids.end() - static_cast<std::ptrdiff_t>(room - head));
    } else {
      ids.resize(room);
    }
  }
  Encoding e;
  e.ids.push_back(cls_);
  e.ids.insert(e.ids.end(), ids.begin(), ids.end());
  e.ids.push_back(sep_);
  e.type_ids.assign(e.ids.size(), 0);
  e.attention_mask.assign(e.ids.size(), 1);
  return e;
}

Encoding WordPieceTokenizer::EncodePair(std::string_view a, std::string_view b) const {
  std::vector<int32_t> x = Tokenize(a), y = Tokenize(b);
  size_t room = options_.max_length >= 3 ? options_.max_length - 3 : 0;
  while (x.size() + y.size() > room) {  // longest first
    if (x.size() >= y.size()) x.pop_back();
    else y.pop_back();
  }
  Encoding e;
  e.ids.push_back(cls_);
  e.ids.insert(e.ids.end(), x.begin(), x.end());
  e.ids.push_back(sep_);
  e.type_ids.assign(e.ids.size(), 0);
  e.ids.insert(e.ids.end(), y.begin(), y.end());
  e.ids.push_back(sep_);
  e.type_ids.resize(e.ids.size(), 1);
  e.attention_mask.assign(e.ids.size(), 1);
  return e;
}

}  // namespace engram::embed
