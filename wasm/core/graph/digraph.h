// A compact directed graph (CSR) and the iterative algorithms the checkers share.
// Everything is iterative: the wasm stack is small (5 MB) and histories have millions of nodes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace isoscope {

struct Digraph {
  uint32_t n = 0;
  std::vector<uint32_t> offsets;  // size n + 1
  std::vector<uint32_t> targets;  // edge e goes to targets[e]
  std::vector<uint32_t> tags;     // caller's label of edge e (e.g. an index into its edge info)

  uint32_t begin(uint32_t u) const { return offsets[u]; }
  uint32_t end(uint32_t u) const { return offsets[u + 1]; }
  size_t num_edges() const { return targets.size(); }
};

// The CSR of m edges, edge e from from(e) to to(e) with the caller's label tag(e), each node's
// edges in the order given (a counting sort).
template <class From, class To, class Tag>
Digraph csr_digraph(uint32_t n, size_t m, From from, To to, Tag tag) {
  Digraph g;
  g.n = n;
  g.offsets.assign(static_cast<size_t>(n) + 1, 0);
  for (size_t e = 0; e < m; ++e) ++g.offsets[from(e) + 1];
  for (uint32_t u = 0; u < n; ++u) g.offsets[u + 1] += g.offsets[u];
  g.targets.resize(m);
  g.tags.resize(m);
  std::vector<uint32_t> pos(g.offsets.begin(), g.offsets.end() - 1);
  for (size_t e = 0; e < m; ++e) {
    const uint32_t p = pos[from(e)]++;
    g.targets[p] = to(e);
    g.tags[p] = tag(e);
  }
  return g;
}

// Collects edges in any order, then lays them out as CSR with a counting sort.
class DigraphBuilder {
 public:
  explicit DigraphBuilder(uint32_t n) : n_(n) {}
  void add(uint32_t from, uint32_t to, uint32_t tag = 0) {
    from_.push_back(from);
    to_.push_back(to);
    tag_.push_back(tag);
  }
  void reserve(size_t edges) {
    from_.reserve(edges);
    to_.reserve(edges);
    tag_.reserve(edges);
  }
  size_t size() const { return from_.size(); }
  Digraph build() const;

 private:
  uint32_t n_;
  std::vector<uint32_t> from_, to_, tag_;
};

// Strongly connected components (iterative Tarjan). Returns the component of every node;
// components are numbered in reverse topological order. count receives their number.
std::vector<uint32_t> strongly_connected_components(const Digraph& g, uint32_t& count);

// A shortest cycle through `start` that stays inside start's component (BFS). Returns the
// edge ids of the cycle in order, starting at an edge leaving `start`; empty if none.
std::vector<uint32_t> shortest_cycle_through(const Digraph& g, const std::vector<uint32_t>& comp,
                                             uint32_t start);

// One short cycle per non-trivial SCC (up to max_cycles): for each such component, the
// shortest cycle through one of its nodes. A self-loop counts as a cycle.
std::vector<std::vector<uint32_t>> cycles_per_component(const Digraph& g, size_t max_cycles);

// A topological order of the nodes, or empty if the graph has a cycle (Kahn's algorithm).
std::vector<uint32_t> topological_order(const Digraph& g);

}  // namespace isoscope
