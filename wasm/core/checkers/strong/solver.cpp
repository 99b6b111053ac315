// The polygraph solver: CDCL over the choices saturation leaves open, with an acyclicity theory.
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
#include <algorithm>
#include <cmath>

#include "checkers/strong/internal.h"
#include "graph/digraph.h"
#include "util/flat_map.h"

namespace isoscope::strong {

namespace {

using Lit = uint32_t;  // 2 * var + (1 when it means "b before a")
inline uint32_t var_of(Lit l) { return l >> 1; }
inline Lit negate(Lit l) { return l ^ 1u; }
constexpr uint32_t kKnownEdge = kNone;

struct LitEdge {
  uint32_t from, to;
};

// An incrementally maintained topological order (Pearce-Kelly), iterative.
class TopoGraph {
 public:
  struct Adj {
    uint32_t node, ref;  // ref: index of the literal edge, or kKnownEdge
  };

  TopoGraph(uint32_t n, const std::vector<uint32_t>& initial_order)
      : out_(n), in_(n), known_out_(DigraphBuilder(n).build()), known_in_(known_out_), ord_(n), mark_(n, 0),
        parent_(n), parent_ref_(n) {
    for (uint32_t i = 0; i < n; ++i) ord_[initial_order[i]] = i;
  }
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
  void set_known(const std::vector<Problem::Edge>& edges) {
    const uint32_t n = static_cast<uint32_t>(ord_.size());
    const auto from = [&](size_t e) { return edges[e].from; };
    const auto to = [&](size_t e) { return edges[e].to; };
    const auto none = [](size_t) { return 0u; };
    known_out_ = csr_digraph(n, edges.size(), from, to, none);
    known_in_ = csr_digraph(n, edges.size(), to, from, none);
  }
  // The nodes in topological order.
  std::vector<uint32_t> order() const {
    std::vector<uint32_t> o(ord_.size());
    for (uint32_t v = 0; v < ord_.size(); ++v) o[ord_[v]] = v;
    return o;
  }

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
  bool forward(uint32_t from, uint32_t to) {
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
  // The cycle forward() found: from -> to (the new edge), to ~> w along parents, w -> from (ref).
  void close_cycle(uint32_t from, uint32_t to, uint32_t w, uint32_t ref) {
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

  // Pearce-Kelly for a new edge from -> to with ord[to] < ord[from].
  bool reorder(uint32_t from, uint32_t to) {
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

  std::vector<std::vector<Adj>> out_, in_;  // the edges added (known_*: the known ones)
  Digraph known_out_, known_in_;
  std::vector<uint32_t> ord_, mark_, parent_, parent_ref_;
  std::vector<uint32_t> stack_, work_, fwd_, bwd_, slots_;
  uint32_t epoch_ = 0;
};

class Solver {
 public:
  Solver(const Problem& p, const Saturation& sat, const CheckBudget& budget, Hyper* hyper)
      : p_(p), sat_(sat), budget_(budget), hyper_(hyper), graph_(p.n, sat.order) {}

  SolveResult run() {
    SolveResult res;
    build();
    res.vars = num_vars_;
    graph_.set_known(sat_.edges);
    core_.assign(p_.n, 0);
    const Verdict v = add_read_clauses() ? search() : Verdict::Fail;
    res.verdict = v;
    res.conflicts = conflicts_;
    res.decisions = decisions_;
    res.learned = clause_begin_.size();
    res.restarts = restarts_;
    if (v == Verdict::Pass) {
      res.order = graph_.order();
      if (hyper_) read_choices();
    } else if (v == Verdict::Fail) {
      res.core_nodes = std::move(core_);
    } else {
      res.reason = "budget ran out in the polygraph solver (" + std::to_string(open_vars()) +
                   " of " + std::to_string(num_vars_) + " choices open)";
    }
    return res;
  }

 private:
  // Variables and their literals' edges, from the open constraints.
  void build() {
    FlatMap64 pair_var;
    std::vector<uint32_t> va, vb;
    struct Tagged {
      Lit lit;
      uint32_t from, to;
      uint32_t guard;  // a candidate index while building, then its literal; kNone: none
    };
    std::vector<Tagged> tagged;
    auto var_for = [&](uint32_t a, uint32_t b) -> Lit {
      const bool swapped = a > b;
      if (swapped) std::swap(a, b);
      const uint32_t v = pair_var.insert((uint64_t(a) << 32) | b, static_cast<uint32_t>(va.size()));
      if (v == va.size()) {
        va.push_back(a);
        vb.push_back(b);
      }
      return 2 * v + (swapped ? 1 : 0);  // the literal "first argument before the second"
    };
    for (const Constraint& c : sat_.open) {
      if (c.y & kConflictFlag) {
        const uint32_t w1 = c.x, w2 = c.y & ~kConflictFlag;
        const Lit l = var_for(w1, w2);
        tagged.push_back({l, w1, w2 - 1, kNone});
        tagged.push_back({negate(l), w2, w1 - 1, kNone});
      } else {
        const uint32_t t1 = p_.reads[c.x].writer, t3 = sat_.reader[c.x], t2 = c.y;
        const Lit l = var_for(t1, t2);
        tagged.push_back({l, t3, t2, kNone});
        tagged.push_back({negate(l), t2, t1, kNone});
      }
    }
    if (hyper_) {
      cand_read_.assign(hyper_->cands.size(), kNone);
      for (uint32_t r = 0; r < hyper_->reads.size(); ++r)
        for (uint32_t ci = hyper_->reads[r].cbeg; ci < hyper_->reads[r].cend; ++ci) cand_read_[ci] = r;
      for (const Constraint& c : hyper_->open) {
        const uint32_t w = hyper_->cands[c.x], t2 = c.y;
        tagged.push_back({var_for(w, t2), hyper_->reads[cand_read_[c.x]].reader, t2, c.x});
      }
    }
    num_pairs_ = static_cast<uint32_t>(va.size());
    if (hyper_) {
      // The candidates' variables, then the "another" variables.
      cand_var_.assign(hyper_->cands.size(), kNone);
      other_var_.assign(hyper_->reads.size(), kNone);
      for (uint32_t r = 0; r < hyper_->reads.size(); ++r) {
        const Hyper::Read& rd = hyper_->reads[r];
        for (uint32_t ci = rd.cbeg; ci < rd.cbeg + rd.expanded; ++ci) {
          cand_var_[ci] = static_cast<uint32_t>(va.size());
          va.push_back(hyper_->cands[ci]);
          vb.push_back(rd.reader);
        }
      }
      cand_var_count_ = static_cast<uint32_t>(va.size()) - num_pairs_;
      var_read_.resize(cand_var_count_);
      for (uint32_t ci = 0; ci < cand_var_.size(); ++ci)
        if (cand_var_[ci] != kNone) var_read_[cand_var_[ci] - num_pairs_] = cand_read_[ci];
      for (uint32_t r = 0; r < hyper_->reads.size(); ++r) {
        const Hyper::Read& rd = hyper_->reads[r];
        if (rd.cbeg + rd.expanded == rd.cend) continue;
        other_var_[r] = static_cast<uint32_t>(va.size());
        va.push_back(rd.reader);
        vb.push_back(rd.reader);
      }
      for (Tagged& t : tagged)
        if (t.guard != kNone) t.guard = 2 * cand_var_[t.guard];
    }
    num_vars_ = static_cast<uint32_t>(va.size());
    for (uint32_t v = 0; v < num_pairs_; ++v) {
      tagged.push_back({2 * v, va[v], vb[v], kNone});
      tagged.push_back({2 * v + 1, vb[v], va[v], kNone});
    }
    for (uint32_t v = num_pairs_; v < num_vars_; ++v)
      if (va[v] != vb[v]) tagged.push_back({2 * v, va[v], vb[v], kNone});  // WR: candidate -> reader
    std::sort(tagged.begin(), tagged.end(), [](const Tagged& x, const Tagged& y) {
      return x.lit != y.lit     ? x.lit < y.lit
             : x.from != y.from ? x.from < y.from
             : x.to != y.to     ? x.to < y.to
                                : x.guard < y.guard;
    });
    tagged.erase(std::unique(tagged.begin(), tagged.end(),
                             [](const Tagged& x, const Tagged& y) {
                               return x.lit == y.lit && x.from == y.from && x.to == y.to &&
                                      x.guard == y.guard;
                             }),
                 tagged.end());
    edge_begin_.assign(2 * num_vars_ + 1, 0);
    edges_.reserve(tagged.size());
    edge_lit_.reserve(tagged.size());
    for (const Tagged& t : tagged) {
      ++edge_begin_[t.lit + 1];
      edges_.push_back({t.from, t.to});
      edge_lit_.push_back(t.lit);
      if (t.guard != kNone) {
        if (edge_guard_.empty()) edge_guard_.assign(edges_.size() - 1, kNone);
        edge_guard_.push_back(t.guard);
      } else if (!edge_guard_.empty()) {
        edge_guard_.push_back(kNone);
      }
    }
    for (uint32_t l = 0; l < 2 * num_vars_; ++l) edge_begin_[l + 1] += edge_begin_[l];
    if (!edge_guard_.empty()) {
      // The guarded edges of each candidate literal (added when the second literal is).
      guarded_begin_.assign(2 * num_vars_ + 1, 0);
      for (uint32_t g : edge_guard_)
        if (g != kNone) ++guarded_begin_[g + 1];
      for (uint32_t l = 0; l < 2 * num_vars_; ++l) guarded_begin_[l + 1] += guarded_begin_[l];
      guarded_.resize(guarded_begin_.back());
      std::vector<uint32_t> at(guarded_begin_.begin(), guarded_begin_.end() - 1);
      for (uint32_t e = 0; e < edge_guard_.size(); ++e)
        if (edge_guard_[e] != kNone) guarded_[at[edge_guard_[e]]++] = e;
    }
    va_ = std::move(va);
    vb_ = std::move(vb);

    value_.assign(num_vars_, -1);
    pos_.assign(num_vars_, 0);
    prefer_.assign(num_vars_, -1);
    if (hyper_) {
      for (uint32_t r = 0; r < hyper_->reads.size(); ++r) {
        const Hyper::Read& rd = hyper_->reads[r];
        for (uint32_t ci = rd.cbeg; ci < rd.cbeg + rd.expanded; ++ci)
          prefer_[cand_var_[ci]] = rd.chosen == ci;
        if (other_var_[r] != kNone) prefer_[other_var_[r]] = 0;
      }
    }
    level_.assign(num_vars_, 0);
    reason_.assign(num_vars_, kNone);
    activity_.assign(num_vars_, 0.0);
    seen_.assign(num_vars_, 0);
    heap_pos_.assign(num_vars_, kNone);
    watches_.assign(2 * num_vars_, {});
    first_.resize(num_vars_);
    for (uint32_t v = 0; v < num_vars_; ++v) {
      first_[v] = std::min(graph_.ord(va_[v]), graph_.ord(vb_[v]));
      heap_insert(v);
    }
  }

  bool is_true(Lit l) const { return value_[var_of(l)] == static_cast<int8_t>(!(l & 1)); }
  bool is_false(Lit l) const { return value_[var_of(l)] == static_cast<int8_t>(l & 1); }
  uint32_t level() const { return static_cast<uint32_t>(trail_lim_.size()); }
  size_t open_vars() const {
    size_t fixed = 0;
    for (size_t i = 0; i < trail_.size() && (trail_lim_.empty() || i < trail_lim_[0]); ++i) ++fixed;
    return num_vars_ - fixed;
  }

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
  bool propagate() {
    while (qhead_ < trail_.size()) {
      const size_t at = qhead_;
      const Lit p = trail_[qhead_];
      edge_mark_.resize(qhead_ + 1);
      edge_mark_[qhead_] = graph_.added();
      ++qhead_;
      // A guarded edge goes in with the second of its two literals.
      const auto earlier = [&](Lit q) { return is_true(q) && pos_[var_of(q)] < at; };
      for (uint32_t e = edge_begin_[p]; e < edge_begin_[p + 1]; ++e) {
        if (const Lit g = guard_of(e); g != kNone && !earlier(g)) continue;
        if (!graph_.add(edges_[e].from, edges_[e].to, e)) {
          theory_conflict(e);
          return false;
        }
      }
      if (!guarded_begin_.empty())
        for (uint32_t i = guarded_begin_[p]; i < guarded_begin_[p + 1]; ++i) {
          const uint32_t e = guarded_[i];
          if (!earlier(edge_lit_[e])) continue;
          if (!graph_.add(edges_[e].from, edges_[e].to, e)) {
            theory_conflict(e);
            return false;
          }
        }
      // Clauses watching ~p: find another literal to watch, or propagate / conflict.
      const Lit fl = negate(p);
      std::vector<uint32_t>& ws = watches_[fl];
      size_t keep = 0;
      for (size_t i = 0; i < ws.size(); ++i) {
        const uint32_t c = ws[i];
        uint32_t* L = &lits_[clause_begin_[c]];
        const uint32_t size = clause_size(c);
        if (L[0] == fl) std::swap(L[0], L[1]);
        if (is_true(L[0])) {
          ws[keep++] = c;
          continue;
        }
        bool moved = false;
        for (uint32_t k = 2; k < size; ++k)
          if (!is_false(L[k])) {
            std::swap(L[1], L[k]);
            watches_[L[1]].push_back(c);
            moved = true;
            break;
          }
        if (moved) continue;
        ws[keep++] = c;
        if (is_false(L[0])) {
          for (size_t j = i + 1; j < ws.size(); ++j) ws[keep++] = ws[j];
          ws.resize(keep);
          conflict_.assign(L, L + size);
          return false;
        }
        assign(L[0], c);
      }
      ws.resize(keep);
    }
    return true;
  }

  // The literal that guards edge e (repeated values), or kNone.
  Lit guard_of(uint32_t e) const { return edge_guard_.empty() ? kNone : edge_guard_[e]; }
  // The literals that put edge e in the graph (its own, and its guard's).
  void edge_lits(uint32_t e, std::vector<Lit>& out) const {
    out.push_back(edge_lit_[e]);
    if (const Lit g = guard_of(e); g != kNone) out.push_back(g);
  }

  // The cycle edge e would close: the conflict clause is the negation of e's literals and of
  // every literal whose edge lies on the cycle.
  void theory_conflict(uint32_t e) {
    conflict_.clear();
    edge_lits(e, conflict_);
    for (uint32_t ref : graph_.cycle_refs)
      if (ref != kKnownEdge) edge_lits(ref, conflict_);
    for (Lit& l : conflict_) l = negate(l);
    std::sort(conflict_.begin(), conflict_.end());
    conflict_.erase(std::unique(conflict_.begin(), conflict_.end()), conflict_.end());
    mark_core(e);
  }

  // The nodes of the cycle in graph_, and the pair of each literal on it (a serialization
  // constraint's writer is not always on the cycle, yet without it the constraint is gone).
  void mark_core(uint32_t closing) {
    for (uint32_t v : graph_.cycle_nodes) core_[v] = 1;
    scratch_.clear();
    if (closing != kNone) edge_lits(closing, scratch_);
    for (uint32_t ref : graph_.cycle_refs)
      if (ref != kKnownEdge) edge_lits(ref, scratch_);
    for (Lit l : scratch_) core_[va_[var_of(l)]] = core_[vb_[var_of(l)]] = 1;
  }

  uint32_t clause_size(uint32_t c) const {
    const size_t end = c + 1 < clause_begin_.size() ? clause_begin_[c + 1] : lits_.size();
    return static_cast<uint32_t>(end - clause_begin_[c]);
  }

  // First-UIP learning from conflict_; returns the backjump level, learnt_[0] asserting.
  uint32_t analyze() {
    learnt_.assign(1, 0);
    uint32_t path = 0;
    Lit p = kNone;
    size_t idx = trail_.size();
    std::vector<Lit> lits = conflict_;
    while (true) {
      for (Lit q : lits) {
        if (p != kNone && var_of(q) == var_of(p)) continue;
        const uint32_t v = var_of(q);
        if (seen_[v] || level_[v] == 0) continue;
        seen_[v] = 1;
        bump(v);
        if (level_[v] == level()) ++path;
        else learnt_.push_back(q);
      }
      while (!seen_[var_of(trail_[--idx])]) {
      }
      p = trail_[idx];
      seen_[var_of(p)] = 0;
      if (--path == 0) break;
      const uint32_t c = reason_[var_of(p)];
      lits.assign(&lits_[clause_begin_[c]], &lits_[clause_begin_[c]] + clause_size(c));
    }
    learnt_[0] = negate(p);
    for (size_t i = 1; i < learnt_.size(); ++i) seen_[var_of(learnt_[i])] = 0;
    uint32_t back = 0;
    if (learnt_.size() > 1) {
      size_t best = 1;
      for (size_t i = 2; i < learnt_.size(); ++i)
        if (level_[var_of(learnt_[i])] > level_[var_of(learnt_[best])]) best = i;
      std::swap(learnt_[1], learnt_[best]);
      back = level_[var_of(learnt_[1])];
    }
    var_inc_ /= 0.95;
    return back;
  }

  void backtrack(uint32_t lvl) {
    if (level() <= lvl) return;
    const size_t keep = trail_lim_[lvl];
    if (keep < qhead_) {
      const size_t target = edge_mark_[keep];
      while (graph_.added() > target) graph_.pop();
      qhead_ = keep;
    }
    for (size_t i = trail_.size(); i-- > keep;) {
      const uint32_t v = var_of(trail_[i]);
      value_[v] = -1;
      reason_[v] = kNone;
      if (heap_pos_[v] == kNone) heap_insert(v);
    }
    trail_.resize(keep);
    trail_lim_.resize(lvl);
  }

  // The edge of l (its own, or one it guards whose other literal is true) that would close a
  // cycle, or kNone; the cycle is left in graph_.cycle_refs.
  uint32_t closing_cycle(Lit l) {
    for (uint32_t e = edge_begin_[l]; e < edge_begin_[l + 1]; ++e) {
      if (const Lit g = guard_of(e); g != kNone && !is_true(g)) continue;
      if (graph_.closes_cycle(edges_[e].from, edges_[e].to)) return e;
    }
    if (!guarded_begin_.empty())
      for (uint32_t i = guarded_begin_[l]; i < guarded_begin_[l + 1]; ++i) {
        const uint32_t e = guarded_[i];
        if (is_true(edge_lit_[e]) && graph_.closes_cycle(edges_[e].from, edges_[e].to)) return e;
      }
    return kNone;
  }
  // The reason clause of `implied` (the negation of l) from edge e of l and the cycle in
  // graph_.cycle_refs: implied first, then the negations of e's other literal and of the
  // cycle's literals, the one assigned last (highest level) second.
  uint32_t add_reason(Lit implied, uint32_t e) {
    learnt_.assign(1, implied);
    scratch_.clear();
    edge_lits(e, scratch_);
    for (uint32_t ref : graph_.cycle_refs)
      if (ref != kKnownEdge) edge_lits(ref, scratch_);
    for (Lit q : scratch_)
      if (q != negate(implied)) learnt_.push_back(negate(q));
    std::sort(learnt_.begin() + 1, learnt_.end());
    learnt_.erase(std::unique(learnt_.begin() + 1, learnt_.end()), learnt_.end());
    mark_core(e);
    if (learnt_.size() == 1) return kNone;  // known edges alone: a fact
    size_t best = 1;
    for (size_t i = 2; i < learnt_.size(); ++i)
      if (level_[var_of(learnt_[i])] > level_[var_of(learnt_[best])]) best = i;
    std::swap(learnt_[1], learnt_[best]);
    return add_learnt();
  }

  uint32_t add_learnt() {
    const uint32_t c = static_cast<uint32_t>(clause_begin_.size());
    clause_begin_.push_back(lits_.size());
    lits_.insert(lits_.end(), learnt_.begin(), learnt_.end());
    watches_[learnt_[0]].push_back(c);
    watches_[learnt_[1]].push_back(c);
    return c;
  }

  // The phase of a decision: a choice variable's preference (the current choice), else the
  // literal whose edges agree with the current order.
  Lit phase(uint32_t v) {
    if (prefer_[v] >= 0) return prefer_[v] ? 2 * v : 2 * v + 1;
    auto forward_edges = [&](Lit l) {
      uint32_t bad = 0;
      for (uint32_t e = edge_begin_[l]; e < edge_begin_[l + 1]; ++e)
        bad += graph_.ord(edges_[e].from) > graph_.ord(edges_[e].to);
      return bad;
    };
    const uint32_t pos = forward_edges(2 * v), neg = forward_edges(2 * v + 1);
    return pos <= neg ? 2 * v : 2 * v + 1;
  }

  Verdict search() {
    uint64_t restart_at = 100, luby_index = 0, conflicts_here = 0;
    double last_progress = now_ms();
    while (true) {
      if (!propagate()) {
        ++conflicts_;
        ++conflicts_here;
        if (level() == 0) return Verdict::Fail;
        const uint32_t back = analyze();
        backtrack(back);
        if (learnt_.size() == 1) {
          assign(learnt_[0], kNone);
        } else {
          assign(learnt_[0], add_learnt());
        }
        continue;
      }
      if ((++steps_ & 255) == 0) {
        if (budget_.expired()) return Verdict::Unknown;
        const double now = now_ms();
        if (now - last_progress > 50) {
          last_progress = now;
          // In choices (variables): those the search has settled now, and the rest.
          budget_.report_progress(trail_.size(), num_vars_ - trail_.size());
        }
      }
      if (conflicts_here >= restart_at) {
        conflicts_here = 0;
        restart_at = 100 * luby(++luby_index);
        ++restarts_;
        backtrack(0);
        continue;
      }
      uint32_t v = kNone;
      while (!heap_.empty()) {
        const uint32_t top = heap_pop();
        if (value_[top] < 0) {
          v = top;
          break;
        }
      }
      if (v == kNone) return Verdict::Pass;
      if (hyper_) v = choice_decision(v);
      const Lit l = phase(v);
      if (const uint32_t e = closing_cycle(l); e != kNone) {
        // Theory propagation: l's edge would close a cycle of true literals' edges, so its
        // negation holds; the reason is the clause "not l, or not one of the cycle's literals"
        // (a cycle of known edges alone makes it a fact, asserted at level 0).
        const uint32_t reason = add_reason(negate(l), e);
        if (reason == kNone) backtrack(0);
        assign(negate(l), reason);
        continue;
      }
      ++decisions_;
      trail_lim_.push_back(trail_.size());
      assign(l, kNone);
    }
  }

  // A decision on a read's candidate while none of its candidates is true decides instead that
  // it reads from one: its current choice, else the candidate last before it in the current
  // order (else the first one free). The read's "another" literal is then only ever implied,
  // never guessed.
  uint32_t choice_decision(uint32_t v) {
    const uint32_t r = v >= num_pairs_ && v < num_pairs_ + cand_var_count_ ? cand_read_of_var(v) : kNone;
    if (r == kNone) return v;
    const Hyper::Read& rd = hyper_->reads[r];
    uint32_t pick = kNone, best = kNone;
    for (uint32_t ci = rd.cbeg; ci < rd.cbeg + rd.expanded; ++ci) {
      const uint32_t u = cand_var_[ci];
      if (value_[u] == 1) {  // it reads from one already: v goes false
        prefer_[v] = 0;
        return v;
      }
      if (value_[u] >= 0) continue;
      if (ci == rd.chosen) pick = u;
      const uint32_t o = graph_.ord(hyper_->cands[ci]);
      if (pick == kNone && o < graph_.ord(rd.reader) && (best == kNone || o > graph_.ord(va_[best]))) best = u;
    }
    if (pick == kNone) pick = best != kNone ? best : v;
    if (pick != v) heap_insert(v);
    prefer_[pick] = 1;
    return pick;
  }
  uint32_t cand_read_of_var(uint32_t v) const { return var_read_[v - num_pairs_]; }

  // Each ambiguous read reads from one of its candidates (or, not all here yet, another): at
  // least one literal of each holds (more than one only adds edges, so "exactly" is not
  // needed). False when a read has no candidate left (cannot happen: one is always here).
  bool add_read_clauses() {
    if (!hyper_) return true;
    for (uint32_t r = 0; r < hyper_->reads.size(); ++r) {
      const Hyper::Read& rd = hyper_->reads[r];
      learnt_.clear();
      for (uint32_t ci = rd.cbeg; ci < rd.cbeg + rd.expanded; ++ci) learnt_.push_back(2 * cand_var_[ci]);
      if (other_var_[r] != kNone) learnt_.push_back(2 * other_var_[r]);
      if (learnt_.empty()) return false;
      if (learnt_.size() == 1) {
        if (value_[var_of(learnt_[0])] < 0) assign(learnt_[0], kNone);
      } else {
        add_learnt();
      }
    }
    return true;
  }
  // The solution's choice of each read: its current one when still true, else the first true
  // candidate, else kNone (it reads from one not yet here).
  void read_choices() {
    for (Hyper::Read& rd : hyper_->reads) {
      if (rd.chosen != kNone && value_[cand_var_[rd.chosen]] == 1) continue;
      rd.chosen = kNone;
      for (uint32_t ci = rd.cbeg; ci < rd.cbeg + rd.expanded && rd.chosen == kNone; ++ci)
        if (value_[cand_var_[ci]] == 1) rd.chosen = ci;
    }
  }

  static uint64_t luby(uint64_t i) {
    // 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ...
    uint64_t size = 1, seq = 0;
    while (size < i + 1) size = 2 * size + 1, ++seq;
    while (size - 1 != i) {
      size = (size - 1) >> 1;
      --seq;
      i %= size;
    }
    return uint64_t(1) << seq;
  }

  // VSIDS.
  void bump(uint32_t v) {
    if ((activity_[v] += var_inc_) > 1e100) {
      for (double& a : activity_) a *= 1e-100;
      var_inc_ *= 1e-100;
    }
    if (heap_pos_[v] != kNone) sift_up(heap_pos_[v]);
  }
  // Ties (every variable before its first conflict) go to the choice between the nodes that
  // come first in the initial order: ordering the history from its beginning on, each choice
  // then usually agrees with the edges already placed.
  bool before(uint32_t a, uint32_t b) const {
    return activity_[a] != activity_[b] ? activity_[a] > activity_[b] : first_[a] < first_[b];
  }
  void heap_insert(uint32_t v) {
    heap_pos_[v] = static_cast<uint32_t>(heap_.size());
    heap_.push_back(v);
    sift_up(heap_pos_[v]);
  }
  uint32_t heap_pop() {
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

  const Problem& p_;
  const Saturation& sat_;
  const CheckBudget& budget_;
  Hyper* hyper_;
  TopoGraph graph_;
  uint32_t num_vars_ = 0, num_pairs_ = 0;
  std::vector<uint32_t> cand_read_, cand_var_, other_var_;  // Hyper: candidate / read -> var
  std::vector<uint32_t> var_read_;  // candidate var (less num_pairs_) -> read
  uint32_t cand_var_count_ = 0;
  std::vector<Lit> edge_guard_;                      // per edge (empty without guarded edges)
  std::vector<uint32_t> guarded_begin_, guarded_;    // guarded edges of each literal
  std::vector<uint32_t> pos_;                        // trail index of each assigned var
  std::vector<int8_t> prefer_;                       // choice vars: the preferred value
  std::vector<Lit> scratch_;
  std::vector<uint32_t> va_, vb_, first_;
  std::vector<uint32_t> edge_begin_;
  std::vector<LitEdge> edges_;
  std::vector<Lit> edge_lit_;
  std::vector<int8_t> value_;
  std::vector<uint32_t> level_, reason_, heap_pos_, heap_;
  std::vector<double> activity_;
  std::vector<char> seen_, core_;
  double var_inc_ = 1;
  std::vector<Lit> trail_;
  std::vector<size_t> trail_lim_, edge_mark_;
  size_t qhead_ = 0;
  std::vector<size_t> clause_begin_;
  std::vector<Lit> lits_, conflict_, learnt_;
  std::vector<std::vector<uint32_t>> watches_;
  uint64_t restarts_ = 0, conflicts_ = 0, decisions_ = 0, steps_ = 0;
};

}  // namespace

SolveResult solve(const Problem& p, const Saturation& sat, const CheckBudget& budget, Hyper* hyper) {
  return Solver(p, sat, budget, hyper).run();
}

}  // namespace isoscope::strong
