// The polygraph solver's theory (solver.h): the known edges and the edges of the true literals
// kept acyclic with an incrementally maintained topological order (Pearce & Kelly 2006: only the
// nodes between the two ends of a backward edge are visited and reordered). Edges are retracted
// in reverse order of addition; that keeps the order valid, so it costs nothing. Iterative.
#pragma once
#include <cstdint>
#include <vector>

#include "checkers/strong/internal.h"
#include "graph/digraph.h"

namespace isoscope::strong {

// The ref of a known edge on a cycle (the others carry their literal edge's index).
constexpr uint32_t kKnownEdge = kNone;

class TopoGraph {
 public:
  struct Adj {
    uint32_t node, ref;  // ref: index of the literal edge, or kKnownEdge
  };

  TopoGraph(uint32_t n, const std::vector<uint32_t>& initial_order);
  uint32_t ord(uint32_t v) const { return ord_[v]; }

  // Adds from -> to (the caller's ref). On a cycle returns false, the edge is not added and
  // cycle_refs / cycle_nodes describe the path to -> ... -> from that closes it.
  bool add(uint32_t from, uint32_t to, uint32_t ref) {
    if (from == to) {
      cycle_refs.clear();
      cycle_nodes.assign(1, from);
      return false;
    }
    if (ord_[from] > ord_[to] && !reorder(from, to)) return false;
    out_[from].push_back({to, ref});
    in_[to].push_back({from, ref});
    stack_.push_back(from);
    return true;
  }
  // Removes the most recently added edge (edges are removed in reverse order of addition).
  void pop() {
    const uint32_t from = stack_.back();
    stack_.pop_back();
    const uint32_t to = out_[from].back().node;
    out_[from].pop_back();
    in_[to].pop_back();
  }
  size_t added() const { return stack_.size(); }
  // The known edges, once, before any add(): kept in flat arrays (a vector per node cost an
  // allocation per node and round, a fifth of a small history's solve), each node's in the
  // order given, and walked before the edges added since, as when they were pushed first.
  void set_known(const std::vector<Problem::Edge>& edges);
  // The nodes in topological order.
  std::vector<uint32_t> order() const;

  // Whether from -> to would close a cycle (without adding it); cycle_refs then hold the path.
  bool closes_cycle(uint32_t from, uint32_t to) {
    if (from == to) {
      cycle_refs.clear();
      cycle_nodes.assign(1, from);
      return true;
    }
    return ord_[from] > ord_[to] && !forward(from, to);
  }

  std::vector<uint32_t> cycle_refs, cycle_nodes;

 private:
  // Forward from `to` through nodes ordered before `from` (collected in fwd_); reaching `from`
  // is a cycle: returns false with cycle_refs / cycle_nodes set.
  bool forward(uint32_t from, uint32_t to);
  // The cycle forward() found: from -> to (the new edge), to ~> w along parents, w -> from (ref).
  void close_cycle(uint32_t from, uint32_t to, uint32_t w, uint32_t ref);
  // Pearce-Kelly for a new edge from -> to with ord[to] < ord[from].
  bool reorder(uint32_t from, uint32_t to);

  std::vector<std::vector<Adj>> out_, in_;  // the edges added (known_*: the known ones)
  Digraph known_out_, known_in_;
  std::vector<uint32_t> ord_, mark_, parent_, parent_ref_;
  std::vector<uint32_t> stack_, work_, fwd_, bwd_, slots_;
  uint32_t epoch_ = 0;
};

}  // namespace isoscope::strong
