// The fvecs / ivecs files of the SIFT/GIST benchmarks: each record is an
// int32 dimension d followed by d float32 (fvecs) or int32 (ivecs) values.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "engram/status.h"

namespace engram::vector {

template <typename T>
struct VecFile {
  size_t rows = 0;
  size_t dims = 0;
  std::vector<T> data;  // rows × dims
};

// InvalidArgument names the file and the record when a dimension is not
// positive, differs from the first, or the file ends inside a record.
Result<VecFile<float>> ReadFvecs(const std::filesystem::path& file);
Result<VecFile<int32_t>> ReadIvecs(const std::filesystem::path& file);
Status WriteFvecs(const std::filesystem::path& file, const VecFile<float>& v);

}  // namespace engram::vector
