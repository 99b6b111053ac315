// Repeated values in the strong levels: the reads-from choice of each ambiguous read inside the
// lazy polygraph (lazy.cpp) and its solver (solver.cpp), as VeriStrong's hyper-polygraph.
#include <algorithm>

#include "checkers/strong/internal.h"

namespace isoscope {

namespace {

// The solver's first candidate order: first (History transaction ids) in the problem's nodes,
// each transaction's halves side by side in the split problems, the nodes it leaves out
// after; without first, the unique-value first order (a replay, which costs seconds on 10^4
// transactions and ignores the reads with a choice all the same).
std::vector<uint32_t> start_order(const strong::Instance& in, const strong::Problem& p,
                                  const std::vector<uint32_t>& inst, const std::vector<uint32_t>& first) {
  if (first.empty()) return strong::first_order(in, p);
  const bool split = p.n != in.n();
  std::vector<uint32_t> order = {0};
  std::vector<char> placed(p.n, 0);
  placed[0] = 1;
  auto put = [&](uint32_t v) {
    if (v < p.n && !placed[v]) placed[v] = 1, order.push_back(v);
  };
  for (uint32_t t : first) {
    const uint32_t it = t < inst.size() ? inst[t] : kNone;
    if (it == kNone || it == 0) continue;
    if (split) put(2 * it - 1), put(2 * it);
    else put(it);
  }
  for (uint32_t v = 1; v < p.n; ++v) put(v);
  return order;
}

// The solution's commit order when it verifies against h with the choice applied, as
// check_strong verifies a candidate order (verify_order; real time for SSER); else empty.
std::vector<uint32_t> verified_commit_order(const History& h, Level level, const std::vector<uint32_t>& ops,
                                            const std::vector<uint32_t>& choice,
                                            const std::vector<uint32_t>& order) {
  using namespace strong;
  History resolved = h;
  for (size_t i = 0; i < ops.size(); ++i) resolved.read_from[ops[i]] = choice[i];
  const Instance in = make_instance(resolved);
  const Problem p = make_problem(in, level, /*real_time=*/false);
  if (!verify_order(p, {}, order)) return {};
  if (level == Level::SSER && !respects_real_time(in, p, order)) return {};
  std::vector<uint32_t> commit;
  for (uint32_t v : order) {
    if (v != 0 && p.part[v] == Part::Read) continue;
    commit.push_back(in.orig[p.txn[v]]);
  }
  return commit;
}

}  // namespace

ChoiceOutcome decide_choices(const History& h, Level level, const std::vector<uint32_t>& ops,
                             const std::vector<std::vector<uint32_t>>& cands, const CheckBudget& budget,
                             const std::vector<uint32_t>& first) {
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
  SolveResult s = lazy_solve(p, level == Level::SSER ? &in : nullptr, start_order(in, p, inst, first), budget, stats, &hy);
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
    if (out.verdict == Verdict::Pass) out.commit_order = verified_commit_order(h, level, ops, out.choice, s.order);
  } else if (s.verdict == Verdict::Fail) {
    out.core.assign(h.txns.size(), 0);
    for (uint32_t v = 0; v < p.n && v < s.core_nodes.size(); ++v)
      if (s.core_nodes[v]) out.core[in.orig[p.txn[v]]] = 1;
  }
  return out;
}

}  // namespace isoscope
