// HnswIndex::Save and Load: the index file.
//
//   "ENGRAMHN" | u32 version | u32 dims | u32 m | u32 ef_construction |
//   u64 seed | u64 generation | u64 slots | u32 entry | i32 max_level |
//   slots × i64 label | slots × u8 deleted | slots × u8 level |
//   slots × dims × f32 vector | slots × (1 + 2m) × u32 level-0 links |
//   for each slot of level L > 0: L × (1 + m) × u32 links |
//   u64 checksum of every byte before it
//
// Little-endian, as written by x86-64. The int8 codes are recomputed on load.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <unistd.h>

#include "vector/hnsw_index.h"

namespace engram::vector {

namespace {

constexpr char kMagic[8] = {'E', 'N', 'G', 'R', 'A', 'M', 'H', 'N'};
constexpr uint32_t kVersion = 1;

struct Checksum {
  uint64_t h = 0x6a09e667f3bcc909ull;
  void Add(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) {
      h ^= p[i];
      h *= 0x100000001b3ull;
    }
  }
};

class Writer {
 public:
  explicit Writer(std::FILE* f) : f_(f) {}
  void Put(const void* data, size_t n) {
    if (n == 0 || !ok_) return;
    sum_.Add(data, n);
    ok_ = std::fwrite(data, 1, n, f_) == n;
  }
  template <typename T>
  void Value(T v) { Put(&v, sizeof v); }
  bool Finish() {
    const uint64_t h = sum_.h;
    ok_ = ok_ && std::fwrite(&h, 1, sizeof h, f_) == sizeof h;
    return ok_;
  }

 private:
  std::FILE* f_;
  Checksum sum_;
  bool ok_ = true;
};

class Reader {
 public:
  Reader(const std::string& bytes, const std::string& name) : bytes_(bytes), name_(name) {}
  Status Get(void* out, size_t n, const char* what) {
    if (n == 0) return Status::Ok();
    if (n > bytes_.size() - std::min(pos_, bytes_.size()) || bytes_.size() - pos_ < n) {
      return Status::InvalidArgument(name_ + ": truncated (reading " + what + ")");
    }
    std::memcpy(out, bytes_.data() + pos_, n);
    pos_ += n;
    return Status::Ok();
  }
  template <typename T>
  Status Value(T* v, const char* what) { return Get(v, sizeof *v, what); }
  size_t pos() const { return pos_; }
  size_t left() const { return bytes_.size() - pos_; }

 private:
  const std::string& bytes_;
  std::string name_;
  size_t pos_ = 0;
};

// The whole file, read into memory.
Result<std::string> ReadWholeFile(const std::filesystem::path& file) {
  std::string bytes;
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (f == nullptr) return Status::NotFound(file.string() + ": " + std::strerror(errno));
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
  std::fclose(f);
  return bytes;
}

// The fixed fields at the front of the file.
struct Header {
  uint32_t dims = 0, m = 0, efc = 0, entry = 0;
  uint64_t seed = 0, gen = 0, slots = 0;
  int32_t max_level = 0;
};

// Checks the magic, the version and then the checksum (a file of another
// version is named as such, not as damaged), and reads and validates the
// header from r, which is left at the first label. The slot count must fit
// in the bytes left, so nothing is allocated for a size the file cannot hold.
Status ReadHeader(const std::string& bytes, const std::string& name, Reader* r, Header* h) {
  if (bytes.size() < sizeof kMagic + sizeof(uint64_t) || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    return Status::InvalidArgument(name + ": not an engram vector index");
  }
  const uint64_t computed = HnswIndex::FileChecksum(bytes.data(), bytes.size() - sizeof(uint64_t));
  uint64_t stored;
  std::memcpy(&stored, bytes.data() + bytes.size() - sizeof stored, sizeof stored);
  char magic[8];
  ENGRAM_RETURN_IF_ERROR(r->Get(magic, sizeof magic, "magic"));
  uint32_t version = 0;
  ENGRAM_RETURN_IF_ERROR(r->Value(&version, "version"));
  if (version != kVersion) {
    return Status::InvalidArgument(name + ": index version " + std::to_string(version) + ", this engram reads " +
                                   std::to_string(kVersion));
  }
  if (stored != computed) return Status::InvalidArgument(name + ": checksum mismatch (damaged file)");
  ENGRAM_RETURN_IF_ERROR(r->Value(&h->dims, "dims"));
  ENGRAM_RETURN_IF_ERROR(r->Value(&h->m, "m"));
  ENGRAM_RETURN_IF_ERROR(r->Value(&h->efc, "ef_construction"));
  ENGRAM_RETURN_IF_ERROR(r->Value(&h->seed, "seed"));
  ENGRAM_RETURN_IF_ERROR(r->Value(&h->gen, "generation"));
  ENGRAM_RETURN_IF_ERROR(r->Value(&h->slots, "slots"));
  ENGRAM_RETURN_IF_ERROR(r->Value(&h->entry, "entry"));
  ENGRAM_RETURN_IF_ERROR(r->Value(&h->max_level, "max_level"));
  const uint32_t dims = h->dims, m = h->m;
  const uint64_t slots = h->slots;
  if (dims == 0 || dims > 65536 || m < 2 || m > 1024 || h->efc == 0 || h->max_level > 30 || h->max_level < -1 ||
      slots > (uint64_t{1} << 32) - 1 || (slots > 0 && h->entry >= slots) || (slots == 0) != (h->max_level < 0)) {
    return Status::InvalidArgument(name + ": inconsistent header");
  }
  const size_t per_slot = sizeof(int64_t) + 2 + dims * sizeof(float) + (1 + 2 * m) * sizeof(uint32_t);
  if (slots > r->left() / per_slot) return Status::InvalidArgument(name + ": truncated (slots)");
  return Status::Ok();
}

}  // namespace

uint64_t HnswIndex::FileChecksum(const void* data, size_t n) {
  Checksum sum;
  sum.Add(data, n);
  return sum.h;
}

Status HnswIndex::Save(const std::filesystem::path& file, uint64_t generation) const {
  const std::filesystem::path tmp = file.string() + ".tmp" + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return Status::IOError(tmp.string() + ": " + std::strerror(errno));
  Writer w(f);
  w.Put(kMagic, sizeof kMagic);
  w.Value<uint32_t>(kVersion);
  w.Value<uint32_t>(static_cast<uint32_t>(dims_));
  w.Value<uint32_t>(static_cast<uint32_t>(params_.m));
  w.Value<uint32_t>(static_cast<uint32_t>(params_.ef_construction));
  w.Value<uint64_t>(params_.seed);
  w.Value<uint64_t>(generation);
  w.Value<uint64_t>(slots_);
  w.Value<uint32_t>(entry_);
  w.Value<int32_t>(max_level_);
  w.Put(labels_.data(), slots_ * sizeof(int64_t));
  w.Put(deleted_.data(), slots_);
  w.Put(levels_.data(), slots_);
  w.Put(vectors_.data(), slots_ * static_cast<size_t>(dims_) * sizeof(float));
  for (uint32_t s = 0; s < slots_; ++s) w.Put(Links0(s), (1 + max0_) * sizeof(uint32_t));
  for (uint32_t s = 0; s < slots_; ++s) {
    if (levels_[s] > 0) w.Put(upper_[s].data(), upper_[s].size() * sizeof(uint32_t));
  }
  bool ok = w.Finish();
  ok = (std::fflush(f) == 0) && ok;
  ok = (::fsync(::fileno(f)) == 0) && ok;
  ok = (std::fclose(f) == 0) && ok;
  std::error_code ec;
  if (ok) std::filesystem::rename(tmp, file, ec);
  if (!ok || ec) {
    std::filesystem::remove(tmp, ec);
    return Status::IOError(file.string() + ": could not write the index");
  }
  return Status::Ok();
}

Result<std::unique_ptr<HnswIndex>> HnswIndex::Load(const std::filesystem::path& file, uint64_t* generation) {
  const std::string name = file.string();
  ENGRAM_ASSIGN_OR_RETURN(std::string bytes, ReadWholeFile(file));
  Reader r(bytes, name);
  Header h;
  ENGRAM_RETURN_IF_ERROR(ReadHeader(bytes, name, &r, &h));
  const uint32_t dims = h.dims, entry = h.entry;
  const uint64_t slots = h.slots;
  const int32_t max_level = h.max_level;
  HnswParams p;
  p.m = static_cast<int>(h.m);
  p.ef_construction = static_cast<int>(h.efc);
  p.seed = h.seed;
  auto index = std::make_unique<HnswIndex>(static_cast<int>(dims), p);
  HnswIndex& x = *index;
  x.Grow(slots);
  x.slots_ = slots;
  x.entry_ = entry;
  x.max_level_ = max_level;
  x.labels_.resize(slots);
  x.deleted_.resize(slots);
  x.levels_.resize(slots);
  x.upper_.resize(slots);
  ENGRAM_RETURN_IF_ERROR(r.Get(x.labels_.data(), slots * sizeof(int64_t), "labels"));
  ENGRAM_RETURN_IF_ERROR(r.Get(x.deleted_.data(), slots, "tombstones"));
  ENGRAM_RETURN_IF_ERROR(r.Get(x.levels_.data(), slots, "levels"));
  ENGRAM_RETURN_IF_ERROR(r.Get(x.vectors_.data(), slots * dims * sizeof(float), "vectors"));
  if (slots > 0) std::memset(x.level0_.get(), 0, slots * x.block_bytes_);
  for (uint32_t s = 0; s < slots; ++s) {
    uint32_t* links = x.Links0(s);
    ENGRAM_RETURN_IF_ERROR(r.Get(links, (1 + x.max0_) * sizeof(uint32_t), "links"));
    if (links[0] > x.max0_) return Status::InvalidArgument(name + ": bad link count at slot " + std::to_string(s));
    for (uint32_t i = 0; i < links[0]; ++i) {
      if (links[1 + i] >= slots) return Status::InvalidArgument(name + ": link outside the graph at slot " + std::to_string(s));
    }
    CodeInfo info = EncodeVector(x.Vec(s), dims, const_cast<int8_t*>(x.Code(s)));
    std::memcpy(const_cast<int8_t*>(x.Code(s)) + x.code_bytes_, &info, sizeof info);
  }
  for (uint32_t s = 0; s < slots; ++s) {
    const int level = x.levels_[s];
    if (level > max_level) return Status::InvalidArgument(name + ": level above the top at slot " + std::to_string(s));
    if (level == 0) continue;
    x.upper_[s].resize(static_cast<size_t>(level) * (1 + x.max_upper_));
    ENGRAM_RETURN_IF_ERROR(r.Get(x.upper_[s].data(), x.upper_[s].size() * sizeof(uint32_t), "upper links"));
    for (int l = 1; l <= level; ++l) {
      const uint32_t* links = x.LinksUpper(s, l);
      if (links[0] > x.max_upper_) return Status::InvalidArgument(name + ": bad link count at slot " + std::to_string(s));
      for (uint32_t i = 0; i < links[0]; ++i) {
        if (links[1 + i] >= slots || x.levels_[links[1 + i]] < l) {
          return Status::InvalidArgument(name + ": upper link outside its level at slot " + std::to_string(s));
        }
      }
    }
  }
  if (slots > 0 && x.levels_[entry] != max_level) return Status::InvalidArgument(name + ": entry point not on the top level");
  if (r.left() != sizeof(uint64_t)) return Status::InvalidArgument(name + ": trailing bytes");
  for (uint32_t s = 0; s < slots; ++s) {
    if (x.deleted_[s] > 1) return Status::InvalidArgument(name + ": bad tombstone at slot " + std::to_string(s));
    if (x.deleted_[s] != 0) {
      ++x.deleted_count_;
    } else if (!x.by_label_.emplace(x.labels_[s], s).second) {
      return Status::InvalidArgument(name + ": label " + std::to_string(x.labels_[s]) + " appears twice");
    }
  }
  if (generation != nullptr) *generation = h.gen;
  return index;
}

}  // namespace engram::vector
