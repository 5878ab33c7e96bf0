#include "llm/expansion.h"

#include <cctype>

#include "common/utf8.h"

namespace engram::llm {

namespace {

std::string Trim(std::string s) {
  const char* ws = " \t\r";
  s.erase(0, s.find_first_not_of(ws) == std::string::npos ? s.size() : s.find_first_not_of(ws));
  s.erase(s.find_last_not_of(ws) + 1);
  return s;
}

// "1. x", "2) x", "- x", "* x", "• x" → "x".
std::string StripMarker(std::string s) {
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i > 0 && i < s.size() && (s[i] == '.' || s[i] == ')' || s[i] == ':')) return Trim(s.substr(i + 1));
  if (!s.empty() && (s[0] == '-' || s[0] == '*')) return Trim(s.substr(1));
  if (s.rfind("•", 0) == 0) return Trim(s.substr(std::string("•").size()));
  return s;
}

std::string StripQuotes(std::string s) {
  for (const char* q : {"\"", "'", "“", "”", "「", "」"}) {
    const std::string mark(q);
    if (s.size() >= mark.size() && s.compare(0, mark.size(), mark) == 0) s.erase(0, mark.size());
    if (s.size() >= mark.size() && s.compare(s.size() - mark.size(), mark.size(), mark) == 0) {
      s.erase(s.size() - mark.size());
    }
  }
  return Trim(s);
}

std::string CutUtf8(std::string s, size_t bytes) {
  if (s.size() <= bytes) return s;
  size_t cut = bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return Trim(s.substr(0, cut));
}

}  // namespace

std::vector<std::string> SanitizeVariants(std::string_view reply, std::string_view query, size_t max) {
  std::vector<std::string> out;
  std::vector<std::string> seen{common::ToLower(Trim(std::string(query)))};
  size_t start = 0;
  while (start <= reply.size() && out.size() < max) {
    size_t end = reply.find('\n', start);
    std::string line(reply.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    start = end == std::string_view::npos ? reply.size() + 1 : end + 1;
    if (!common::IsValidUtf8(line)) continue;
    std::string clean;
    for (char c : line) {
      if (static_cast<unsigned char>(c) >= 0x20 && c != 0x7f) clean += c;
    }
    clean = CutUtf8(StripQuotes(StripMarker(Trim(clean))), kMaxVariantBytes);
    if (clean.empty()) continue;
    const std::string key = common::ToLower(clean);
    bool repeat = false;
    for (const auto& s : seen) repeat = repeat || s == key;
    if (repeat) continue;
    seen.push_back(key);
    out.push_back(std::move(clean));
  }
  return out;
}

Result<std::vector<std::string>> ExpandQuery(ChatClient& client, std::string_view query, size_t max) {
  const std::string system =
      "You rewrite search queries for a personal knowledge base. Reply with up to " + std::to_string(max) +
      " alternative phrasings of the user's query, one per line, in the query's language, with no numbering "
      "and no other text. Keep names and technical terms.";
  ENGRAM_ASSIGN_OR_RETURN(std::string reply, client.Complete({{"system", system}, {"user", std::string(query)}}));
  return SanitizeVariants(reply, query, max);
}

}  // namespace engram::llm
