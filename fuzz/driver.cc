// A deterministic stand-in for libFuzzer, used when engram is not built with
// clang's -fsanitize=fuzzer (and by `make test`): runs every seed file, then a
// bounded number of mutations of them (bit flips, byte edits, truncations,
// insertions, splices) through LLVMFuzzerTestOneInput.
//
// Usage: fuzz_target [--iterations N] [--seed S] SEED_FILE_OR_DIR...
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// With ENGRAM_FUZZ_LAST=FILE each input is written there first, so the one
// that crashed can be replayed.
void Run(const std::string& input) {
  static const char* last = std::getenv("ENGRAM_FUZZ_LAST");
  if (last != nullptr) std::ofstream(last, std::ios::binary | std::ios::trunc) << input;
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

std::string Mutate(const std::vector<std::string>& seeds, std::mt19937_64& rng) {
  std::string s = seeds[rng() % seeds.size()];
  int edits = 1 + static_cast<int>(rng() % 8);
  for (int e = 0; e < edits; ++e) {
    size_t pos = s.empty() ? 0 : rng() % s.size();
    switch (rng() % 7) {
      case 0:
        if (!s.empty()) s[pos] = static_cast<char>(s[pos] ^ (1 << (rng() % 8)));
        break;
      case 1:
        if (!s.empty()) s[pos] = static_cast<char>(rng());
        break;
      case 2:
        s.resize(pos);
        break;
      case 3:
        s.insert(pos, 1, static_cast<char>(rng()));
        break;
      case 4: {  // splice a piece of another seed
        const std::string& o = seeds[rng() % seeds.size()];
        if (!o.empty()) {
          size_t a = rng() % o.size();
          s.insert(pos, o.substr(a, rng() % (o.size() - a + 1)));
        }
        break;
      }
      case 5: {  // structural tokens the parsers care about
        static const char* kTokens[] = {"---\n", "\n", "[[", "]]", "|", "<!-- timeline -->\n", "## Timeline\n",
                                        "```\n", "\"", "+", "-", "年", "月", "日", "\xF0\x9F", "\xC3", "\0"};
        s.insert(pos, kTokens[rng() % (sizeof kTokens / sizeof kTokens[0])]);
        break;
      }
      default:
        if (s.size() > 1) s.erase(pos, 1 + rng() % std::min<size_t>(16, s.size() - pos));
        break;
    }
  }
  if (s.size() > (1 << 16)) s.resize(1 << 16);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  long iterations = 2000;
  uint64_t seed = 1;
  std::vector<std::string> seeds = {"", "a", "---\ntitle: x\n---\nbody\n"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--iterations" && i + 1 < argc) {
      iterations = std::atol(argv[++i]);
    } else if (a == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else {
      std::filesystem::path p(a);
      std::vector<std::filesystem::path> files;
      if (std::filesystem::is_directory(p)) {
        for (const auto& e : std::filesystem::recursive_directory_iterator(p)) {
          if (e.is_regular_file()) files.push_back(e.path());
        }
      } else {
        files.push_back(p);
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) {
        std::ifstream in(f, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        seeds.push_back(ss.str());
      }
    }
  }
  for (const std::string& s : seeds) Run(s);
  std::mt19937_64 rng(seed);
  for (long i = 0; i < iterations; ++i) Run(Mutate(seeds, rng));
  std::printf("%zu seeds, %ld mutations: no crash\n", seeds.size(), iterations);
  return 0;
}
