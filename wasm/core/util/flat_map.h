// Open-addressing hash map from 64-bit keys to 32-bit values.
// Used on the hot paths of parsing (interning integers, the (key, value) write index),
// where std::unordered_map's per-node allocation dominates.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace isoscope {

class FlatMap64 {
 public:
  static constexpr uint32_t kAbsent = 0xFFFFFFFFu;

  explicit FlatMap64(size_t expected = 16) { rehash(capacity_for(expected)); }

  // Returns the stored value, or kAbsent.
  uint32_t find(uint64_t key) const {
    size_t i = slot(key);
    while (true) {
      const Entry& e = table_[i];
      if (e.value == kAbsent) return kAbsent;
      if (e.key == key) return e.value;
      i = (i + 1) & mask_;
    }
  }

  // Inserts key -> value when key is absent; returns the value now stored for key.
  uint32_t insert(uint64_t key, uint32_t value) {
    if ((size_ + 1) * 4 > table_.size() * 3) rehash(table_.size() * 2);
    size_t i = slot(key);
    while (true) {
      Entry& e = table_[i];
      if (e.value == kAbsent) {
        e.key = key;
        e.value = value;
        ++size_;
        return value;
      }
      if (e.key == key) return e.value;
      i = (i + 1) & mask_;
    }
  }

  size_t size() const { return size_; }
  size_t memory_bytes() const { return table_.capacity() * sizeof(Entry); }
  void reserve(size_t n) {
    if (capacity_for(n) > table_.size()) rehash(capacity_for(n));
  }

 private:
  struct Entry {
    uint64_t key = 0;
    uint32_t value = kAbsent;
  };
  static size_t capacity_for(size_t n) {
    size_t c = 16;
    while (c * 3 < n * 4 + 4) c *= 2;
    return c;
  }
  size_t slot(uint64_t k) const {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return static_cast<size_t>(k) & mask_;
  }
  void rehash(size_t cap) {
    std::vector<Entry> old;
    old.swap(table_);
    table_.assign(cap, Entry{});
    mask_ = cap - 1;
    size_ = 0;
    for (const Entry& e : old)
      if (e.value != kAbsent) insert(e.key, e.value);
  }

  std::vector<Entry> table_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace isoscope
