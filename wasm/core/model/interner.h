// Interns keys and values (integers, strings, null) to dense 32-bit ids, so checkers work on
// flat arrays indexed by id and compare scalars only.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/flat_map.h"

namespace isoscope {

class Interner {
 public:
  enum class Kind : uint8_t { Int, Str, Null };

  uint32_t intern_int(int64_t v) {
    uint32_t id = ints_.find(static_cast<uint64_t>(v));
    if (id != FlatMap64::kAbsent) return id;
    id = static_cast<uint32_t>(kinds_.size());
    ints_.insert(static_cast<uint64_t>(v), id);
    kinds_.push_back(Kind::Int);
    payload_.push_back(v);
    return id;
  }
  uint32_t intern_str(std::string_view s) {
    auto it = strs_.find(s);
    if (it != strs_.end()) return it->second;
    uint32_t id = static_cast<uint32_t>(kinds_.size());
    strings_.emplace_back(s);
    strs_.emplace(strings_.back(), id);
    kinds_.push_back(Kind::Str);
    payload_.push_back(static_cast<int64_t>(strings_.size() - 1));
    return id;
  }
  uint32_t intern_null() {
    if (null_id_ == FlatMap64::kAbsent) {
      null_id_ = static_cast<uint32_t>(kinds_.size());
      kinds_.push_back(Kind::Null);
      payload_.push_back(0);
    }
    return null_id_;
  }

  size_t size() const { return kinds_.size(); }
  Kind kind(uint32_t id) const { return kinds_[id]; }
  int64_t as_int(uint32_t id) const { return payload_[id]; }
  const std::string& as_str(uint32_t id) const { return strings_[static_cast<size_t>(payload_[id])]; }
  // Human-readable form: 5, "abc" (quoted only when it would read as a number), null.
  std::string display(uint32_t id) const;
  // JSON literal form.
  std::string json(uint32_t id) const;
  size_t memory_bytes() const;

 private:
  struct SvHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct SvEq {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  };
  FlatMap64 ints_;
  std::unordered_map<std::string_view, uint32_t, SvHash, SvEq> strs_;  // views into strings_
  std::deque<std::string> strings_;  // deque: element addresses stay valid as it grows
  std::vector<Kind> kinds_;
  std::vector<int64_t> payload_;  // Int: the value; Str: index into strings_
  uint32_t null_id_ = FlatMap64::kAbsent;
};

}  // namespace isoscope
