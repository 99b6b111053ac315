// The polygraph solver's decision order (solver.h): the unassigned variables in a binary heap by
// VSIDS activity (bumped in conflicts, decaying), ties to the variable whose pair of nodes comes
// first in the initial order.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "checkers/strong/internal.h"

namespace isoscope::strong {

class VarOrder {
 public:
  // Every variable in the heap, none active; first[v]: the earlier place of v's two nodes.
  void init(std::vector<uint32_t> first) {
    const size_t n = first.size();
    activity_.assign(n, 0.0);
    heap_pos_.assign(n, kNone);
    first_ = std::move(first);
    for (uint32_t v = 0; v < n; ++v) insert(v);
  }
  bool empty() const { return heap_.empty(); }
  bool contains(uint32_t v) const { return heap_pos_[v] != kNone; }
  void insert(uint32_t v) {
    heap_pos_[v] = static_cast<uint32_t>(heap_.size());
    heap_.push_back(v);
    sift_up(heap_pos_[v]);
  }
  // Removes and returns the most active variable.
  uint32_t pop() {
    const uint32_t top = heap_[0];
    heap_pos_[top] = kNone;
    const uint32_t last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) {
      heap_[0] = last;
      heap_pos_[last] = 0;
      sift_down(0);
    }
    return top;
  }
  // A variable met in a conflict.
  void bump(uint32_t v) {
    if ((activity_[v] += var_inc_) > 1e100) {
      for (double& a : activity_) a *= 1e-100;
      var_inc_ *= 1e-100;
    }
    if (heap_pos_[v] != kNone) sift_up(heap_pos_[v]);
  }
  // After each conflict: later bumps weigh more.
  void decay() { var_inc_ /= 0.95; }

 private:
  // Ties (every variable before its first conflict) go to the choice between the nodes that
  // come first in the initial order: ordering the history from its beginning on, each choice
  // then usually agrees with the edges already placed.
  bool before(uint32_t a, uint32_t b) const {
    return activity_[a] != activity_[b] ? activity_[a] > activity_[b] : first_[a] < first_[b];
  }
  void sift_up(uint32_t i) {
    const uint32_t v = heap_[i];
    while (i > 0) {
      const uint32_t parent = (i - 1) / 2;
      if (!before(v, heap_[parent])) break;
      heap_[i] = heap_[parent];
      heap_pos_[heap_[i]] = i;
      i = parent;
    }
    heap_[i] = v;
    heap_pos_[v] = i;
  }
  void sift_down(uint32_t i) {
    const uint32_t v = heap_[i], n = static_cast<uint32_t>(heap_.size());
    while (true) {
      uint32_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], v)) break;
      heap_[i] = heap_[child];
      heap_pos_[heap_[i]] = i;
      i = child;
    }
    heap_[i] = v;
    heap_pos_[v] = i;
  }

  std::vector<double> activity_;
  std::vector<uint32_t> first_, heap_pos_, heap_;
  double var_inc_ = 1;
};

}  // namespace isoscope::strong
