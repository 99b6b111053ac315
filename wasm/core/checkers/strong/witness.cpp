// Witnesses of strong violations: a saturation cycle mapped back to the history's
// transactions, or (when only the search proves the violation) a minimal violating core; both
// named where they match a known anomaly (LostUpdate, WriteSkew, LongFork, G-single, G2, ...).
#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>

#include "model/anomaly_kinds.h"
#include "checkers/explain.h"
#include "checkers/cycle_names.h"
#include "checkers/strong/internal.h"
#include "graph/digraph.h"
#include "util/flat_map.h"

namespace isoscope::strong {

namespace {


uint32_t common_written_key(const Instance& in, uint32_t a, uint32_t b) {
  for (uint32_t i = in.wbeg[a]; i < in.wbeg[a + 1]; ++i)
    for (uint32_t j = in.wbeg[b]; j < in.wbeg[b + 1]; ++j)
      if (in.wkeys[i] == in.wkeys[j]) return in.wkeys[i];
  return kNone;
}

// The known edges as a graph whose adjacency lists are sorted by target, then by edge index:
// whether u -> v is known, and its earliest edge, is a binary search. (A counting sort by
// target, then the builder's stable counting sort by source: linear time.)
struct KnownGraph {
  Digraph g;
  KnownGraph(const Saturation& sat, uint32_t n) {
    const std::vector<Problem::Edge>& E = sat.edges;
    std::vector<uint32_t> at(static_cast<size_t>(n) + 1, 0), by_target(E.size());
    for (const Problem::Edge& e : E) ++at[e.to + 1];
    for (uint32_t v = 0; v < n; ++v) at[v + 1] += at[v];
    for (uint32_t i = 0; i < E.size(); ++i) by_target[at[E[i].to]++] = i;
    DigraphBuilder b(n);
    b.reserve(E.size());
    for (uint32_t i : by_target) b.add(E[i].from, E[i].to, i);
    g = b.build();
  }
  // The earliest known edge u -> v, or kNone.
  uint32_t earliest(uint32_t u, uint32_t v) const {
    const auto first = g.targets.begin() + g.begin(u), last = g.targets.begin() + g.end(u);
    const auto it = std::lower_bound(first, last, v);
    return it != last && *it == v ? g.tags[static_cast<size_t>(it - g.targets.begin())] : kNone;
  }
};

// Shortest paths over a prefix of the known edges (the ones known when an edge was forced),
// with buffers reused from one search to the next.
class PathFinder {
 public:
  PathFinder(const Saturation& sat, const Digraph& g) : sat_(sat), g_(g), via_(g.n, kNone), stamp_(g.n, 0) {}
  // The shortest path from `from` to `to` over the first `basis` edges, as edge indexes (empty
  // when there is none, or from == to). False when it gave up after max_visits edges.
  bool find(uint32_t from, uint32_t to, uint32_t basis, size_t max_visits, std::vector<uint32_t>& path) {
    path.clear();
    if (++epoch_ == 0) std::fill(stamp_.begin(), stamp_.end(), 0), epoch_ = 1;
    queue_.assign(1, from);
    stamp_[from] = epoch_;
    size_t visits = 0;
    for (size_t qi = 0; qi < queue_.size() && stamp_[to] != epoch_; ++qi) {
      const uint32_t u = queue_[qi];
      for (uint32_t e = g_.begin(u); e < g_.end(u); ++e) {
        if (++visits > max_visits) return false;
        const uint32_t v = g_.targets[e], idx = g_.tags[e];
        if (idx >= basis || stamp_[v] == epoch_) continue;
        stamp_[v] = epoch_;
        via_[v] = idx;
        queue_.push_back(v);
      }
    }
    if (stamp_[to] != epoch_ || from == to) return true;
    for (uint32_t v = to; v != from; v = sat_.edges[via_[v]].from) path.push_back(via_[v]);
    std::reverse(path.begin(), path.end());
    return true;
  }

 private:
  const Saturation& sat_;
  const Digraph& g_;
  std::vector<uint32_t> via_, stamp_, queue_;
  uint32_t epoch_ = 0;
};

// The path of known orderings that rules out the alternative of a forced edge (the one it would
// close into a cycle), as its two end nodes; kNone when the edge needs none (not forced, or a
// read of the initial value).
std::pair<uint32_t, uint32_t> justification(const Problem& p, const Problem::Edge& E) {
  constexpr std::pair<uint32_t, uint32_t> none{kNone, kNone};
  if (E.basis == kNone) return none;
  switch (E.type) {
    case EdgeType::RW: return E.a == 0 ? none : std::pair(E.a, E.to);  // E.a: the writer read
    case EdgeType::WW: return {E.from, E.a};                            // E.a: the reader
    case EdgeType::CO: return p.part[E.to] == Part::Read ? std::pair(E.from, E.a) : std::pair(E.from - 1, E.to);
    default: return none;
  }
}

// How many transactions a witness of this cycle names: the cycle's and those of the paths
// that explain its forced edges (a path not found within the visit cap counts as long).
size_t witness_size(const Problem& p, const Saturation& sat, PathFinder& paths, const std::vector<uint32_t>& cycle) {
  std::vector<uint32_t> txns, path;
  size_t extra = 0;
  for (uint32_t ei : cycle) {
    const Problem::Edge& E = sat.edges[ei];
    txns.push_back(p.txn[E.from]);
    if (E.type == EdgeType::WW) txns.push_back(p.txn[E.a]);
    const auto [from, to] = justification(p, E);
    if (from == kNone) continue;
    if (!paths.find(from, to, E.basis, size_t(1) << 16, path)) {
      extra += 1000;
      continue;
    }
    for (uint32_t pi : path) txns.push_back(p.txn[sat.edges[pi].from]), txns.push_back(p.txn[sat.edges[pi].to]);
  }
  std::sort(txns.begin(), txns.end());
  return static_cast<size_t>(std::unique(txns.begin(), txns.end()) - txns.begin()) + extra;
}

// Orderings one step beyond saturation, from the edges its last round forced (saturation stops
// at the round whose edges close a cycle; every earlier edge has forced what it forces), or
// from every edge when the cycle came before any round.
// Anti-dependencies: t3 reads x from t1, t2 writes x, and a last-round edge t1 -> t2, so t3 must
// read before t2 commits. SI's conflicts: w1 and w2 write a common key and R_w1 -> W_w2 is a
// last-round edge, so W_w1 must commit before W_w2. Appended to sat.edges with all of its
// edges as their basis (so a pair may repeat an edge: harmless); at most a budget of steps.
void derive_one_step(const Problem& p, Saturation& sat) {
  std::vector<Problem::Edge>& E = sat.edges;
  const auto basis = static_cast<uint32_t>(E.size());
  uint32_t last = 0;  // where the last round's edges begin (0: the cycle needed no round)
  for (const Problem::Edge& e : E)
    if (e.basis != kNone) last = std::max(last, e.basis);
  const ReadsByWriter rw(p);
  const size_t budget = 2 * static_cast<size_t>(basis - last) + (size_t(1) << 18);
  size_t steps = 0;
  FlatMap64 added;  // (from, to) of the edges derived here: each once
  auto add = [&](const Problem::Edge& e) {
    const size_t before = added.size();
    added.insert((uint64_t(e.from) << 32) | e.to, 1);
    if (added.size() > before) E.push_back(e);
  };
  for (uint32_t ei = last; ei < basis && steps < budget; ++ei) {
    const uint32_t t1 = E[ei].from, t2 = E[ei].to;
    if (t1 == 0 || p.txn[t1] == p.txn[t2]) continue;
    for (uint32_t k = rw.beg[t1]; k < rw.beg[t1 + 1] && steps < budget; ++k) {
      ++steps;
      const Problem::Read& r = p.reads[rw.reads[k]];
      const uint32_t t3 = sat.reader[rw.reads[k]];
      if (p.txn[t3] != p.txn[t2] && p.writes(t2, r.key)) add({t3, t2, EdgeType::RW, r.key, t1, r.op, basis});
    }
    if (p.si && p.part[t1] == Part::Read && p.part[t2] == Part::Write) {
      const uint32_t w1 = t1 + 1;
      bool common = false;
      for (uint32_t i = p.wbeg[w1]; i < p.wbeg[w1 + 1] && !common; ++i, ++steps) common = p.writes(t2, p.wkeys[i]);
      if (common) add({w1, t2, EdgeType::CO, kNone, t2 - 1, kNone, basis});
    }
  }
}

}  // namespace

namespace {

// shortest_known_cycle over sat.edges as they are (known: their graph); witness: the chosen
// cycle's witness_size.
std::vector<uint32_t> best_known_cycle(const Problem& p, const Saturation& sat, const KnownGraph& known,
                                       size_t& witness, uint32_t& length) {
  const std::vector<Problem::Edge>& E = sat.edges;
  const uint32_t n = p.n;
  const Digraph& g = known.g;
  uint32_t count = 0;
  const std::vector<uint32_t> comp = strongly_connected_components(g, count);
  std::vector<uint32_t> size(count, 0);
  for (uint32_t u = 0; u < n; ++u) ++size[comp[u]];
  // An edge between two halves of one transaction (read -> write) counts nothing; the only such
  // edges are the chain's, from a read half to the next node.
  auto weight = [&](uint32_t from, uint32_t to) -> uint32_t { return p.txn[from] != p.txn[to]; };
  auto write_half = [&](uint32_t u) { return p.part[u] == Part::Read ? u + 1 : kNone; };

  // Every cycle of two transactions, u ->0* z -> v ->0* w -> u (one edge out of each
  // transaction, the halves joined by their chain edge): one look-up per edge and half.
  constexpr size_t kCandidates = 16;
  std::vector<std::vector<uint32_t>> pairs;
  for (uint32_t u = 0; u < n && pairs.size() < kCandidates; ++u) {
    if (size[comp[u]] < 2) continue;
    for (const uint32_t z : {u, write_half(u)}) {
      if (z == kNone) continue;
      for (uint32_t e = g.begin(z); e < g.end(z) && pairs.size() < kCandidates; ++e) {
        const uint32_t v = g.targets[e];
        if (comp[v] != comp[u] || !weight(z, v) || p.txn[v] < p.txn[u]) continue;  // each pair once
        for (const uint32_t w : {v, write_half(v)}) {
          if (w == kNone) continue;
          const uint32_t back = known.earliest(w, u);
          if (back == kNone) continue;
          std::vector<uint32_t> c;
          if (z != u) c.push_back(known.earliest(u, z));
          c.push_back(g.tags[e]);
          if (w != v) c.push_back(known.earliest(v, w));
          c.push_back(back);
          pairs.push_back(std::move(c));
          break;
        }
      }
    }
  }
  // Longer cycles: from each node of a cyclic component, a 0-1 breadth-first search for the
  // shortest cycles back to it (no longer than the best so far), within a budget of edge visits
  // (the first search always completes: its component holds a cycle through its start).
  constexpr size_t kLonger = 8;
  const size_t budget = 8 * E.size() + (size_t(1) << 20);
  size_t visits = 0;
  uint32_t best_len = kNone;
  std::vector<std::vector<uint32_t>> longer;
  std::vector<uint32_t> dist(n, kNone), stamp(n, 0), via(n, kNone);
  std::deque<uint32_t> dq;
  auto searching = [&] { return longer.empty() || (visits < budget && (best_len > 3 || longer.size() < kLonger)); };
  for (uint32_t u = 0, epoch = 1; u < n && searching(); ++u) {
    if (size[comp[u]] < 2) continue;
    ++epoch;
    dq.assign(1, u);
    stamp[u] = epoch;
    dist[u] = 0;
    while (!dq.empty() && searching()) {
      const uint32_t x = dq.front();
      dq.pop_front();
      const uint32_t d = dist[x];
      if (d > best_len) break;
      for (uint32_t e = g.begin(x); e < g.end(x); ++e) {
        ++visits;
        const uint32_t y = g.targets[e];
        if (comp[y] != comp[u]) continue;
        const uint32_t nd = d + weight(x, y);
        if (nd > best_len) continue;
        if (y == u) {
          if (nd < best_len) longer.clear(), best_len = nd;
          if (longer.size() >= kLonger) continue;
          std::vector<uint32_t> c = {g.tags[e]};
          for (uint32_t v = x; v != u; v = E[via[v]].from) c.push_back(via[v]);
          std::reverse(c.begin(), c.end());
          longer.push_back(std::move(c));
          continue;
        }
        if (stamp[y] == epoch && dist[y] <= nd) continue;
        stamp[y] = epoch;
        dist[y] = nd;
        via[y] = g.tags[e];
        if (nd == d) dq.push_front(y);
        else dq.push_back(y);
      }
    }
  }
  // The smallest counterexample: fewest transactions named (the cycle's and those that explain
  // its edges), then the shortest cycle.
  PathFinder paths(sat, g);
  std::vector<uint32_t> best;
  size_t best_size = SIZE_MAX, best_cycle = SIZE_MAX;
  for (const auto* list : {&pairs, &longer})
    for (const std::vector<uint32_t>& c : *list) {
      const size_t len = list == &pairs ? 2 : best_len, w = witness_size(p, sat, paths, c);
      if (w < best_size || (w == best_size && len < best_cycle)) best = c, best_size = w, best_cycle = len;
    }
  witness = best_size;
  length = static_cast<uint32_t>(best_cycle);
  return best;
}

// shortest_known_cycle, with the graph of the edges in the end.
std::vector<uint32_t> witness_cycle(const Problem& p, Saturation& sat, std::unique_ptr<KnownGraph>& known) {
  known = std::make_unique<KnownGraph>(sat, p.n);
  for (uint32_t i = 0; i < sat.edges.size(); ++i)
    if (sat.edges[i].from == sat.edges[i].to) return {i};
  size_t witness = 0;
  uint32_t length = 0;
  std::vector<uint32_t> best = best_known_cycle(p, sat, *known, witness, length);
  // A two-transaction cycle explained by direct orderings (at most its two writers besides):
  // nothing smaller to look for. Otherwise one more step of saturation may close a shorter
  // cycle, or one with shorter explanations.
  if (length <= 2 && witness <= 4) return best;
  const size_t before = sat.edges.size();
  derive_one_step(p, sat);
  if (sat.edges.size() == before) return best;
  known = std::make_unique<KnownGraph>(sat, p.n);
  size_t w2 = 0;
  uint32_t l2 = 0;
  std::vector<uint32_t> again = best_known_cycle(p, sat, *known, w2, l2);
  return !again.empty() && (w2 < witness || (w2 == witness && l2 < length)) ? again : best;
}

}  // namespace

std::vector<uint32_t> shortest_known_cycle(const Problem& p, Saturation& sat) {
  std::unique_ptr<KnownGraph> known;
  return witness_cycle(p, sat, known);
}

Anomaly cycle_anomaly(const Instance& in, const Problem& p, Saturation& sat, Level level) {
  const History& h = *in.h;
  Anomaly a;
  auto T = [&](uint32_t node) { return in.orig[p.txn[node]]; };
  // Why the alternative of a forced edge is impossible: the path of known orderings it would
  // close into a cycle, in words, with its transactions added to the witness.
  std::unique_ptr<KnownGraph> known;
  const std::vector<uint32_t> cycle = witness_cycle(p, sat, known);  // may add derived edges
  PathFinder paths(sat, known->g);
  std::vector<uint32_t> context;
  auto explain_path = [&](const Problem::Edge& E) {
    const auto [from_node, to_node] = justification(p, E);
    std::vector<uint32_t> path;
    if (from_node != kNone) paths.find(from_node, to_node, E.basis, SIZE_MAX, path);
    std::string s;
    for (uint32_t ei : path) {
      const Problem::Edge& P = sat.edges[ei];
      const uint32_t u = T(P.from), v = T(P.to);
      if (u == v) continue;  // read half -> write half
      if (s.empty()) s = short_name(h, u);
      context.push_back(u);
      context.push_back(v);
      const std::string X = P.key == kNone ? std::string() : " " + h.keys.display(P.key);
      const char* what = P.type == EdgeType::SO ? "session order" : P.type == EdgeType::WR ? "reads"
                         : P.type == EdgeType::RT ? "real time" : P.type == EdgeType::CO ? "write conflict"
                         : P.type == EdgeType::WW ? (h.has_lists ? "writes after" : "overwrites") : "anti-dependency on";
      s += " -> " + short_name(h, v) + " (" + what + (P.type == EdgeType::SO || P.type == EdgeType::RT || P.type == EdgeType::CO ? "" : X) + ")";
    }
    return s;
  };
  for (uint32_t ei : cycle) {
    const Problem::Edge& E = sat.edges[ei];
    const uint32_t from = T(E.from), to = T(E.to);
    if (from == to && E.from != E.to) continue;  // read half -> write half of one transaction
    AnomalyEdge ed;
    ed.from_txn = from;
    ed.to_txn = to;
    ed.type = E.type;
    ed.key = E.key;
    const std::string F = h.txn_name(from), Tn = h.txn_name(to);
    switch (E.type) {
      case EdgeType::SO:
        ed.why = session_order_why(h, from, to);
        break;
      case EdgeType::WR:
        ed.from_op = h.read_from[E.a] < kThinAir ? h.read_from[E.a] : kNone;
        ed.to_op = E.a;
        ed.why = reads_from_why(h, E.a, from);
        a.ops.push_back(E.a);
        break;
      case EdgeType::RT:
        ed.why = real_time_why(h, from, to);
        break;
      case EdgeType::RW: {
        // from (t3) reads key from t1 = E.a; to (t2) overwrites it.
        const uint32_t t1 = T(E.a);
        ed.from_op = E.b;
        ed.to_op = h.last_write_of(to, E.key);
        a.ops.push_back(E.b);
        // Forced: the alternative, Tn's write before t1's, would close a cycle with the known
        // orderings from t1 to Tn.
        const std::string path = explain_path(E);
        // a list is extended, not overwritten: the read's list misses Tn's append
        const bool appends = ed.to_op != kNone && h.ops[ed.to_op].kind == OpKind::Append;
        ed.why = F + " reads " + h.read_text(E.b, t1) + ", which " + Tn +
                 (appends ? " extends (its append is not in that list)" : " overwrites") +
                 (t1 == kInitialTxn
                      ? std::string(": so " + F + " must commit before " + Tn)
                      : ", and " + h.txn_name(t1) + " must commit before " + Tn +
                            (path.empty() ? std::string() : " (" + path + ")") + ": so " + F +
                            " must read before " + Tn + " commits (anti-dependency)");
        break;
      }
      case EdgeType::WW: {
        // from (t2) writes key; to (t1) wrote what t3 = E.a read.
        const uint32_t t3 = T(E.a);
        ed.from_op = h.last_write_of(from, E.key);
        ed.to_op = h.last_write_of(to, E.key);
        a.ops.push_back(E.b);
        // Forced: the alternative, t3 reading before F commits, would close a cycle with the
        // known orderings from F to t3.
        context.push_back(t3);
        if (E.basis == kNone && h.ops[E.b].kind == OpKind::ListRead) {  // a list's order (problem.cpp)
          const ListSpan& l = h.lists[h.ops[E.b].list];
          const uint32_t* vals = h.list_values.data() + l.begin;
          const bool shown = ed.to_op != kNone && std::find(vals, vals + l.size, h.ops[ed.to_op].value) != vals + l.size;
          ed.why = h.txn_name(t3) + " reads " + h.op_text(E.b) + ", in which " + F + "'s append comes " +
                   (shown ? "before " + Tn + "'s" : "and " + Tn + "'s does not (it comes after every one shown)") +
                   ": so " + F + " must commit before " + Tn;
          break;
        }
        const std::string path = explain_path(E);
        ed.why = h.txn_name(t3) + " reads " + h.read_text(E.b, to) + ", and " + F +
                 " also writes " + h.keys.display(E.key) + " and must commit before " +
                 h.txn_name(t3) + " reads" + (path.empty() ? std::string() : " (" + path + ")") +
                 ": so " + F + "'s write must come before " + Tn + "'s";
        break;
      }
      case EdgeType::CO: {
        const uint32_t key = common_written_key(in, p.txn[E.from], p.txn[E.to]);
        ed.key = key;
        const std::string X = key == kNone ? std::string("a common key") : h.keys.display(key);
        // Forced: the other order is ruled out by known orderings (the path it would close).
        const std::string path = explain_path(E);
        const std::string because = path.empty() ? std::string() : " (" + path + ")";
        if (p.part[E.to] == Part::Read)
          ed.why = F + " and " + Tn + " both write " + X +
                   " (snapshot isolation: one must see the other), and " + Tn +
                   " cannot commit first" + because + ": so " + F + " must commit before " + Tn +
                   " takes its snapshot";
        else
          ed.why = F + " and " + Tn + " both write " + X +
                   " (snapshot isolation: one must see the other), and " + Tn +
                   " cannot commit before " + F + " takes its snapshot" + because + ": so " + F +
                   " must commit before " + Tn;
        break;
      }
    }
    a.txns.push_back(from);
    a.edges.push_back(std::move(ed));
  }
  a.kind = classify_cycle(h, a.edges);
  for (uint32_t t : context)
    if (std::find(a.txns.begin(), a.txns.end(), t) == a.txns.end()) a.txns.push_back(t);
  a.explanation = cycle_explanation(h, a.edges, std::string(" under ") + level_name(level));
  return a;
}

Anomaly core_anomaly(const Instance& core, Level level, const CheckBudget& budget, bool minimal) {
  const History& h = *core.h;
  // A small core usually fails saturation already: the cycle explains it best.
  StrongOptions opts;
  opts.minimize = false;
  Decision d = decide(core, level, opts, budget);
  Anomaly a;
  const std::string count = std::to_string(core.n() - 1);
  const std::string core_text =
      std::string(minimal ? "a minimal" : "a") + " core of " + count +
      " transactions that violates " + level_name(level) + " on its own" +
      (minimal ? " (without any one of them it does not)" : "");
  if (d.verdict == Verdict::Fail && d.sat.outcome == Saturation::Cycle) {
    a = cycle_anomaly(core, d.problem, d.sat, level);
    a.txns.clear();
    for (uint32_t t = 1; t < core.n(); ++t) a.txns.push_back(core.orig[t]);
    a.explanation += ". The transactions involved form " + core_text;
    return a;
  }
  // No cycle among forced orderings: list the core's dependencies.
  for (uint32_t t = 1; t < core.n(); ++t) {
    a.txns.push_back(core.orig[t]);
    if (t > core.sess_begin[core.session[t]])
      a.edges.push_back(session_order_edge(h, core.orig[t - 1], core.orig[t]));
    for (uint32_t i = core.rbeg[t]; i < core.rbeg[t + 1]; ++i) {
      const Instance::Read& r = core.reads[i];
      a.ops.push_back(r.op);
      a.edges.push_back(reads_from_edge(h, core.orig[r.writer], r.op));
    }
  }
  const uint32_t m = core.n() - 1;
  if (level == Level::SSER)
    a.kind = AnomalyKind::RealTimeViolation;
  else if (level == Level::SER && m == 2)
    a.kind = AnomalyKind::WriteSkew;
  else if (level == Level::SI && m == 2)
    a.kind = AnomalyKind::LostUpdate;
  else if (level == Level::PC && m == 4)
    a.kind = AnomalyKind::LongFork;
  else
    a.kind = violation_of(level);
  std::string s = "These transactions form " + core_text + ": ";
  for (size_t i = 0; i < a.edges.size(); ++i) s += (i ? "; " : "") + a.edges[i].why;
  s += std::string(". No commit order of them satisfies ") + level_name(level) +
       " (every order was ruled out by an exhaustive search)";
  a.explanation = std::move(s);
  return a;
}

}  // namespace isoscope::strong
