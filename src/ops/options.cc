// The Validate() of each config section (include/engram/options.h): what
// the per-key ranges of the settings table (config.cc) cannot check. Errors
// name the key as config.toml spells it.
#include "engram/options.h"

#include <algorithm>
#include <string>

#include "embed/embedder.h"
#include "net/base_url.h"
#include "sync/scope.h"
#include "sync/sensitive.h"

namespace engram {

Status PagesOptions::Validate() const {
  if (title != "file_name" && title != "heading") {
    return Status::InvalidArgument("pages.title must be \"file_name\" or \"heading\", not \"" + title + "\"");
  }
  return Status::Ok();
}

Status ChunkerOptions::Validate() const {
  if (overlap_words * 2 > target_words) {
    return Status::InvalidArgument("chunker.overlap_words (" + std::to_string(overlap_words) +
                                   ") must be at most half of chunker.target_words (" + std::to_string(target_words) +
                                   ")");
  }
  return Status::Ok();
}

Status SearchSettings::Validate() const {
  if (!mode.empty() && mode != "keyword" && mode != "vector" && mode != "hybrid") {
    return Status::InvalidArgument("search.mode must be \"keyword\", \"vector\" or \"hybrid\", not \"" + mode + "\"");
  }
  return Status::Ok();
}

Status ScopeOptions::Validate() const { return sync::Scope::Make(include, exclude, skip_files).status(); }

Status QuarantineOptions::Validate() const {
  const auto& ids = sync::ContentRuleIds();
  for (const std::string& id : disable) {
    const bool known =
        std::find(ids.begin(), ids.end(), id) != ids.end() || id.rfind("path:", 0) == 0 || id.rfind("name:", 0) == 0;
    if (!known) {
      return Status::InvalidArgument("quarantine.disable: unknown rule '" + id +
                                     "' (content rules, or path:<folder> / name:<keyword>)");
    }
  }
  return Status::Ok();
}

Status GraphOptions::Validate() const {
  for (const auto& [key, names] : {std::pair{"graph.entity_types", &entity_types},
                                   std::pair{"graph.single_valued", &single_valued}}) {
    for (const std::string& n : *names) {
      const bool plain = !n.empty() && n.size() <= 64 && std::none_of(n.begin(), n.end(), [](char c) {
        return static_cast<unsigned char>(c) <= ' ' || c == '"' || c == '[' || c == ']';
      });
      if (!plain) {
        return Status::InvalidArgument(std::string(key) + ": \"" + n.substr(0, 80) +
                                       "\" is not a name (1 to 64 bytes, no spaces, quotes or brackets)");
      }
    }
  }
  return Status::Ok();
}

Status EmbeddingOptions::Validate() const {
  if (provider != "none" && provider != "bert" && provider != "openai" && provider != "hash") {
    return Status::InvalidArgument("embedding.provider must be \"none\", \"bert\", \"openai\" or \"hash\", not \"" +
                                   provider + "\"");
  }
  if ((provider == "bert" || provider == "openai") && model.empty()) {
    return Status::InvalidArgument("embedding.provider = \"" + provider + "\" needs embedding.model");
  }
  if (!embed::ParsePrecision(precision).ok()) {
    return Status::InvalidArgument("embedding.precision must be \"fp32\" or \"bf16\", not \"" + precision + "\"");
  }
  return Status::Ok();
}

Status LlmOptions::Validate() const {
  // Checked when the file is read, not at the first call that needs the model.
  return net::ParseBaseUrl(base_url, "llm.base_url").status();
}

Status GitOptions::Validate() const {
  if (message.empty() || message.find_first_of("\r\n") != std::string::npos) {
    return Status::InvalidArgument("git.message must be one non-empty line (the commit's first line)");
  }
  return Status::Ok();
}

namespace {

// A DNS host name (labels of letters, digits and inner hyphens, 1-63 bytes
// each, 253 in all) or a dotted IPv4 address: what a Host header may name.
bool IsHostName(std::string_view h) {
  if (h.empty() || h.size() > 253) return false;
  size_t start = 0;
  while (true) {
    const size_t dot = h.find('.', start);
    const std::string_view label = h.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') return false;
    for (char c : label) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
      if (!ok) return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

Status ServerOptions::Validate() const {
  for (const std::string& h : allowed_hosts) {
    if (!IsHostName(h)) {
      return Status::InvalidArgument("server.allowed_hosts: '" + h.substr(0, 100) +
                                     "' must be a host name or IPv4 address, without scheme, port or wildcard");
    }
  }
  for (const std::string& origin : allowed_origins) {
    const size_t sep = origin.find("://");
    const std::string scheme = sep == std::string::npos ? "" : origin.substr(0, sep);
    if ((scheme != "http" && scheme != "https") || origin.size() == sep + 3 ||
        origin.find_first_of("/?#* ", sep + 3) != std::string::npos) {
      return Status::InvalidArgument("server.allowed_origins: '" + origin +
                                     "' must be scheme://host[:port] (http or https, no path, no wildcard)");
    }
  }
  return Status::Ok();
}

Status StoreOptions::Validate() const {
  if (engine != "sqlite" && engine != "postgres") {
    return Status::InvalidArgument("store.engine must be \"sqlite\" or \"postgres\", not \"" + engine + "\"");
  }
  return Status::Ok();
}

Status BrainOptions::Validate() const {
  ENGRAM_RETURN_IF_ERROR(store.Validate());
  ENGRAM_RETURN_IF_ERROR(embedding.Validate());
  ENGRAM_RETURN_IF_ERROR(pages.Validate());
  ENGRAM_RETURN_IF_ERROR(search.Validate());
  if (search.expansion > 0 && llm.model.empty()) {
    return Status::InvalidArgument("search.expansion needs llm.model (an OpenAI-compatible chat model)");
  }
  ENGRAM_RETURN_IF_ERROR(git.Validate());
  ENGRAM_RETURN_IF_ERROR(llm.Validate());
  ENGRAM_RETURN_IF_ERROR(quarantine.Validate());
  ENGRAM_RETURN_IF_ERROR(scope.Validate());
  ENGRAM_RETURN_IF_ERROR(server.Validate());
  ENGRAM_RETURN_IF_ERROR(graph.Validate());
  return chunker.Validate();
}

}  // namespace engram
