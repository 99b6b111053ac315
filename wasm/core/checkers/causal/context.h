// Shared machinery of the causal checkers (WCC, CCv, CM): the operations that took effect
// grouped by process, their read-from sources, the writes of each key grouped by process,
// co = (po ∪ wr)+ as vector clocks, and anomaly building (paths, cycles). Internal to
// checkers/causal/.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "checkers/result.h"
#include "graph/digraph.h"

namespace isoscope::causal {

// Anomalies built in full (with their justifying paths); the rest are only counted.
constexpr size_t kMaxDetailed = 64;

// Edge tags of the graphs over operations: program order, write-read (| the read op), or an
// index into the caller's derived edges (cf, hb_o).
constexpr uint32_t kTagPO = 0xFFFFFFFFu;
constexpr uint32_t kTagWR = 0x80000000u;
inline bool is_po_tag(uint32_t t) { return t == kTagPO; }
inline bool is_wr_tag(uint32_t t) { return t != kTagPO && (t & kTagWR); }
inline bool is_derived_tag(uint32_t t) { return !(t & kTagWR); }

class Ctx {
 public:
  Ctx(const History& h, const CheckBudget& budget);

  const History& h;
  const CheckBudget& budget;
  uint32_t n = 0;  // operations (all; only live ones take part)
  uint32_t k = 0;  // processes (sessions)

  std::vector<char> live;            // the operation took effect
  std::vector<uint32_t> proc, idx;   // process and index among its live operations
  std::vector<uint32_t> pbeg, pops;  // live operations of process p: pops[pbeg[p] .. pbeg[p+1])
  // Per live read: the live write it reads, kReadsInitial, or kThinAir (nobody wrote the value,
  // or only an aborted operation did). kNone for writes and dead operations.
  std::vector<uint32_t> src;
  std::vector<char> thin_air_aborted;  // per op: a thin-air read whose writer aborted

  // Writes of each key, grouped by process in program order: key x has groups
  // [gbeg[x], gbeg[x+1]); group g holds wop/widx[groups[g].begin .. end).
  struct Group {
    uint32_t proc, begin, end;
  };
  std::vector<uint32_t> gbeg;
  std::vector<Group> groups;
  std::vector<uint32_t> wop;
  std::vector<int32_t> widx;

  // Clocks: one dimension per process that writes. vc[u * width + dim[q]] is the index of the
  // co-latest operation of q in u's causal past (inclusive), -1 when none.
  std::vector<uint32_t> dim;
  uint32_t width = 0;
  std::vector<int32_t> vc;

  LevelResult res;
  size_t detailed = 0;  // anomalies built in full so far
  bool stopped = false;  // budget ran out or clocks too large: res says why

  // po ∪ wr as a graph over operations (tags kTagPO / kTagWR | read).
  void add_po_wr(DigraphBuilder& b) const;
  // Reports ThinAirRead anomalies; builds po ∪ wr, reports its cycles (CyclicCO) and, when it
  // is acyclic, computes the clocks. Returns false when the checker must stop here.
  bool build_co();
  // Whether the checker may still build a detailed anomaly (and counts it).
  bool take_detail() { return detailed < kMaxDetailed ? (++detailed, true) : false; }
  // Checks the budget every few thousand calls; sets stopped when it ran out.
  bool expired();
  // Sets the verdict from what was found (Unknown when stopped without any anomaly).
  LevelResult finish();

  // Index of the co-latest operation of process q in the causal past of op u (inclusive).
  int32_t bound(uint32_t u, uint32_t q) const {
    if (q == proc[u]) return static_cast<int32_t>(idx[u]);
    return dim[q] == kNone ? -1 : vc[static_cast<size_t>(u) * width + dim[q]];
  }
  // a co* b.
  bool before_eq(uint32_t a, uint32_t b) const { return static_cast<int32_t>(idx[a]) <= bound(b, proc[a]); }
  const int32_t* clock(uint32_t u) const { return vc.data() + static_cast<size_t>(u) * width; }
  // Last write in group g with index <= b, or kNone.
  uint32_t last_write_upto(const Group& g, int32_t b) const;
  uint32_t op_at(uint32_t p, int32_t i) const { return pops[pbeg[p] + static_cast<uint32_t>(i)]; }

  // ---- explanations ----
  std::string name(uint32_t op) const;  // "w(x, 1) of T3 (session 1 #2)"
  std::string short_name(uint32_t op) const;  // "w(x, 1)@T3"
  AnomalyEdge po_edge(uint32_t a, uint32_t b) const;
  AnomalyEdge wr_edge(uint32_t w, uint32_t r) const;
  // An edge between two operations, of their transactions; its why is the caller's.
  AnomalyEdge op_edge(uint32_t from, uint32_t to, EdgeType type) const;
  // A derived order of two writes of `key` (arbitration, a view): its why is the caller's.
  AnomalyEdge write_order_edge(uint32_t from, uint32_t to, uint32_t key) const;
  // A po ∪ wr path a -> b (a co+ b), consecutive program-order steps merged into one edge.
  std::vector<AnomalyEdge> co_path(uint32_t a, uint32_t b) const;
  static std::string path_text(const std::vector<AnomalyEdge>& p);
  void add_ops(Anomaly& a, std::initializer_list<uint32_t> ops) const;
  void add_path_txns(Anomaly& a, const std::vector<AnomalyEdge>& p) const;

  // Reports the cycles of g (one short cycle per strongly connected component, all counted)
  // as anomalies of `kind`. explain(edge id, from op, to op) explains a derived edge.
  template <class Explain>
  void report_cycles(const Digraph& g, AnomalyKind kind, const std::string& what, Explain explain);
  // An edge of g explained: po, wr, or derived through explain.
  template <class Explain>
  AnomalyEdge graph_edge(const Digraph& g, uint32_t e, uint32_t from, Explain& explain) const {
    const uint32_t to = g.targets[e], tag = g.tags[e];
    if (is_po_tag(tag)) return po_edge(from, to);
    if (is_wr_tag(tag)) return wr_edge(from, to);
    return explain(tag, from, to);
  }
  // Shortest path a -> b in g (edge ids), BFS; empty if none.
  std::vector<uint32_t> graph_path(const Digraph& g, uint32_t a, uint32_t b) const;
  static uint32_t source_of(const Digraph& g, uint32_t e);

 private:
  size_t ticks_ = 0;
};

template <class Explain>
void Ctx::report_cycles(const Digraph& g, AnomalyKind kind, const std::string& what, Explain explain) {
  uint32_t count = 0;
  std::vector<uint32_t> comp = strongly_connected_components(g, count);
  std::vector<uint32_t> size(count, 0);
  for (uint32_t u = 0; u < g.n; ++u) ++size[comp[u]];
  std::vector<char> done(count, 0);
  size_t total = 0;
  for (uint32_t u = 0; u < g.n; ++u) {
    const uint32_t c = comp[u];
    if (done[c]) continue;
    bool self = false;
    for (uint32_t e = g.begin(u); e < g.end(u) && !self; ++e) self = g.targets[e] == u;
    if (!self && size[c] < 2) continue;
    done[c] = 1;
    ++total;
    if (!take_detail()) continue;
    std::vector<uint32_t> cycle;
    for (uint32_t e = g.begin(u); e < g.end(u); ++e)
      if (g.targets[e] == u) {
        cycle = {e};
        break;
      }
    if (cycle.empty()) cycle = shortest_cycle_through(g, comp, u);
    Anomaly a;
    a.kind = kind;
    uint32_t from = u;
    for (uint32_t e : cycle) {
      const uint32_t to = g.targets[e];
      a.txns.push_back(h.op_txn[from]);
      a.ops.push_back(from);
      a.edges.push_back(graph_edge(g, e, from, explain));
      from = to;
    }
    std::string s;
    for (size_t i = 0; i < a.edges.size(); ++i) {
      const AnomalyEdge& ed = a.edges[i];
      if (i) s += "; ";
      if (i + 1 == a.edges.size() && a.edges.size() > 1) s += "however ";
      s += short_name(ed.from_op) + " < " + short_name(ed.to_op) + " because " + ed.why;
    }
    s += ": a cycle in " + what;
    a.explanation = std::move(s);
    res.anomalies.push_back(std::move(a));
  }
  res.anomalies_total += total;
}

}  // namespace isoscope::causal
