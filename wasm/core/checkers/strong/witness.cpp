// Witnesses of strong violations: a saturation cycle mapped back to the history's
// transactions, or (when only the search proves the violation) a minimal violating core; both
// named where they match a known anomaly (LostUpdate, WriteSkew, LongFork, G-single, G2, ...).
#include <algorithm>
#include <cmath>

#include "model/anomaly_kinds.h"
#include "checkers/explain.h"
#include "checkers/cycle_names.h"
#include "checkers/strong/internal.h"
#include "graph/digraph.h"

namespace isoscope::strong {

namespace {


uint32_t common_written_key(const Instance& in, uint32_t a, uint32_t b) {
  for (uint32_t i = in.wbeg[a]; i < in.wbeg[a + 1]; ++i)
    for (uint32_t j = in.wbeg[b]; j < in.wbeg[b + 1]; ++j)
      if (in.wkeys[i] == in.wkeys[j]) return in.wkeys[i];
  return kNone;
}

// The shortest path from `from` to `to` over saturation's first `basis` edges (the ones known
// when an edge was forced), as edge indexes; empty when there is none.
std::vector<uint32_t> known_path(const Saturation& sat, const Digraph& g, uint32_t from, uint32_t to,
                                 uint32_t basis) {
  std::vector<uint32_t> via(g.n, kNone);  // the edge index that reached each node
  std::vector<char> seen(g.n, 0);
  std::vector<uint32_t> queue = {from};
  seen[from] = 1;
  for (size_t qi = 0; qi < queue.size() && !seen[to]; ++qi) {
    const uint32_t u = queue[qi];
    for (uint32_t e = g.begin(u); e < g.end(u); ++e) {
      const uint32_t v = g.targets[e], idx = g.tags[e];
      if (idx >= basis || seen[v]) continue;
      seen[v] = 1;
      via[v] = idx;
      queue.push_back(v);
    }
  }
  std::vector<uint32_t> path;
  if (!seen[to] || from == to) return path;
  for (uint32_t v = to; v != from; v = sat.edges[via[v]].from) path.push_back(via[v]);
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace

Anomaly cycle_anomaly(const Instance& in, const Problem& p, const Saturation& sat, Level level) {
  const History& h = *in.h;
  Anomaly a;
  auto T = [&](uint32_t node) { return in.orig[p.txn[node]]; };
  // Why the alternative of a forced edge is impossible: the path of known orderings it would
  // close into a cycle, in words, with its transactions added to the witness.
  DigraphBuilder gb(p.n);
  for (uint32_t i = 0; i < sat.edges.size(); ++i) gb.add(sat.edges[i].from, sat.edges[i].to, i);
  const Digraph g = gb.build();
  std::vector<uint32_t> context;
  auto explain_path = [&](uint32_t from_node, uint32_t to_node, uint32_t basis) {
    const std::vector<uint32_t> path = known_path(sat, g, from_node, to_node, basis);
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
  for (uint32_t ei : sat.cycle) {
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
        const std::string path = t1 == kInitialTxn || E.basis == kNone ? std::string() : explain_path(E.a, E.to, E.basis);
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
        const std::string path = E.basis == kNone ? std::string() : explain_path(E.from, E.a, E.basis);
        context.push_back(t3);
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
        std::string path;
        if (E.basis != kNone)
          path = p.part[E.to] == Part::Read ? explain_path(E.from, E.a, E.basis) : explain_path(E.from - 1, E.to, E.basis);
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
  a.kind = kind_name(classify_cycle(h, a.edges));
  for (uint32_t t : context)
    if (std::find(a.txns.begin(), a.txns.end(), t) == a.txns.end()) a.txns.push_back(t);
  std::string s;
  for (size_t i = 0; i < a.edges.size(); ++i) {
    const AnomalyEdge& ed = a.edges[i];
    if (i) s += "; ";
    if (i + 1 == a.edges.size() && a.edges.size() > 1) s += "however ";
    s += short_name(h, ed.from_txn) + " < " + short_name(h, ed.to_txn) + " because " + ed.why;
  }
  s += std::string(": a contradiction (a cycle in the order in which transactions must commit under ") +
       level_name(level) + ")";
  a.explanation = std::move(s);
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
    a.kind = kind_name(AnomalyKind::RealTimeViolation);
  else if (level == Level::SER && m == 2)
    a.kind = kind_name(AnomalyKind::WriteSkew);
  else if (level == Level::SI && m == 2)
    a.kind = kind_name(AnomalyKind::LostUpdate);
  else if (level == Level::PC && m == 4)
    a.kind = kind_name(AnomalyKind::LongFork);
  else
    a.kind = kind_name(violation_of(level));
  std::string s = "These transactions form " + core_text + ": ";
  for (size_t i = 0; i < a.edges.size(); ++i) s += (i ? "; " : "") + a.edges[i].why;
  s += std::string(". No commit order of them satisfies ") + level_name(level) +
       " (every order was ruled out by an exhaustive search)";
  a.explanation = std::move(s);
  return a;
}

}  // namespace isoscope::strong
