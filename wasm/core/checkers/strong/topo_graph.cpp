// The incremental topological order of the polygraph solver's theory (topo_graph.h).
#include "checkers/strong/topo_graph.h"

#include <algorithm>

namespace isoscope::strong {

TopoGraph::TopoGraph(uint32_t n, const std::vector<uint32_t>& initial_order)
    : out_(n), in_(n), known_out_(DigraphBuilder(n).build()), known_in_(known_out_), ord_(n), mark_(n, 0),
      parent_(n), parent_ref_(n) {
  for (uint32_t i = 0; i < n; ++i) ord_[initial_order[i]] = i;
}

void TopoGraph::set_known(const std::vector<Problem::Edge>& edges) {
  const uint32_t n = static_cast<uint32_t>(ord_.size());
  const auto from = [&](size_t e) { return edges[e].from; };
  const auto to = [&](size_t e) { return edges[e].to; };
  const auto none = [](size_t) { return 0u; };
  known_out_ = csr_digraph(n, edges.size(), from, to, none);
  known_in_ = csr_digraph(n, edges.size(), to, from, none);
}

std::vector<uint32_t> TopoGraph::order() const {
  std::vector<uint32_t> o(ord_.size());
  for (uint32_t v = 0; v < ord_.size(); ++v) o[ord_[v]] = v;
  return o;
}

bool TopoGraph::forward(uint32_t from, uint32_t to) {
  const uint32_t ub = ord_[from];
  ++epoch_;
  fwd_.clear();
  work_.assign(1, to);
  mark_[to] = epoch_;
  while (!work_.empty()) {
    const uint32_t w = work_.back();
    work_.pop_back();
    fwd_.push_back(w);
    for (uint32_t i = known_out_.begin(w); i < known_out_.end(w); ++i) {
      const uint32_t x = known_out_.targets[i];
      if (x == from) {
        close_cycle(from, to, w, kKnownEdge);
        return false;
      }
      if (ord_[x] < ub && mark_[x] != epoch_) {
        mark_[x] = epoch_;
        parent_[x] = w;
        parent_ref_[x] = kKnownEdge;
        work_.push_back(x);
      }
    }
    for (const Adj& e : out_[w]) {
      if (e.node == from) {
        close_cycle(from, to, w, e.ref);
        return false;
      }
      if (ord_[e.node] < ub && mark_[e.node] != epoch_) {
        mark_[e.node] = epoch_;
        parent_[e.node] = w;
        parent_ref_[e.node] = e.ref;
        work_.push_back(e.node);
      }
    }
  }
  return true;
}

void TopoGraph::close_cycle(uint32_t from, uint32_t to, uint32_t w, uint32_t ref) {
  cycle_refs.clear();
  cycle_nodes.clear();
  cycle_refs.push_back(ref);
  cycle_nodes.push_back(from);
  for (uint32_t x = w; x != to; x = parent_[x]) {
    cycle_nodes.push_back(x);
    cycle_refs.push_back(parent_ref_[x]);
  }
  cycle_nodes.push_back(to);
}

bool TopoGraph::reorder(uint32_t from, uint32_t to) {
  if (!forward(from, to)) return false;
  const uint32_t lb = ord_[to];
  // Backward from `from` through nodes ordered after `to`.
  bwd_.clear();
  work_.assign(1, from);
  mark_[from] = epoch_;
  while (!work_.empty()) {
    const uint32_t w = work_.back();
    work_.pop_back();
    bwd_.push_back(w);
    for (uint32_t i = known_in_.begin(w); i < known_in_.end(w); ++i)
      if (const uint32_t x = known_in_.targets[i]; ord_[x] > lb && mark_[x] != epoch_) {
        mark_[x] = epoch_;
        work_.push_back(x);
      }
    for (const Adj& e : in_[w])
      if (ord_[e.node] > lb && mark_[e.node] != epoch_) {
        mark_[e.node] = epoch_;
        work_.push_back(e.node);
      }
  }
  // The backward set goes first, then the forward set, into the positions both held.
  auto by_ord = [&](uint32_t a, uint32_t b) { return ord_[a] < ord_[b]; };
  std::sort(fwd_.begin(), fwd_.end(), by_ord);
  std::sort(bwd_.begin(), bwd_.end(), by_ord);
  slots_.clear();
  for (uint32_t v : bwd_) slots_.push_back(ord_[v]);
  for (uint32_t v : fwd_) slots_.push_back(ord_[v]);
  std::sort(slots_.begin(), slots_.end());
  size_t i = 0;
  for (uint32_t v : bwd_) ord_[v] = slots_[i++];
  for (uint32_t v : fwd_) ord_[v] = slots_[i++];
  return true;
}

}  // namespace isoscope::strong
