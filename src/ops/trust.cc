#include "ops/trust.h"

#include <cctype>
#include <cstdio>

#include "common/utf8.h"
#include "text/slug.h"

namespace engram::ops {

namespace fs = std::filesystem;

namespace {

bool Inside(const fs::path& path, const fs::path& root) {
  auto p = path.begin(), r = root.begin();
  for (; r != root.end(); ++r, ++p) {
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

}  // namespace

Status CheckRemoteSlug(std::string_view slug) {
  ENGRAM_RETURN_IF_ERROR(text::ValidateSlugInput(slug));
  std::string quoted = "'";
  quoted.append(slug).append("'");
  bool component_start = true;
  size_t i = 0;
  while (i < slug.size()) {
    const size_t at = i;
    const char32_t c = common::DecodeUtf8(slug, &i);
    if (component_start && c == U'.') {
      return Status::InvalidArgument("slug " + quoted + " names a hidden file or folder (a component starts with '.')");
    }
    component_start = c == U'/';
    if (c == U'-' || c == U'_' || c == U'.' || c == U'/') continue;
    if (c < 0x80 ? std::isalnum(static_cast<int>(c)) != 0 : common::IsWordChar(c)) continue;
    std::string message = "slug " + quoted + " contains ";
    if (c == U' ') {
      message.append("a space");
    } else if (c < 0x80) {
      message.append("'").append(slug.substr(at, i - at)).append("'");
    } else {
      char hex[16];
      std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(c));
      message.append(hex);
    }
    message.append("; slugs are letters, digits and - _ . /");
    return Status::InvalidArgument(std::move(message));
  }
  return Status::Ok();
}

Result<fs::path> ResolveInsideRoot(const fs::path& root, std::string_view relative) {
  std::error_code ec;
  const fs::path real_root = fs::canonical(root, ec);
  if (ec) return Status::IOError("brain root " + root.string() + ": " + ec.message());
  std::string quoted = "'";
  quoted.append(relative).append("'");
  const fs::path rel = fs::path(std::string(relative)).lexically_normal();
  if (rel.empty() || rel.is_absolute() || *rel.begin() == "..") {
    return Status::PermissionDenied(quoted.append(" is outside the brain"));
  }
  fs::path current = real_root;
  size_t n = 0;
  const size_t total = static_cast<size_t>(std::distance(rel.begin(), rel.end()));
  for (const fs::path& part : rel) {
    current /= part;
    ++n;
    const fs::file_status st = fs::symlink_status(current, ec);
    if (ec || !fs::exists(st)) break;  // the rest does not exist yet: nothing to follow
    if (!fs::is_symlink(st)) continue;
    if (n == total) {
      return Status::PermissionDenied(
          quoted.append(" is a symbolic link; remote callers cannot read or write through links"));
    }
    const fs::path target = fs::canonical(current, ec);
    if (ec || !Inside(target, real_root)) {
      return Status::PermissionDenied(quoted.append(": folder '")
                                          .append(current.lexically_relative(real_root).string())
                                          .append("' is a symbolic link leading outside the brain"));
    }
  }
  return real_root / rel;
}

}  // namespace engram::ops
