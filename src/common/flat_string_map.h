// FlatStringMap: a string-keyed hash map with open addressing (linear
// probing, power-of-two capacity, load <= 1/2). For hot caches with many
// small keys (stems, term ids): one probe sequence in one array, no node
// allocations, no modulo. Not thread-safe; no erase (Clear() only).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engram::common {

template <typename V>
class FlatStringMap {
 public:
  explicit FlatStringMap(size_t initial_capacity = 1024) { Reset(initial_capacity); }

  // The value for key, or nullptr.
  const V* Find(std::string_view key) const {
    uint64_t h = Hash(key);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.hash == h && s.key == key) return &s.value;
    }
  }

  // Inserts or overwrites.
  void Put(std::string_view key, V value) {
    if ((size_ + 1) * 2 > slots_.size()) Grow();
    uint64_t h = Hash(key);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.used) {
        s.used = true;
        s.hash = h;
        s.key = std::string(key);
        s.value = std::move(value);
        ++size_;
        return;
      }
      if (s.hash == h && s.key == key) {
        s.value = std::move(value);
        return;
      }
    }
  }

  size_t size() const { return size_; }
  void Clear() { Reset(1024); }

  // Removes one key (rebuilds the probe chain after it). O(cluster).
  void Erase(std::string_view key) {
    uint64_t h = Hash(key);
    size_t i = h & mask_;
    for (;; i = (i + 1) & mask_) {
      if (!slots_[i].used) return;
      if (slots_[i].hash == h && slots_[i].key == key) break;
    }
    slots_[i] = Slot();
    --size_;
    for (size_t j = (i + 1) & mask_; slots_[j].used; j = (j + 1) & mask_) {
      Slot moved = std::move(slots_[j]);
      slots_[j] = Slot();
      --size_;
      Put(moved.key, std::move(moved.value));
    }
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    bool used = false;
    std::string key;
    V value{};
  };

  static uint64_t Hash(std::string_view key) { return std::hash<std::string_view>{}(key); }

  void Reset(size_t capacity) {
    size_t cap = 16;
    while (cap < capacity) cap <<= 1;
    slots_.assign(cap, Slot());
    mask_ = cap - 1;
    size_ = 0;
  }

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    Reset(old.size() * 2);
    for (Slot& s : old) {
      if (s.used) Put(s.key, std::move(s.value));
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace engram::common
