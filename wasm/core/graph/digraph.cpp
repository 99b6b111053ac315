#include "graph/digraph.h"

#include <algorithm>
#include <limits>

namespace isoscope {

Digraph DigraphBuilder::build() const {
  return csr_digraph(
      n_, from_.size(), [&](size_t e) { return from_[e]; }, [&](size_t e) { return to_[e]; },
      [&](size_t e) { return tag_[e]; });
}

std::vector<uint32_t> strongly_connected_components(const Digraph& g, uint32_t& count) {
  constexpr uint32_t kUnvisited = std::numeric_limits<uint32_t>::max();
  const uint32_t n = g.n;
  std::vector<uint32_t> index(n, kUnvisited), low(n, 0), comp(n, kUnvisited);
  std::vector<uint32_t> stack;        // Tarjan's node stack
  std::vector<uint32_t> call_node;    // explicit DFS stack: node
  std::vector<uint32_t> call_edge;    // and the next edge to explore from it
  std::vector<char> on_stack(n, 0);
  uint32_t next_index = 0;
  count = 0;
  for (uint32_t root = 0; root < n; ++root) {
    if (index[root] != kUnvisited) continue;
    call_node.push_back(root);
    call_edge.push_back(g.begin(root));
    index[root] = low[root] = next_index++;
    stack.push_back(root);
    on_stack[root] = 1;
    while (!call_node.empty()) {
      uint32_t u = call_node.back();
      uint32_t& e = call_edge.back();
      if (e < g.end(u)) {
        uint32_t v = g.targets[e++];
        if (index[v] == kUnvisited) {
          index[v] = low[v] = next_index++;
          stack.push_back(v);
          on_stack[v] = 1;
          call_node.push_back(v);
          call_edge.push_back(g.begin(v));
        } else if (on_stack[v]) {
          low[u] = std::min(low[u], index[v]);
        }
        continue;
      }
      // u is finished.
      if (low[u] == index[u]) {
        uint32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = 0;
          comp[w] = count;
        } while (w != u);
        ++count;
      }
      call_node.pop_back();
      call_edge.pop_back();
      if (!call_node.empty()) {
        uint32_t parent = call_node.back();
        low[parent] = std::min(low[parent], low[u]);
      }
    }
  }
  return comp;
}

std::vector<uint32_t> shortest_cycle_through(const Digraph& g, const std::vector<uint32_t>& comp,
                                             uint32_t start) {
  // BFS from start over edges inside the component, remembering the edge each node was
  // reached by; the first edge back into start closes a shortest cycle.
  constexpr uint32_t kNo = std::numeric_limits<uint32_t>::max();
  const uint32_t c = comp[start];
  std::vector<uint32_t> parent_edge(g.n, kNo), parent_node(g.n, kNo);
  std::vector<uint32_t> queue{start};
  parent_node[start] = start;
  for (size_t qi = 0; qi < queue.size(); ++qi) {
    uint32_t u = queue[qi];
    for (uint32_t e = g.begin(u); e < g.end(u); ++e) {
      uint32_t v = g.targets[e];
      if (comp[v] != c) continue;
      if (v == start) {
        std::vector<uint32_t> cycle{e};
        for (uint32_t x = u; x != start; x = parent_node[x]) cycle.push_back(parent_edge[x]);
        std::reverse(cycle.begin(), cycle.end());
        return cycle;
      }
      if (parent_node[v] != kNo) continue;
      parent_node[v] = u;
      parent_edge[v] = e;
      queue.push_back(v);
    }
  }
  return {};
}

std::vector<std::vector<uint32_t>> cycles_per_component(const Digraph& g, size_t max_cycles) {
  uint32_t count = 0;
  std::vector<uint32_t> comp = strongly_connected_components(g, count);
  std::vector<uint32_t> size(count, 0);
  for (uint32_t u = 0; u < g.n; ++u) ++size[comp[u]];
  std::vector<char> done(count, 0);
  std::vector<std::vector<uint32_t>> cycles;
  for (uint32_t u = 0; u < g.n && cycles.size() < max_cycles; ++u) {
    uint32_t c = comp[u];
    if (done[c]) continue;
    bool self_loop = false;
    for (uint32_t e = g.begin(u); e < g.end(u); ++e)
      if (g.targets[e] == u) {
        cycles.push_back({e});
        self_loop = true;
        break;
      }
    if (self_loop) {
      done[c] = 1;
      continue;
    }
    if (size[c] < 2) continue;
    done[c] = 1;
    cycles.push_back(shortest_cycle_through(g, comp, u));
  }
  return cycles;
}

std::vector<uint32_t> topological_order(const Digraph& g) {
  std::vector<uint32_t> indeg(g.n, 0);
  for (uint32_t v : g.targets) ++indeg[v];
  std::vector<uint32_t> order;
  order.reserve(g.n);
  for (uint32_t u = 0; u < g.n; ++u)
    if (indeg[u] == 0) order.push_back(u);
  for (size_t i = 0; i < order.size(); ++i) {
    uint32_t u = order[i];
    for (uint32_t e = g.begin(u); e < g.end(u); ++e)
      if (--indeg[g.targets[e]] == 0) order.push_back(g.targets[e]);
  }
  if (order.size() != g.n) return {};
  return order;
}

}  // namespace isoscope
