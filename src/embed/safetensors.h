// Reading model weights from a .safetensors file: an 8-byte little-endian
// header length, a JSON header {name: {dtype, shape, data_offsets}}, then the
// tensor bytes. The file is memory-mapped; tensors are converted to float on
// request (F32, F16 and BF16 are supported).
//
// Every header field is checked before any byte is trusted: offsets inside
// the data, sizes equal to shape x dtype, no overflow. Errors name the file,
// tensor and field. Thread safety: const methods may be called concurrently.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram::embed {

enum class DType { kF32, kF16, kBF16 };

struct TensorInfo {
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // byte range inside the data section
  uint64_t end = 0;
  int64_t elements() const;
};

class SafeTensors {
 public:
  ~SafeTensors();
  SafeTensors(const SafeTensors&) = delete;
  SafeTensors& operator=(const SafeTensors&) = delete;

  static Result<std::unique_ptr<SafeTensors>> Open(const std::filesystem::path& file);
  // For tests and fuzzing: the same checks on bytes in memory (copied).
  static Result<std::unique_ptr<SafeTensors>> FromBytes(std::string_view bytes, const std::string& name = "buffer");

  const std::map<std::string, TensorInfo>& tensors() const { return tensors_; }
  // NotFound when absent.
  Result<const TensorInfo*> Find(const std::string& name) const;
  // The tensor as floats, row-major.
  Result<std::vector<float>> ReadFloats(const std::string& name) const;
  // A view of an F32 tensor in place (memory-mapped, no copy), or nullptr
  // when the tensor is stored in another dtype or is not 4-byte aligned.
  Result<const float*> F32View(const std::string& name) const;
  // Tells the kernel the mapped pages of a tensor that has been copied are
  // no longer needed (they leave the resident set; reading them again
  // reloads them from the file).
  void Release(const std::string& name) const;

 private:
  SafeTensors() = default;
  Status Parse(const std::string& name);

  const uint8_t* data_ = nullptr;  // start of the file (mapped or owned)
  size_t size_ = 0;
  size_t data_start_ = 0;          // first byte after the header
  void* mapping_ = nullptr;        // munmap on destruction when set
  std::string owned_;              // FromBytes keeps its copy here
  std::string name_;
  std::map<std::string, TensorInfo> tensors_;
};

// IEEE half and bfloat16 to float.
float HalfToFloat(uint16_t h);
float Bf16ToFloat(uint16_t b);

}  // namespace engram::embed
