#include "test_support.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

namespace engram::testing {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "engram-test-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void WriteFile(const std::filesystem::path& path, const std::string& content) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << content;
}

}  // namespace engram::testing
