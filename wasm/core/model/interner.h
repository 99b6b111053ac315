// Interns keys and values (integers, strings, null) to 32-bit ids, so checkers work on flat
// arrays and compare scalars only.
//
// Keys get dense ids (checkers index arrays by key). Values are only ever compared, so a value
// interner may be "direct": an integer in [0, 2^31) is its own id and costs no lookup (histories
// are mostly small integers; this halves parse time), and every other value gets
// kInterned | index. Value ids are therefore not dense.
//
// A string longer than kLongText bytes (util/printable.h) is a *long name*: each is stored once (here, and nowhere
// else in the model), numbered in the order it was first read (1, 2, ...), and display() shows
// it shortened ("kkkk…[key 1, 1048576 bytes]"), so an explanation that names it costs its first
// bytes only. The result JSON carries each long name whole once (report/result_json.h "names").
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/flat_map.h"
#include "util/printable.h"

namespace isoscope {

class Interner {
 public:
  enum class Kind : uint8_t { Int, Str, Null };
  static constexpr uint32_t kInterned = 0x80000000u;

  Interner() = default;  // not explicit: a History{} default-initialises its interners
  explicit Interner(bool direct_small_ints, const char* noun = "key") : direct_(direct_small_ints), noun_(noun) {}


  // Inlined fast paths (a direct value; a small integer seen before); the rest out of line.
  uint32_t intern_int(int64_t v) {
    if (direct_ && v >= 0 && v < static_cast<int64_t>(kInterned)) return static_cast<uint32_t>(v);
    // Small non-negative integers (the usual keys) are looked up in a flat array, not hashed.
    if (v >= 0 && static_cast<uint64_t>(v) < small_.size() && small_[static_cast<size_t>(v)] != FlatMap64::kAbsent)
      return small_[static_cast<size_t>(v)];
    return intern_int_slow(v);
  }
  [[gnu::noinline]] uint32_t intern_int_slow(int64_t v) {
    const bool small = v >= 0 && v < kSmallLimit;
    uint32_t id = small ? FlatMap64::kAbsent : ints_.find(static_cast<uint64_t>(v));
    if (id != FlatMap64::kAbsent) return id;
    id = next_id();
    if (small) {
      if (static_cast<size_t>(v) >= small_.size())
        small_.resize(std::max<size_t>(static_cast<size_t>(v) + 1, small_.size() * 2), FlatMap64::kAbsent);
      small_[static_cast<size_t>(v)] = id;
    } else {
      ints_.insert(static_cast<uint64_t>(v), id);
    }
    kinds_.push_back(Kind::Int);
    payload_.push_back(v);
    return id;
  }
  uint32_t intern_str(std::string_view s) {
    auto it = strs_.find(s);
    if (it != strs_.end()) return it->second;
    uint32_t id = next_id();
    strings_.push_back(std::make_shared<const std::string>(s));
    strs_.emplace(*strings_.back(), id);
    if (s.size() > kLongText) {
      long_ids_.push_back(id);
      long_number_.insert(id, static_cast<uint32_t>(long_ids_.size()));
    }
    kinds_.push_back(Kind::Str);
    payload_.push_back(static_cast<int64_t>(strings_.size() - 1));
    return id;
  }
  uint32_t intern_null() {
    if (null_id_ == FlatMap64::kAbsent) {
      null_id_ = next_id();
      kinds_.push_back(Kind::Null);
      payload_.push_back(0);
    }
    return null_id_;
  }

  // Keys: the number of ids (ids are 0..size()-1). Values: the number of table entries only.
  size_t size() const { return kinds_.size(); }
  Kind kind(uint32_t id) const { return is_direct(id) ? Kind::Int : kinds_[slot(id)]; }
  int64_t as_int(uint32_t id) const { return is_direct(id) ? id : payload_[slot(id)]; }
  const std::string& as_str(uint32_t id) const { return *strings_[static_cast<size_t>(payload_[slot(id)])]; }
  // Human-readable form: 5, abc, null; a string is quoted ("7", "nil", "null", "a b", "") unless
  // it is a plain word that reads as nothing else, so a string never looks like a number, null
  // or nil. A long name: its first bytes and its number, "kkkk…[key 1, 1048576 bytes]".
  std::string display(uint32_t id) const;
  // The long names in order: name n (1-based) is long_names()[n - 1], an id.
  const std::vector<uint32_t>& long_names() const { return long_ids_; }
  // The number of a long name (1, 2, ...), 0 for any other id.
  uint32_t long_number(uint32_t id) const {
    if (long_ids_.empty()) return 0;
    const uint32_t n = long_number_.find(id);
    return n == FlatMap64::kAbsent ? 0 : n;
  }
  const char* noun() const { return noun_; }
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
  bool is_direct(uint32_t id) const { return direct_ && !(id & kInterned); }
  size_t slot(uint32_t id) const { return direct_ ? id & ~kInterned : id; }
  uint32_t next_id() const { return static_cast<uint32_t>(kinds_.size()) | (direct_ ? kInterned : 0); }

  static constexpr int64_t kSmallLimit = 1 << 22;

  bool direct_ = false;
  const char* noun_ = "key";  // what display() calls a long name: "key 1", "value 2"
  std::vector<uint32_t> long_ids_;
  FlatMap64 long_number_;  // id -> its number among long names
  std::vector<uint32_t> small_;  // id of small integer v, or kAbsent
  FlatMap64 ints_;
  std::unordered_map<std::string_view, uint32_t, SvHash, SvEq> strs_;  // views into strings_
  // Each string once: a copy of the interner (a counterexample's history, each shrinking step)
  // shares the characters, so a long key is never copied.
  std::deque<std::shared_ptr<const std::string>> strings_;
  std::vector<Kind> kinds_;
  std::vector<int64_t> payload_;  // Int: the value; Str: index into strings_
  uint32_t null_id_ = FlatMap64::kAbsent;
};

}  // namespace isoscope
