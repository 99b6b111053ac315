// Repeated values in the strong levels: the reads-from choice of each ambiguous read inside the
// lazy polygraph (lazy.cpp) and its solver (solver.cpp), as VeriStrong's hyper-polygraph.
#include <algorithm>

#include "checkers/strong/internal.h"

namespace isoscope {

ChoiceOutcome decide_choices(const History& h, Level level, const std::vector<uint32_t>& ops,
                             const std::vector<std::vector<uint32_t>>& cands, const CheckBudget& budget) {
  using namespace strong;
  ChoiceOutcome out;
  const Instance in = make_instance(h);
  std::vector<uint32_t> inst(h.txns.size(), kNone);
  for (uint32_t t = 0; t < in.n(); ++t) inst[in.orig[t]] = t;
  const Problem p = make_problem(in, level, /*real_time=*/false);
  const bool split = level == Level::PC || level == Level::SI;
  Hyper hy;
  auto node_of = [&](uint32_t w) {  // a candidate's write node, or kNone (aborted)
    const uint32_t u = h.candidate_txn(w);
    const uint32_t it = u == kInitialTxn ? 0 : inst[u];
    return it == kNone ? kNone : it == 0 ? 0 : split ? 2 * it : it;
  };
  for (size_t i = 0; i < ops.size(); ++i) {
    const uint32_t t = inst[h.op_txn[ops[i]]];
    if (t == kNone) continue;  // an aborted reader
    Hyper::Read rd;
    rd.reader = split ? 2 * t - 1 : t;
    rd.key = h.ops[ops[i]].key;
    rd.op = ops[i];
    rd.cbeg = static_cast<uint32_t>(hy.cands.size());
    for (uint32_t w : cands[i]) {
      const uint32_t node = node_of(w);
      if (node == kNone) continue;  // an aborted writer (not read consistent: never offered)
      if (std::find(hy.cands.begin() + rd.cbeg, hy.cands.end(), node) != hy.cands.end()) continue;
      hy.cands.push_back(node);
    }
    rd.cend = static_cast<uint32_t>(hy.cands.size());
    if (rd.cend == rd.cbeg) {
      out.verdict = Verdict::Unknown;
      out.reason = "internal error: an ambiguous read without a committed candidate";
      return out;
    }
    rd.expanded = 1;
    rd.chosen = rd.cbeg;
    hy.reads.push_back(rd);
  }
  LazyStats stats;
  SolveResult s = lazy_solve(p, level == Level::SSER ? &in : nullptr, first_order(in, p), budget, stats, &hy);
  out.rounds = stats.rounds;
  out.constraints = stats.constraints;
  out.verdict = s.verdict;
  out.reason = s.reason;
  if (s.verdict == Verdict::Pass) {
    out.choice.assign(ops.size(), kNone);
    size_t r = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (inst[h.op_txn[ops[i]]] == kNone) {
        out.choice[i] = cands[i][0];
        continue;
      }
      // The candidates were reordered as the rounds went: the choice is found by its node.
      const Hyper::Read& rd = hy.reads[r++];
      if (rd.chosen != kNone)
        for (uint32_t w : cands[i])
          if (node_of(w) == hy.cands[rd.chosen]) {
            out.choice[i] = w;
            break;
          }
      if (out.choice[i] == kNone) {
        out.verdict = Verdict::Unknown;
        out.reason = "internal error: a read without a choice in the solution";
      }
    }
  } else if (s.verdict == Verdict::Fail) {
    out.core.assign(h.txns.size(), 0);
    for (uint32_t v = 0; v < p.n && v < s.core_nodes.size(); ++v)
      if (s.core_nodes[v]) out.core[in.orig[p.txn[v]]] = 1;
  }
  return out;
}

}  // namespace isoscope
