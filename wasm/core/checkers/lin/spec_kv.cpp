// Porcupine's key-value store, one key per partition: the state is the key's string; absent
// reads as "" (or starts as the value check --initial gives). get returns it, put replaces it, append extends it.
//
// The search appends in many orders, so strings are not built per step: a state is a node
// (the state it extends, the piece appended) with the string's length and polynomial hash,
// computed from its parent's in O(1). States with equal strings are one state: a lookup by
// (hash, length) is confirmed by comparing the strings themselves, so a hash collision costs
// time, never a wrong answer. Each (state, piece) step is remembered.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "checkers/lin/model.h"
#include "util/flat_map.h"

namespace isoscope {
namespace {

constexpr uint64_t kBase = 0x100000001B3ull;

class KvSpec final : public ObjectSpec {
 public:
  explicit KvSpec(const History& h) : ObjectSpec(h) {
    // About a state per operation: sized once, not grown step by step.
    const size_t expected = std::min<size_t>(h.registers.ops.size(), 1 << 14);
    head_.reserve(expected);
    appended_.reserve(expected);
    start();
  }
  // The states met are a memo of strings, valid for any key: kept from key to key (no
  // allocation per key) until they grow large, then let go.
  void reset() override {
    constexpr size_t kLarge = 1 << 12;
    if (states_.size() <= kLarge && pieces_.size() <= kLarge && appended_.size() <= kLarge) return;
    std::vector<Piece>().swap(pieces_);
    std::vector<State>().swap(states_);
    std::vector<uint32_t>().swap(next_);
    head_ = FlatMap64();
    piece_by_value_ = FlatMap64();
    state_by_value_ = FlatMap64();
    appended_ = FlatMap64();
    start();
  }
  uint32_t initial() override { return empty_; }
  uint32_t step(uint32_t s, const RegOp& op) override {
    switch (op.fn) {
      case ObjFn::Read: return local(op.a) == s ? s : kNoState;
      case ObjFn::Write: return local(op.a);
      case ObjFn::Append: {
        const uint32_t p = piece_of(op.a);
        const uint64_t edge = (uint64_t{s} << 32) | p;
        const uint32_t known = appended_.find(edge);
        if (known != FlatMap64::kAbsent) return known;
        const uint32_t to = find_or_add(states_[s].hash * pieces_[p].pow + pieces_[p].hash,
                                        states_[s].len + static_cast<uint32_t>(pieces_[p].text.size()), s, p);
        appended_.insert(edge, to);
        return to;
      }
      default: return kNoState;
    }
  }
  std::string state_text(uint32_t s) const override { return "\"" + text(s) + "\""; }

 private:
  struct Piece {
    std::string text;
    uint64_t hash, pow;  // polynomial hash of text, kBase^length
  };
  struct State {
    uint32_t parent, piece, len;  // parent kNoState: the piece alone
    uint64_t hash;
  };

  void start() {
    empty_ = h_.registers.initial != RegOp::kUnobserved ? local(h_.registers.initial) : local_piece(add_piece(""));
  }
  std::string text(uint32_t s) const {
    std::vector<uint32_t> chain;
    for (uint32_t x = s; x != kNoState; x = states_[x].parent) chain.push_back(states_[x].piece);
    std::string out;
    for (size_t i = chain.size(); i-- > 0;) out += pieces_[chain[i]].text;
    return out;
  }
  uint32_t add_piece(std::string t) {
    uint64_t hsh = 0, pw = 1;
    for (unsigned char c : t) {
      hsh = hsh * kBase + c + 1;
      pw *= kBase;
    }
    pieces_.push_back({std::move(t), hsh, pw});
    return static_cast<uint32_t>(pieces_.size() - 1);
  }
  // The piece of a history value (a string; nil is "").
  uint32_t piece_of(uint32_t v) {
    if (const uint32_t known = piece_by_value_.find(v); known != FlatMap64::kAbsent) return known;
    std::string t;
    if (!(h_.initial && v == *h_.initial))
      t = h_.values.kind(v) == Interner::Kind::Str ? h_.values.as_str(v) : h_.values.display(v);
    const uint32_t p = add_piece(std::move(t));
    piece_by_value_.insert(v, p);
    return p;
  }
  uint32_t local_piece(uint32_t p) {
    return find_or_add(pieces_[p].hash, static_cast<uint32_t>(pieces_[p].text.size()), kNoState, p);
  }
  // The state of a history value (get's result, put's value).
  uint32_t local(uint32_t v) {
    if (const uint32_t known = state_by_value_.find(v); known != FlatMap64::kAbsent) return known;
    const uint32_t s = local_piece(piece_of(v));
    state_by_value_.insert(v, s);
    return s;
  }
  // Whether state x's string is parent's (none: kNoState) followed by piece p, their lengths
  // being equal: both read backwards, piece by piece, with no string built.
  bool same_text(uint32_t x, uint32_t parent, uint32_t p) const {
    if (states_[x].parent == parent && states_[x].piece == p) return true;
    struct Cursor {
      uint32_t next;          // the state whose piece comes before rest
      std::string_view rest;  // what is left of the current piece (its front)
    };
    Cursor a{states_[x].parent, pieces_[states_[x].piece].text}, b{parent, pieces_[p].text};
    auto refill = [&](Cursor& c) {
      while (c.rest.empty() && c.next != kNoState) {
        c.rest = pieces_[states_[c.next].piece].text;
        c.next = states_[c.next].parent;
      }
    };
    while (true) {
      refill(a);
      refill(b);
      if (a.rest.empty() || b.rest.empty()) return a.rest.empty() && b.rest.empty();
      const size_t n = std::min(a.rest.size(), b.rest.size());
      if (a.rest.substr(a.rest.size() - n) != b.rest.substr(b.rest.size() - n)) return false;
      a.rest.remove_suffix(n);
      b.rest.remove_suffix(n);
    }
  }
  uint32_t find_or_add(uint64_t hsh, uint32_t len, uint32_t parent, uint32_t piece) {
    const uint64_t key = hsh ^ (uint64_t{len} * 0x9E3779B97F4A7C15ull);
    const uint32_t id = static_cast<uint32_t>(states_.size());
    const uint32_t first = head_.insert(key, id);  // the first state with this key, or id
    if (first != id)
      for (uint32_t x = first; x != kNoState; x = next_[x])
        if (states_[x].len == len && states_[x].hash == hsh && same_text(x, parent, piece)) return x;
    states_.push_back({parent, piece, len, hsh});
    // Chained after the first (the map keeps the first): next_[first] -> id -> the rest.
    if (first != id) {
      next_.push_back(next_[first]);
      next_[first] = id;
    } else {
      next_.push_back(kNoState);
    }
    return id;
  }

  std::vector<Piece> pieces_;
  std::vector<State> states_;
  std::vector<uint32_t> next_;  // states with the same (hash, length) key
  FlatMap64 head_;              // (hash, length) key -> the first such state
  FlatMap64 piece_by_value_, state_by_value_;
  FlatMap64 appended_;  // (state, piece) -> the state after appending it
  uint32_t empty_;
};

}  // namespace

std::unique_ptr<ObjectSpec> make_kv_spec(const History& h) { return std::make_unique<KvSpec>(h); }

}  // namespace isoscope
