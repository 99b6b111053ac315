// The storage of causal consistency's check (cc.cpp): vector clocks, dense (ClockPool) and
// sparse (SparsePool), recycled as the visit goes; and the co edges the axiom adds, kept as a
// staircase per pair of sessions (CoEdges: only the edges no other edge implies). See cc.cpp's
// header for why each exists.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "checkers/weak/common.h"
#include "checkers/weak/weak.h"
#include "util/memory.h"

namespace isoscope::cc_storage {

class ClockPool {
 public:
  explicit ClockPool(uint32_t width) : w_(width) {}
  uint32_t alloc() {
    if (!free_.empty()) {
      uint32_t s = free_.back();
      free_.pop_back();
      return s;
    }
    data_.resize(data_.size() + w_);
    return slots_++;
  }
  void release(uint32_t slot) { free_.push_back(slot); }
  int32_t* at(uint32_t slot) { return data_.data() + static_cast<size_t>(slot) * w_; }
  size_t bytes() const { return data_.capacity() * sizeof(int32_t); }

 private:
  uint32_t w_;
  uint32_t slots_ = 0;
  std::vector<int32_t> data_;
  std::vector<uint32_t> free_;
};

constexpr size_t kMaxClockBytes = size_t(1536) << 20;  // 1.5 GB: beyond this, give up (unknown)

// Sparse clocks: per slot a sorted list of (dimension, index); a missing dimension is -1.
class SparsePool {
 public:
  using Entry = std::pair<uint32_t, int32_t>;
  uint32_t alloc() {
    if (!free_.empty()) {
      const uint32_t s = free_.back();
      free_.pop_back();
      return s;
    }
    clocks_.emplace_back();
    return static_cast<uint32_t>(clocks_.size() - 1);
  }
  void release(uint32_t slot) {
    bytes_ -= clocks_[slot].capacity() * sizeof(Entry);
    std::vector<Entry>().swap(clocks_[slot]);  // its memory goes back now: a freed clock may be large
    free_.push_back(slot);
  }
  const std::vector<Entry>& at(uint32_t slot) const { return clocks_[slot]; }
  int32_t get(uint32_t slot, uint32_t dim) const {
    const std::vector<Entry>& c = clocks_[slot];
    auto it = std::lower_bound(c.begin(), c.end(), Entry{dim, INT32_MIN});
    return it != c.end() && it->first == dim ? it->second : -1;
  }
  void set(uint32_t slot, uint32_t dim, int32_t v) {
    std::vector<Entry>& c = clocks_[slot];
    auto it = std::lower_bound(c.begin(), c.end(), Entry{dim, INT32_MIN});
    if (it != c.end() && it->first == dim) {
      it->second = v;
    } else {
      const size_t before = c.capacity();
      c.insert(it, Entry{dim, v});
      bytes_ += (c.capacity() - before) * sizeof(Entry);
    }
  }
  // dst = max(dst, src), entry by entry.
  void join(uint32_t dst, uint32_t src) {
    const std::vector<Entry>& a = clocks_[dst];
    const std::vector<Entry>& b = clocks_[src];
    scratch_.clear();
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
      if (a[i].first < b[j].first) scratch_.push_back(a[i++]);
      else if (b[j].first < a[i].first) scratch_.push_back(b[j++]);
      else scratch_.push_back({a[i].first, std::max(a[i].second, b[j].second)}), ++i, ++j;
    }
    scratch_.insert(scratch_.end(), a.begin() + i, a.end());
    scratch_.insert(scratch_.end(), b.begin() + j, b.end());
    const size_t before = clocks_[dst].capacity();
    clocks_[dst].assign(scratch_.begin(), scratch_.end());
    bytes_ += (clocks_[dst].capacity() - before) * sizeof(Entry);
  }
  void copy(uint32_t dst, uint32_t src) {
    const size_t before = clocks_[dst].capacity();
    clocks_[dst] = clocks_[src];
    bytes_ += (clocks_[dst].capacity() - before) * sizeof(Entry);
  }
  size_t bytes() const { return bytes_ + clocks_.capacity() * sizeof(std::vector<Entry>) + scratch_.capacity() * sizeof(Entry); }

 private:
  std::vector<std::vector<Entry>> clocks_;
  std::vector<uint32_t> free_;
  std::vector<Entry> scratch_;
  size_t bytes_ = 0;
};

// The co edges the axiom forces, filtered as the header comment says. As edges are found, each
// pair of sessions remembers its kWays latest kept edges: a new edge one of them implies is
// dropped, and one that implies them takes their place. That finds nearly the whole staircase
// (the visit follows causality, so edges into a session mostly come in session order) and lets
// the checker skip most searches (floor). compact() finds the exact staircase; it runs when the
// buffer has doubled since it last ran, and at the end when the filter is off (more than
// kMaxFilterBytes of records: thousands of writing sessions).
class CoEdges {
 public:
  struct Edge {
    uint32_t t2, t1, rx, d2;  // d2: t2's writer dimension
  };
  struct Recent {
    int32_t j, i;  // a kept edge from (s', i) to (S, j) (j = -1: none), at edges_[pos]
    uint32_t pos;  // kNone once compact() has moved the edges
  };
  static constexpr int kWays = 2;
  // dim: each writing session's clock dimension (t1 and t2 always write); width: their number.
  // The per-pair filter costs width^2 * kWays records; it runs only when they fit kMaxFilterBytes.
  CoEdges(const History& h, const std::vector<uint32_t>& dim, uint32_t width, CcEdges mode)
      : h_(h), dim_(dim), width_(width), mode_(mode) {
    if (mode == CcEdges::Staircase && filter_bytes(width) > 0)
      recent_.assign(static_cast<size_t>(width) * width * kWays, Recent{-1, -1, kNone});
    // With the filter, compaction drops few edges (about 4% on 10^6 transactions): it waits.
    min_compact_ = mode == CcEdges::Compacted ? 16 : recent_.empty() ? kMinCompact : 2 * kMinCompact;
    next_compact_ = mode == CcEdges::All ? SIZE_MAX : min_compact_;
  }
  static size_t filter_bytes(uint32_t width) {
    const size_t b = static_cast<size_t>(width) * width * kWays * sizeof(Recent);
    return b <= kMaxFilterBytes ? b : 0;
  }
  void add(uint32_t t2, uint32_t d2, uint32_t t1, uint32_t rx) {
    if (t1 != kInitialTxn && !recent_.empty()) {
      // The records of (t1's session, d2): kept edges none of which implies another, so the
      // later the target (j) the later the source (i); sorted by j, latest first.
      Recent* r = row(t1) + static_cast<size_t>(d2) * kWays;
      const int32_t j = static_cast<int32_t>(h_.txns[t1].index), i = static_cast<int32_t>(h_.txns[t2].index);
      uint32_t slot = kNone;  // where the edge goes: the slot of a kept edge it implies, or a new one
      int live = 0;
      for (int w = 0; w < kWays; ++w) {
        Recent& f = r[w];
        if (f.j < 0) continue;
        if (f.j <= j && f.i >= i) return;  // implied by an edge already kept
        if (f.j >= j && f.i <= i) {        // implies a kept edge: takes its place
          if (f.pos != kNone) {
            if (slot == kNone) slot = f.pos;
            else edges_[f.pos].t1 = kDropped;
          }
          continue;
        }
        r[live++] = f;
      }
      for (int w = live; w < kWays; ++w) r[w] = {-1, -1, kNone};
      if (slot != kNone) {
        edges_[slot] = {t2, t1, rx, d2};
      } else {
        if (!room()) return;
        slot = static_cast<uint32_t>(edges_.size());
        edges_.push_back({t2, t1, rx, d2});
      }
      // Record it by j; when all ways are taken, the earliest record is forgotten.
      if (live < kWays || j > r[kWays - 1].j) {
        int at = std::min(live, kWays - 1);
        for (; at > 0 && r[at - 1].j < j; --at) r[at] = r[at - 1];
        r[at] = {j, i, slot};
      }
    } else if (room()) {
      edges_.push_back({t2, t1, rx, d2});
    }
  }
  // Room for one more edge. The buffer is compacted when full and twice as large as the
  // last compaction left it, and grows only when memory allows (in wasm a failed allocation
  // aborts); otherwise too_many() turns true.
  bool room() {
    if (too_many_) return false;  // the result is unknown
    if (edges_.size() >= next_compact_) compact();
    if (edges_.size() < edges_.capacity()) return true;
    const size_t want = std::max<size_t>(1024, edges_.capacity() + edges_.capacity() / 2);
    if (want > kMaxEdges || !can_allocate((want + edges_.size()) * sizeof(Edge))) {
      too_many_ = true;
      return false;
    }
    edges_.reserve(want);
    return true;
  }
  // floors(t1)(d): the least index an edge from writer dimension d into t1 must exceed not to
  // be implied by a kept one (-1: any); lets the checker skip the search for t2. The latest
  // record with j <= t1's index has the largest i among them.
  struct Floors {
    const Recent* row;  // null: no filter
    int32_t j;
    int32_t operator()(uint32_t d) const {
      if (!row) return -1;
      const Recent* r = row + static_cast<size_t>(d) * kWays;
      for (int w = 0; w < kWays; ++w)
        if (r[w].j <= j) return r[w].i;  // an empty way: j = i = -1
      return -1;
    }
  };
  Floors floors(uint32_t t1) const {
    if (t1 == kInitialTxn || recent_.empty()) return {nullptr, 0};
    return {row(t1), static_cast<int32_t>(h_.txns[t1].index)};
  }
  // Keeps, per target t1 and writer session s', only the latest t2, and only when no edge
  // into an earlier transaction of t1's session comes from as late in s'. Stable: the kept
  // edges stay in the order they were found.
  void compact();
  // More edges are needed than the checker may hold (kMaxEdges, or what memory allows).
  bool too_many() const { return too_many_; }
  // The end of the search: without the per-pair filter, only compact() drops implied edges.
  void settle() {
    if (recent_.empty() && mode_ != CcEdges::All) compact();
  }
  template <class F>
  void for_each(F&& f) const {
    for (const Edge& e : edges_)
      if (e.t1 != kDropped) f(e);
  }
  size_t size() const { return edges_.size(); }
  void release() {
    std::vector<Edge>().swap(edges_);
    std::vector<Recent>().swap(recent_);
  }

  static constexpr size_t kMaxEdges = size_t(1) << 26;  // 1 GB of edges

 private:
  static constexpr uint32_t kDropped = kNone;  // an edge's t1 once a later one implies it
  Recent* row(uint32_t t1) { return recent_.data() + static_cast<size_t>(dim_[h_.txns[t1].session]) * width_ * kWays; }
  const Recent* row(uint32_t t1) const { return recent_.data() + static_cast<size_t>(dim_[h_.txns[t1].session]) * width_ * kWays; }
  static constexpr size_t kMaxFilterBytes = size_t(32) << 20;
  static constexpr size_t kMinCompact = size_t(1) << 23;
  const History& h_;
  const std::vector<uint32_t>& dim_;
  uint32_t width_;
  CcEdges mode_;
  std::vector<Recent> recent_;
  std::vector<Edge> edges_;
  size_t min_compact_, next_compact_;
  bool too_many_ = false;
};

inline void CoEdges::compact() {
  const uint32_t n = static_cast<uint32_t>(h_.txns.size());
  const size_t m = edges_.size();
  if (!can_allocate(4 * static_cast<size_t>(n) + 5 * m)) {  // end, by_target, keep
    too_many_ = true;
    return;
  }
  // The edges by target (counting sort, stable): bucket t is [end[t - 1], end[t]).
  std::vector<uint32_t> end(static_cast<size_t>(n) + 1, 0);
  for (const Edge& e : edges_)
    if (e.t1 != kDropped) ++end[e.t1 + 1];
  for (uint32_t t = 0; t < n; ++t) end[t + 1] += end[t];
  std::vector<uint32_t> by_target(end[n]);
  for (uint32_t k = 0; k < m; ++k)
    if (edges_[k].t1 != kDropped) by_target[end[edges_[k].t1]++] = k;
  // Per writer dimension: the latest t2 into the current t1 (best; which edge: pick) and the
  // latest kept into an earlier transaction of t1's session (prev), valid under their stamps.
  // Within one session, a later transaction has a larger id.
  std::vector<uint32_t> best(width_), prev(width_), pick(width_), best_stamp(width_, kNone), prev_stamp(width_, 0);
  uint32_t session = kNone - 1, epoch = 0;  // kInitialTxn's targets form a "session" of their own
  std::vector<char> keep(m, 0);
  for (uint32_t t1 = 0, b = 0; t1 < n; b = end[t1++]) {
    if (b == end[t1]) continue;
    if (h_.txns[t1].session != session) {
      session = h_.txns[t1].session;
      ++epoch;
    }
    for (uint32_t p = b; p < end[t1]; ++p) {
      const Edge& e = edges_[by_target[p]];
      if (best_stamp[e.d2] != t1 || e.t2 > best[e.d2]) best_stamp[e.d2] = t1, best[e.d2] = e.t2, pick[e.d2] = by_target[p];
    }
    for (uint32_t p = b; p < end[t1]; ++p) {
      const uint32_t k = by_target[p], d = edges_[k].d2;
      if (pick[d] != k || (prev_stamp[d] == epoch && prev[d] >= best[d])) continue;
      keep[k] = 1;
      prev_stamp[d] = epoch;
      prev[d] = best[d];
    }
  }
  size_t w = 0;
  for (size_t k = 0; k < m; ++k)
    if (keep[k]) edges_[w++] = edges_[k];
  edges_.resize(w);
  next_compact_ = std::max(min_compact_, 2 * w);
  for (Recent& f : recent_) f.pos = kNone;
}

}  // namespace isoscope::cc_storage
