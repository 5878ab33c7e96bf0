#include "ops/models.h"

#include <httplib.h>

#include <cstdlib>
#include <fstream>

#include "common/files.h"
#include "common/hash.h"
#include "embed/embedder.h"
#include "embed/known_models.h"
#include "embed/model_config.h"

namespace engram::ops {

namespace fs = std::filesystem;

namespace {

bool NameIsSafe(const std::string& name) {
  if (name.empty() || name.size() > 128 || name == "." || name == "..") return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) return false;
  }
  return true;
}

Result<std::string> FileSha256(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::IOError(file.string() + ": cannot read");
  common::Sha256 sha;
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    sha.Update(std::string_view(buf.data(), static_cast<size_t>(in.gcount())));
  }
  return sha.HexDigest();
}

std::string Unquote(std::string s) {
  if (s.rfind("W/", 0) == 0) s = s.substr(2);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

bool IsSha256(const std::string& s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Downloads endpoint/repo/resolve/main/file into dest, resuming dest.part.
// NotFound when the hub has no such file.
Status Download(const std::string& endpoint, const std::string& repo, const std::string& file, const fs::path& dest,
                const PullOptions& options) {
  size_t scheme = endpoint.find("://");
  size_t path_at = scheme == std::string::npos ? std::string::npos : endpoint.find('/', scheme + 3);
  const std::string origin = endpoint.substr(0, path_at);
  const std::string base = path_at == std::string::npos ? "" : endpoint.substr(path_at);
  const std::string url_path = base + "/" + repo + "/resolve/main/" + file;
  httplib::Client client(origin);
  client.set_follow_location(true);
  client.set_connection_timeout(std::chrono::seconds(30));
  client.set_read_timeout(std::chrono::seconds(60));
  httplib::Headers auth;
  if (const char* token = std::getenv("HF_TOKEN")) auth.emplace("Authorization", std::string("Bearer ") + token);

  // What the hub says the file is: size and, for LFS files, sha256.
  auto head = client.Head(url_path, auth);
  if (!head) return Status::Unavailable(origin + url_path + ": " + httplib::to_string(head.error()));
  if (head->status == 404) return Status::NotFound(repo + " has no " + file);
  if (head->status != 200) return Status::Unavailable(origin + url_path + ": HTTP " + std::to_string(head->status));
  uint64_t size = 0;
  std::string sha;
  for (const char* h : {"X-Linked-Size", "Content-Length"}) {
    if (size == 0 && head->has_header(h)) size = std::strtoull(head->get_header_value(h).c_str(), nullptr, 10);
  }
  for (const char* h : {"X-Linked-Etag", "ETag"}) {
    std::string v = Unquote(head->get_header_value(h));
    if (sha.empty() && IsSha256(v)) sha = v;
  }

  fs::path part = dest;
  part += ".part";
  std::error_code ec;
  uint64_t have = fs::exists(part, ec) ? fs::file_size(part, ec) : 0;
  if (size > 0 && have > size) {
    fs::remove(part, ec);
    have = 0;
  }
  if (size == 0 || have < size) {
    httplib::Headers headers = auth;
    if (have > 0) headers.emplace("Range", "bytes=" + std::to_string(have) + "-");
    std::ofstream out(part, std::ios::binary | std::ios::app);
    if (!out) return Status::IOError(part.string() + ": cannot write");
    uint64_t done = have;
    auto res = client.Get(
        url_path, headers,
        [&](const httplib::Response& r) {
          if (have > 0 && r.status == 200) {  // the server ignored the range: start over
            out.close();
            out.open(part, std::ios::binary | std::ios::trunc);
            done = 0;
          }
          return r.status == 200 || r.status == 206;
        },
        [&](const char* data, size_t n) {
          out.write(data, static_cast<std::streamsize>(n));
          done += n;
          if (options.progress) options.progress(file, done, size);
          return static_cast<bool>(out);
        });
    out.close();
    if (!res) {
      return Status::Unavailable(origin + url_path + ": " + httplib::to_string(res.error()) + " after " +
                                 std::to_string(done) + " bytes (run the pull again to resume)");
    }
    if (res->status != 200 && res->status != 206) {
      return Status::Unavailable(origin + url_path + ": HTTP " + std::to_string(res->status));
    }
  }
  uint64_t got = fs::file_size(part, ec);
  if (size > 0 && got != size) {
    return Status::Corruption(file + ": " + std::to_string(got) + " bytes, the hub says " + std::to_string(size) +
                              " (run the pull again to resume)");
  }
  if (!sha.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(std::string actual, FileSha256(part));
    if (actual != sha) {
      fs::remove(part, ec);
      return Status::Corruption(file + ": sha256 " + actual + " does not match the hub's " + sha +
                                " (the partial file was removed)");
    }
  }
  fs::rename(part, dest, ec);
  if (ec) return Status::IOError(dest.string() + ": " + ec.message());
  return Status::Ok();
}

}  // namespace

fs::path ModelsHome() {
  if (const char* m = std::getenv("ENGRAM_MODELS"); m != nullptr && *m != '\0') return m;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x != '\0') return fs::path(x) / "engram" / "models";
  const char* home = std::getenv("HOME");
  return fs::path(home != nullptr ? home : ".") / ".cache" / "engram" / "models";
}

std::vector<ModelEntry> ListModels() {
  std::vector<ModelEntry> out;
  const fs::path home = ModelsHome();
  std::error_code ec;
  for (const auto& k : embed::KnownModels()) {
    ModelEntry e{std::string(k.name), std::string(k.repo), std::string(k.description), k.dims, false,
                 home / std::string(k.name)};
    e.installed = fs::exists(e.dir / "model.safetensors", ec);
    out.push_back(std::move(e));
  }
  for (fs::directory_iterator it(home, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!it->is_directory() || embed::FindKnownModel(name) != nullptr) continue;
    if (!fs::exists(it->path() / "model.safetensors", ec)) continue;
    out.push_back({name, "", "installed from a folder", 0, true, it->path()});
  }
  return out;
}

Result<fs::path> ResolveModelDir(const std::string& name_or_dir) {
  std::error_code ec;
  if (fs::is_directory(name_or_dir, ec)) return fs::path(name_or_dir);
  const embed::KnownModel* known = embed::FindKnownModel(name_or_dir);
  if (known == nullptr && (name_or_dir.find('/') != std::string::npos || !NameIsSafe(name_or_dir))) {
    return Status::NotFound(name_or_dir + ": no such model directory");
  }
  const fs::path dir = ModelsHome() / (known != nullptr ? std::string(known->name) : name_or_dir);
  if (fs::exists(dir / "model.safetensors", ec)) return dir;
  if (known != nullptr) {
    return Status::NotFound("model " + name_or_dir + " is not installed: run `engram model pull " + name_or_dir +
                            "` (or `--from DIR` to install a downloaded copy)");
  }
  return Status::NotFound("unknown model '" + name_or_dir + "': see `engram model list`, or give a model directory");
}

Result<fs::path> PullModel(const std::string& name, const PullOptions& options) {
  if (!NameIsSafe(name)) {
    return Status::InvalidArgument("model name '" + name + "' must be letters, digits, '-', '_' or '.'");
  }
  const embed::KnownModel* known = embed::FindKnownModel(name);
  const std::string local = known != nullptr ? std::string(known->name) : name;
  const fs::path dest = ModelsHome() / local;
  std::error_code ec;
  fs::create_directories(dest / "1_Pooling", ec);
  if (ec) return Status::IOError(dest.string() + ": " + ec.message());
  if (!options.from.empty()) {
    for (const auto& f : embed::ModelFiles()) {
      const fs::path src = options.from / std::string(f.path);
      if (!fs::exists(src, ec)) {
        if (f.required) return Status::NotFound(src.string() + ": missing");
        continue;
      }
      fs::copy_file(src, dest / std::string(f.path), fs::copy_options::overwrite_existing, ec);
      if (ec) return Status::IOError(src.string() + ": " + ec.message());
    }
  } else {
    if (known == nullptr) {
      return Status::NotFound("unknown model '" + name + "': `engram model list` shows the names engram can pull; "
                              "install others with --from DIR");
    }
    std::string endpoint = options.endpoint;
    if (endpoint.empty()) {
      const char* e = std::getenv("HF_ENDPOINT");
      endpoint = e != nullptr && *e != '\0' ? e : "https://huggingface.co";
    }
    while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
    for (const auto& f : embed::ModelFiles()) {
      const fs::path target = dest / std::string(f.path);
      if (fs::exists(target, ec)) continue;  // already complete
      Status st = Download(endpoint, std::string(known->repo), std::string(f.path), target, options);
      if (st.code() == StatusCode::kNotFound && !f.required) continue;
      ENGRAM_RETURN_IF_ERROR(st);
    }
  }
  // Declared installed only once it loads.
  auto probe = embed::LoadModelSpec(dest);
  if (!probe.ok()) return probe.status().WithContext("installed files do not make a usable model");
  return dest;
}

Status UseModel(const fs::path& config_file, const std::string& name) {
  ENGRAM_ASSIGN_OR_RETURN(fs::path dir, ResolveModelDir(name));
  (void)dir;
  std::string text;
  auto existing = common::ReadFile(config_file, 1 << 20);
  if (existing.ok()) text = *existing;
  std::string quoted;
  for (char c : name) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  const std::string ours = "# Written by `engram model use`.\nprovider = \"bert\"\nmodel = \"" + quoted + "\"\n";
  // In the [embedding] section, provider and model are replaced and every
  // other setting (threads, precision, inline_limit…) is kept.
  std::string out;
  bool in_section = false, written = false;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? text.size() : end + 1;
    std::string trimmed = line.substr(0, line.find('#'));
    trimmed.erase(0, trimmed.find_first_not_of(" \t"));
    if (!trimmed.empty() && trimmed[0] == '[') {
      in_section = trimmed.rfind("[embedding]", 0) == 0;
      out += line + "\n";
      if (in_section && !written) out += ours, written = true;
      continue;
    }
    if (line.rfind("# Written by `engram model use`.", 0) == 0) continue;
    if (in_section) {
      const std::string key = trimmed.substr(0, trimmed.find_first_of(" \t="));
      if (key == "provider" || key == "model") continue;
    }
    out += line + "\n";
  }
  if (!written) {
    while (out.size() >= 2 && out.substr(out.size() - 2) == "\n\n") out.pop_back();
    out += "\n[embedding]\n" + ours;
  }
  return common::WriteFileAtomic(config_file, out);
}

}  // namespace engram::ops
