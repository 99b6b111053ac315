// The polygraph solver (solve, internal.h): CDCL over the choices saturation leaves open, with an
// acyclicity theory. Its parts: the encoding (solver_encoding.cpp), the search and propagation
// (solver.cpp), conflicts and what they teach (solver_conflict.cpp), the theory's graph
// (topo_graph.h) and the decision order (var_order.h).
//
// Variables. Every open constraint (internal.h) is a choice between two orderings of a pair of
// write nodes {a, b} (whole transactions for SER/SSER, write halves for PC/SI). All the
// constraints of one pair share one variable, "a commits before b" (as in Cobra's and PolySI's
// polygraphs), whose two literals each carry a set of edges:
//   a before b:  a -> b, every serialization constraint's reader of a -> b, SI: a -> R_b
//   b before a:  the mirror image.
// The encoding is exact: a serial order of the problem gives an assignment whose edges it
// contains, and an assignment whose edges (with the known ones) are acyclic gives, by a
// topological order, a serial order that satisfies every constraint.
//
// Theory. The known edges and the edges of the true literals form a graph kept acyclic with an
// incremental topological order (Pearce & Kelly 2006: only the nodes between the two ends of a
// backward edge are visited and reordered). Retracting edges on backtracking keeps the order
// valid, so it costs nothing. An edge that closes a cycle is a conflict whose clause is the
// negation of the literals whose edges lie on the cycle.
//
// Search. Two watched literals over the learned clauses (the problem has no clauses of its
// own: every constraint lives in the theory), first-UIP learning, VSIDS activities with a
// heap, Luby restarts, and phases taken from the current topological order, so a decision
// rarely reorders anything and histories that pass are usually solved without a conflict.
//
// Repeated values (Hyper, internal.h): a variable per candidate writer of an ambiguous read
// ("reads from it": its WR edge), and for a read whose candidates are not all here yet one more,
// "reads from another" (no edges); a clause per read says at least one holds. A choice
// constraint's RW edge (reader -> t2) belongs to the pair literal "candidate before t2" guarded
// by the candidate's literal: it is in the graph while both are true, and a cycle through it
// blames both.
//
// Memory: 12 bytes per literal edge (about 2 edges per open constraint plus 2 per variable),
// 8 bytes per adjacency entry and about 40 bytes per variable and per node, plus the learned
// clauses (4 bytes per literal).
#pragma once
#include <cstdint>
#include <vector>

#include "checkers/strong/internal.h"
#include "checkers/strong/topo_graph.h"
#include "checkers/strong/var_order.h"

namespace isoscope::strong {

using Lit = uint32_t;  // 2 * var + (1 when it means "b before a")
inline uint32_t var_of(Lit l) { return l >> 1; }
inline Lit negate(Lit l) { return l ^ 1u; }

class Solver {
 public:
  Solver(const Problem& p, const Saturation& sat, const CheckBudget& budget, Hyper* hyper)
      : p_(p), sat_(sat), budget_(budget), hyper_(hyper), graph_(p.n, sat.order) {}
  SolveResult run();

 private:
  struct LitEdge {
    uint32_t from, to;
  };

  // The encoding (solver_encoding.cpp).
  // Variables and their literals' edges, from the open constraints.
  void build();
  // Each ambiguous read reads from one of its candidates (or, not all here yet, another): at
  // least one literal of each holds (more than one only adds edges, so "exactly" is not
  // needed). False when a read has no candidate left (cannot happen: one is always here).
  bool add_read_clauses();
  // The solution's choice of each read: its current one when still true, else the first true
  // candidate, else kNone (it reads from one not yet here).
  void read_choices();
  uint32_t cand_read_of_var(uint32_t v) const { return var_read_[v - num_pairs_]; }

  // The search (solver.cpp).
  bool is_true(Lit l) const { return value_[var_of(l)] == static_cast<int8_t>(!(l & 1)); }
  bool is_false(Lit l) const { return value_[var_of(l)] == static_cast<int8_t>(l & 1); }
  uint32_t level() const { return static_cast<uint32_t>(trail_lim_.size()); }
  size_t open_vars() const;
  void assign(Lit l, uint32_t reason) {
    const uint32_t v = var_of(l);
    value_[v] = static_cast<int8_t>(!(l & 1));
    pos_[v] = static_cast<uint32_t>(trail_.size());
    level_[v] = level();
    reason_[v] = reason;
    trail_.push_back(l);
  }
  // Propagates the trail: each true literal's edges into the graph (theory), then the clauses
  // watching its negation. Returns false on a conflict, left in conflict_.
  bool propagate();
  void backtrack(uint32_t lvl);
  // The phase of a decision: a choice variable's preference (the current choice), else the
  // literal whose edges agree with the current order.
  Lit phase(uint32_t v);
  Verdict search();
  // A decision on a read's candidate while none of its candidates is true decides instead that
  // it reads from one: its current choice, else the candidate last before it in the current
  // order (else the first one free). The read's "another" literal is then only ever implied,
  // never guessed.
  uint32_t choice_decision(uint32_t v);
  static uint64_t luby(uint64_t i);

  // Conflicts (solver_conflict.cpp).
  // The literal that guards edge e (repeated values), or kNone.
  Lit guard_of(uint32_t e) const { return edge_guard_.empty() ? kNone : edge_guard_[e]; }
  // The literals that put edge e in the graph (its own, and its guard's).
  void edge_lits(uint32_t e, std::vector<Lit>& out) const {
    out.push_back(edge_lit_[e]);
    if (const Lit g = guard_of(e); g != kNone) out.push_back(g);
  }
  // The cycle edge e would close: the conflict clause is the negation of e's literals and of
  // every literal whose edge lies on the cycle.
  void theory_conflict(uint32_t e);
  // The nodes of the cycle in graph_, and the pair of each literal on it (a serialization
  // constraint's writer is not always on the cycle, yet without it the constraint is gone).
  void mark_core(uint32_t closing);
  uint32_t clause_size(uint32_t c) const {
    const size_t end = c + 1 < clause_begin_.size() ? clause_begin_[c + 1] : lits_.size();
    return static_cast<uint32_t>(end - clause_begin_[c]);
  }
  // First-UIP learning from conflict_; returns the backjump level, learnt_[0] asserting.
  uint32_t analyze();
  // The edge of l (its own, or one it guards whose other literal is true) that would close a
  // cycle, or kNone; the cycle is left in graph_.cycle_refs.
  uint32_t closing_cycle(Lit l);
  // The reason clause of `implied` (the negation of l) from edge e of l and the cycle in
  // graph_.cycle_refs: implied first, then the negations of e's other literal and of the
  // cycle's literals, the one assigned last (highest level) second.
  uint32_t add_reason(Lit implied, uint32_t e);
  // learnt_ as a clause, watched by its first two literals.
  uint32_t add_learnt();

  const Problem& p_;
  const Saturation& sat_;
  const CheckBudget& budget_;
  Hyper* hyper_;
  TopoGraph graph_;
  VarOrder var_order_;
  uint32_t num_vars_ = 0, num_pairs_ = 0;
  std::vector<uint32_t> cand_read_, cand_var_, other_var_;  // Hyper: candidate / read -> var
  std::vector<uint32_t> var_read_;  // candidate var (less num_pairs_) -> read
  uint32_t cand_var_count_ = 0;
  std::vector<Lit> edge_guard_;                      // per edge (empty without guarded edges)
  std::vector<uint32_t> guarded_begin_, guarded_;    // guarded edges of each literal
  std::vector<uint32_t> pos_;                        // trail index of each assigned var
  std::vector<int8_t> prefer_;                       // choice vars: the preferred value
  std::vector<Lit> scratch_;
  std::vector<uint32_t> va_, vb_;
  std::vector<uint32_t> edge_begin_;
  std::vector<LitEdge> edges_;
  std::vector<Lit> edge_lit_;
  std::vector<int8_t> value_;
  std::vector<uint32_t> level_, reason_;
  std::vector<char> seen_, core_;
  std::vector<Lit> trail_;
  std::vector<size_t> trail_lim_, edge_mark_;
  size_t qhead_ = 0;
  std::vector<size_t> clause_begin_;
  std::vector<Lit> lits_, conflict_, learnt_;
  std::vector<std::vector<uint32_t>> watches_;
  uint64_t restarts_ = 0, conflicts_ = 0, decisions_ = 0, steps_ = 0;
};

}  // namespace isoscope::strong
