#include "vector/fvecs.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace engram::vector {

namespace {

template <typename T>
Result<VecFile<T>> ReadVecs(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (f == nullptr) return Status::NotFound(name + ": " + std::strerror(errno));
  VecFile<T> out;
  for (;;) {
    int32_t d = 0;
    const size_t got = std::fread(&d, 1, sizeof d, f);
    if (got == 0) break;
    const std::string where = name + ": record " + std::to_string(out.rows);
    if (got != sizeof d) {
      std::fclose(f);
      return Status::InvalidArgument(where + ": file ends inside the dimension");
    }
    if (d <= 0 || d > 1 << 20 || (out.rows > 0 && static_cast<size_t>(d) != out.dims)) {
      std::fclose(f);
      return Status::InvalidArgument(where + ": dimension " + std::to_string(d) +
                                     (out.rows > 0 ? ", the first record has " + std::to_string(out.dims) : ""));
    }
    out.dims = static_cast<size_t>(d);
    const size_t at = out.data.size();
    out.data.resize(at + out.dims);
    if (std::fread(out.data.data() + at, sizeof(T), out.dims, f) != out.dims) {
      std::fclose(f);
      return Status::InvalidArgument(where + ": file ends inside the record");
    }
    ++out.rows;
  }
  std::fclose(f);
  return out;
}

}  // namespace

Result<VecFile<float>> ReadFvecs(const std::filesystem::path& file) { return ReadVecs<float>(file); }
Result<VecFile<int32_t>> ReadIvecs(const std::filesystem::path& file) { return ReadVecs<int32_t>(file); }

Status WriteFvecs(const std::filesystem::path& file, const VecFile<float>& v) {
  std::FILE* f = std::fopen(file.c_str(), "wb");
  if (f == nullptr) return Status::IOError(file.string() + ": " + std::strerror(errno));
  bool ok = true;
  const int32_t d = static_cast<int32_t>(v.dims);
  for (size_t r = 0; r < v.rows && ok; ++r) {
    ok = std::fwrite(&d, sizeof d, 1, f) == 1 && std::fwrite(v.data.data() + r * v.dims, sizeof(float), v.dims, f) == v.dims;
  }
  ok = std::fclose(f) == 0 && ok;
  return ok ? Status::Ok() : Status::IOError(file.string() + ": write failed");
}

}  // namespace engram::vector
