#include "ops/trust.h"

#include <cctype>
#include <cstdio>

#include "common/utf8.h"
#include "text/slug.h"

namespace engram::ops {

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

}  // namespace engram::ops
