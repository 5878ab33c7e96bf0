// The "hash" provider: signed feature hashing (the hashing trick) of
// lower-cased words, single CJK characters and CJK bigrams.
#include <cmath>
#include <cstdint>

#include "common/utf8.h"
#include "embed/embedder.h"
#include "embed/kernels.h"

namespace engram::embed {

namespace {

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

class HashEmbedder final : public Embedder {
 public:
  explicit HashEmbedder(int dims) {
    info_.provider = "hash";
    info_.model = "hash-" + std::to_string(dims);
    info_.dims = dims;
    info_.pooling = "";
    info_.normalized = true;
  }

  const EmbedderInfo& info() const override { return info_; }

  Result<std::vector<float>> Embed(const std::vector<std::string>& texts, EmbedKind) override {
    const int d = info_.dims;
    std::vector<float> out(texts.size() * static_cast<size_t>(d), 0.0f);
    for (size_t t = 0; t < texts.size(); ++t) {
      float* v = out.data() + t * d;
      auto add = [&](std::string_view feature) {
        uint64_t h = Fnv1a(feature);
        v[h % static_cast<uint64_t>(d)] += (h >> 63) != 0 ? -1.0f : 1.0f;
      };
      const std::string text = common::ToLower(texts[t]);
      std::string word, prev_cjk;
      size_t i = 0;
      while (i <= text.size()) {
        char32_t c = i < text.size() ? common::DecodeUtf8(text, &i) : (++i, U' ');
        if (common::IsCjk(c)) {
          if (!word.empty()) add(word);
          word.clear();
          std::string ch;
          common::AppendUtf8(c, &ch);
          add(ch);
          if (!prev_cjk.empty()) add(prev_cjk + ch);
          prev_cjk = ch;
        } else if (common::IsWordChar(c)) {
          common::AppendUtf8(c, &word);
          prev_cjk.clear();
        } else {
          if (!word.empty()) add(word);
          word.clear();
          prev_cjk.clear();
        }
      }
      kernels::L2Normalize(v, d);
    }
    return out;
  }

 private:
  EmbedderInfo info_;
};

}  // namespace

std::unique_ptr<Embedder> NewHashEmbedder(int dims) { return std::make_unique<HashEmbedder>(dims < 1 ? 1 : dims); }

}  // namespace engram::embed
