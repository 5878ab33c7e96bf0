#include "embed/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>

#include "common/json_limits.h"

namespace engram::embed {

using Json = nlohmann::json;

namespace {

constexpr uint64_t kMaxHeader = 100u << 20;  // the format's own limit

size_t DTypeSize(DType d) { return d == DType::kF32 ? 4 : 2; }

}  // namespace

int64_t TensorInfo::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while ((mant & 0x400) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3FF;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7F800000u | (mant << 13);  // inf / NaN
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

float Bf16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

SafeTensors::~SafeTensors() {
  if (mapping_ != nullptr) ::munmap(mapping_, size_);
}

Result<std::unique_ptr<SafeTensors>> SafeTensors::Open(const std::filesystem::path& file) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::NotFound(file.string() + ": " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || st.st_size < 8) {
    ::close(fd);
    return Status::InvalidArgument(file.string() + ": too short to be a safetensors file");
  }
  void* m = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) return Status::IOError(file.string() + ": mmap: " + std::strerror(errno));
  std::unique_ptr<SafeTensors> t(new SafeTensors());
  t->mapping_ = m;
  t->data_ = static_cast<const uint8_t*>(m);
  t->size_ = static_cast<size_t>(st.st_size);
  ENGRAM_RETURN_IF_ERROR(t->Parse(file.string()));
  return t;
}

Result<std::unique_ptr<SafeTensors>> SafeTensors::FromBytes(std::string_view bytes, const std::string& name) {
  std::unique_ptr<SafeTensors> t(new SafeTensors());
  t->owned_ = std::string(bytes);
  t->data_ = reinterpret_cast<const uint8_t*>(t->owned_.data());
  t->size_ = t->owned_.size();
  ENGRAM_RETURN_IF_ERROR(t->Parse(name));
  return t;
}

Status SafeTensors::Parse(const std::string& name) {
  name_ = name;
  auto bad = [&](const std::string& what) { return Status::InvalidArgument(name + ": " + what); };
  if (size_ < 8) return bad("too short to be a safetensors file");
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | data_[i];
  if (header_len > kMaxHeader || header_len > size_ - 8) {
    return bad("header length " + std::to_string(header_len) + " does not fit the file");
  }
  data_start_ = 8 + static_cast<size_t>(header_len);
  const uint64_t data_size = size_ - data_start_;
  const std::string_view header_text(reinterpret_cast<const char*>(data_ + 8), static_cast<size_t>(header_len));
  if (Status st = common::CheckJsonLimits(header_text, "header"); !st.ok()) return bad(st.message());
  Json header = Json::parse(header_text, nullptr, false);
  if (header.is_discarded() || !header.is_object()) return bad("header is not a JSON object");
  for (auto& item : header.items()) {
    const std::string tensor = item.key();  // a named copy: clang 14 cannot capture structured bindings
    auto& info = item.value();
    if (tensor == "__metadata__") continue;
    auto where = [&](const std::string& field) { return "tensor '" + tensor + "': " + field; };
    if (!info.is_object()) return bad(where("entry is not an object"));
    if (!info.contains("dtype") || !info["dtype"].is_string()) return bad(where("missing dtype"));
    std::string dt = info["dtype"];
    TensorInfo t;
    if (dt == "F32") t.dtype = DType::kF32;
    else if (dt == "F16") t.dtype = DType::kF16;
    else if (dt == "BF16") t.dtype = DType::kBF16;
    else return bad(where("unsupported dtype " + dt + " (F32, F16 and BF16 are)"));
    if (!info.contains("shape") || !info["shape"].is_array()) return bad(where("missing shape"));
    uint64_t elements = 1;
    for (const auto& d : info["shape"]) {
      if (!d.is_number_unsigned()) return bad(where("shape holds a non-natural number"));
      uint64_t dim = d.get<uint64_t>();
      if (dim != 0 && elements > std::numeric_limits<uint64_t>::max() / 8 / dim) return bad(where("shape overflows"));
      elements *= dim;
      t.shape.push_back(static_cast<int64_t>(dim));
    }
    if (!info.contains("data_offsets") || !info["data_offsets"].is_array() || info["data_offsets"].size() != 2 ||
        !info["data_offsets"][0].is_number_unsigned() || !info["data_offsets"][1].is_number_unsigned()) {
      return bad(where("data_offsets must be [begin, end]"));
    }
    t.begin = info["data_offsets"][0].get<uint64_t>();
    t.end = info["data_offsets"][1].get<uint64_t>();
    if (t.begin > t.end || t.end > data_size) return bad(where("data_offsets fall outside the data"));
    if (t.end - t.begin != elements * DTypeSize(t.dtype)) {
      return bad(where("holds " + std::to_string(t.end - t.begin) + " bytes, shape and dtype need " +
                       std::to_string(elements * DTypeSize(t.dtype))));
    }
    tensors_.emplace(tensor, std::move(t));
  }
  return Status::Ok();
}

Result<const TensorInfo*> SafeTensors::Find(const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) return Status::NotFound(name_ + ": no tensor '" + name + "'");
  return &it->second;
}

Result<std::vector<float>> SafeTensors::ReadFloats(const std::string& name) const {
  ENGRAM_ASSIGN_OR_RETURN(const TensorInfo* t, Find(name));
  const uint8_t* p = data_ + data_start_ + t->begin;
  size_t n = static_cast<size_t>(t->end - t->begin) / DTypeSize(t->dtype);
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) {
    if (t->dtype == DType::kF32) {
      std::memcpy(&out[i], p + 4 * i, 4);  // safetensors is little-endian, as is x86-64
    } else {
      uint16_t h = static_cast<uint16_t>(p[2 * i] | (p[2 * i + 1] << 8));
      out[i] = t->dtype == DType::kF16 ? HalfToFloat(h) : Bf16ToFloat(h);
    }
  }
  return out;
}

void SafeTensors::Release(const std::string& name) const {
  auto it = tensors_.find(name);
  if (mapping_ == nullptr || it == tensors_.end()) return;
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  uintptr_t begin = reinterpret_cast<uintptr_t>(data_ + data_start_ + it->second.begin);
  uintptr_t end = reinterpret_cast<uintptr_t>(data_ + data_start_ + it->second.end);
  begin = (begin + page - 1) / page * page;  // only pages wholly inside the tensor
  end = end / page * page;
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

Result<const float*> SafeTensors::F32View(const std::string& name) const {
  ENGRAM_ASSIGN_OR_RETURN(const TensorInfo* t, Find(name));
  const uint8_t* p = data_ + data_start_ + t->begin;
  if (t->dtype != DType::kF32 || reinterpret_cast<uintptr_t>(p) % alignof(float) != 0) {
    return static_cast<const float*>(nullptr);
  }
  return reinterpret_cast<const float*>(p);
}

}  // namespace engram::embed
