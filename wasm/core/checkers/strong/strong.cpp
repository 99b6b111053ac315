// Orchestration of the strong checkers: CC first, then saturation, search, witnesses.
#include "checkers/strong/strong.h"

#include "checkers/shrink.h"

#include <algorithm>

#include "checkers/strong/internal.h"
#include "checkers/weak/weak.h"

namespace isoscope {

namespace strong {

namespace {

// SER's forced replay of the instance (the lazy polygraph's start, and PC's and SI's through
// their snapshots), or nothing once more than 1.5% of the transactions were guessed (a history
// that far from serial, a random one, is decided sooner by saturation, or by the lazy polygraph
// from the sessions' progress). It depends on the history alone: from the check's memo when a
// level before made it or gave up (not for want of time), else made and left there.
std::vector<uint32_t> forced_ser_replay(const Instance& in, const Problem& ser, const CheckBudget* budget) {
  LevelMemo* memo = budget && budget->memo && (!budget->memo->history || budget->memo->history == in.h) ? budget->memo : nullptr;
  if (memo && memo->history && (memo->ser_replay_gave_up || memo->ser_replay.size() == ser.n)) return memo->ser_replay;
  std::vector<uint32_t> order = replay_order(ser, /*force=*/true, budget, ser.n / 64 + 16);
  if (memo && (!order.empty() || !(budget && budget->expired())))
    memo->history = in.h, memo->ser_replay = order, memo->ser_replay_gave_up = order.empty();
  return order;
}

// A pass from a candidate commit order (candidate.cpp) that verifies, before any polygraph.
// d.problem is built without real-time edges: an SSER candidate is checked against them apart.
bool try_candidate(const Instance& in, Decision& d, const CheckBudget& budget) {
  const Problem& p = d.problem;
  std::vector<uint32_t> order = timestamp_order(in, p);
  const bool verified = [&] {
    if (!order.empty()) return verify_order(p, {}, order);
    // List-append histories: their lists give the version order, and the known edges alone
    // order most of them (Elle's dependency graph): a topological order, in linear time.
    if (in.h->has_lists && !(order = known_order(p)).empty() && verify_order(p, {}, order)) return true;
    // Without timestamps, a replay. (With them, a commit order that does not verify is most
    // often a violation, and the replay would search in vain for long on a large history whose
    // write skew the lazy polygraph finds at once.)
    if (p.level == Level::SER) {
      // Forced: an order that breaks a few reads is where the lazy polygraph starts (decide).
      order = forced_ser_replay(in, p, &budget);
      if (!order.empty() && verify_order(p, {}, order)) return true;
      d.guess = std::move(order);
      order.clear();
    } else if (p.level == Level::PC || p.level == Level::SI) {
      // A serial order is one of PC and SI too, and the replay of whole transactions has half
      // the nodes to place. Where SER fails (a write skew), the replay's forced order with each
      // read half at its snapshot; if that does not verify either, it is where the lazy
      // polygraph starts (decide). Then PC's replay of the halves themselves, whose read halves
      // may run early (SI's rule on concurrent writes to a key is not the replay's: it stops
      // there). Each within half the time left, the rest for the polygraph.
      {
        const CheckBudget b = budget.share(0.5);
        const Problem ser = make_problem(in, Level::SER, false);
        order = snapshot_order(ser, forced_ser_replay(in, ser, &b));
        if (!order.empty() && verify_order(p, {}, order)) return true;
        d.guess = std::move(order);
        order.clear();
      }
      if (p.level == Level::PC) {
        const CheckBudget b = budget.share(0.5);
        order = replay_order(p, false, &b);
      }
    }
    return !order.empty() && verify_order(p, {}, order);
  }();
  if (!verified || (p.level == Level::SSER && !respects_real_time(in, p, order))) return false;
  d.verdict = Verdict::Pass;
  d.order = std::move(order);
  d.sat.outcome = Saturation::Settled;
  d.by_candidate = true;
  return true;
}

void decide_lazy(const Instance& in, const CheckBudget& budget, Decision& d) {
  const Problem& p = d.problem;
  std::vector<uint32_t> order = d.guess.empty() ? first_order(in, p, &budget) : std::move(d.guess);
  d.solved = lazy_solve(p, p.level == Level::SSER ? &in : nullptr, std::move(order), budget, d.lazy);
  d.by_lazy = d.by_solver = true;
  d.verdict = d.solved.verdict;
  d.reason = d.solved.reason;
  if (d.verdict == Verdict::Pass) d.order = d.solved.order;
}

// Two transactions that read one version of a key and both overwrite it: a lost update, which
// SI, SER and SSER forbid whatever the commit order (each must commit before the other's
// snapshot, or it would read the other's version). One sort of the reads finds it; saturation
// needs rounds over a reachability matrix for it (minutes at 10^5 transactions), the solver
// runs out of memory. Returns the transactions to keep (the version's writer and both readers),
// or nothing. Readers recorded as committed only: an unknown one commits because another reads
// its writes, which a core of three would leave out.
std::vector<char> lost_update(const Instance& in) {
  struct Update {
    uint32_t writer, key, reader;
  };
  std::vector<Update> updates;
  for (uint32_t t = 1; t < in.n(); ++t)
    if (in.h->txns[in.orig[t]].status == TxnStatus::Committed)
      for (uint32_t i = in.rbeg[t]; i < in.rbeg[t + 1]; ++i) {
        const Instance::Read& r = in.reads[i];
        const auto wb = in.wkeys.begin() + in.wbeg[t], we = in.wkeys.begin() + in.wbeg[t + 1];
        if (std::find(wb, we, r.key) != we) updates.push_back({r.writer, r.key, t});
      }
  std::sort(updates.begin(), updates.end(), [](const Update& a, const Update& b) {
    return a.writer != b.writer ? a.writer < b.writer : a.key < b.key;
  });
  for (size_t i = 1; i < updates.size(); ++i) {
    const Update &a = updates[i - 1], &b = updates[i];
    if (a.writer != b.writer || a.key != b.key) continue;
    std::vector<char> keep(in.n(), 0);
    keep[0] = keep[a.writer] = keep[a.reader] = keep[b.reader] = 1;
    return keep;
  }
  return {};
}

}  // namespace

std::vector<uint32_t> first_order(const Instance& in, const Problem& p, const CheckBudget* budget) {
  std::vector<uint32_t> order = timestamp_order(in, p);
  // A node per transaction (SER, and SSER without real time in p): SER's forced replay; split
  // problems (PC, SI: a read and a write node per transaction) take the SER problem's replay,
  // split. (SSER's nodes are whole transactions: a split order would name nodes it lacks.)
  const bool split = p.n != in.n();
  if (order.empty() && !split) order = forced_ser_replay(in, p, budget);
  if (order.empty() && split) {
    const Problem ser = make_problem(in, Level::SER, false);
    order = snapshot_order(ser, forced_ser_replay(in, ser, budget));
  }
  if (order.empty()) order = progress_order(p);
  return order;
}

Decision decide(const Instance& in, Level level, const StrongOptions& opts,
                const CheckBudget& budget) {
  Decision d;
  d.problem = make_problem(in, level, /*real_time=*/false);
  if (opts.candidate && try_candidate(in, d, budget)) return d;
  const size_t reach = static_cast<size_t>(d.problem.n) * (d.problem.k + 1);
  if (opts.lazy && reach > opts.lazy_above &&
      (in.h->has_timestamps || reach > std::min(opts.lazy_untimed_above, kMaxReachEntries))) {
    // Too many sessions and nodes for saturation's reachability: the lazy polygraph, from the
    // best guess at hand (SSER's real time is added as the guesses break it). Its guesses are
    // good when the history has timestamps; without, only where saturation cannot go.
    decide_lazy(in, budget, d);
    return d;
  }
  if (opts.lazy && reach > opts.lazy_above && !d.guess.empty()) {
    // Without timestamps, a snapshot order that breaks a few reads (a write skew among 10^5
    // serial transactions) is a good start too: the lazy polygraph first, within half the time
    // left; saturation if it does not decide.
    Decision l;
    l.problem = d.problem;
    l.guess = std::move(d.guess);
    decide_lazy(in, budget.share(0.5), l);
    if (l.verdict != Verdict::Unknown) return l;
  }
  if (level == Level::SSER) add_real_time(in, d.problem);
  if ((level == Level::PC || level == Level::SI) && opts.ser_first && !budget.ser_fails) {
    // SER implies SI and PC, and its search is usually the easiest of the three on histories
    // that pass: try it first, within a slice of the budget. A serial order t1 t2 ... gives the
    // split order R_t1 W_t1 R_t2 W_t2 ..., verified against this level's problem.
    StrongOptions o = opts;
    o.ser_first = false;
    CheckBudget b = budget;
    const double now = now_ms();
    double slice = opts.ser_first_ms;
    if (budget.deadline_ms > 0) slice = std::min(slice, std::max(0.0, budget.deadline_ms - now) * 0.3);
    b.deadline_ms = now + slice;
    o.candidate = o.candidate && in.h->has_timestamps;  // the replay was this level's candidate
    Decision s = decide(in, Level::SER, o, b);
    if (s.verdict == Verdict::Pass) {
      std::vector<uint32_t> order = split_order(s.order);
      if (verify_order(d.problem, {}, order)) {
        d.verdict = Verdict::Pass;
        d.order = std::move(order);
        d.sat.outcome = Saturation::Settled;
        d.by_ser = true;
        return d;
      }
    }
    if (budget.expired()) {
      d.verdict = Verdict::Unknown;
      d.reason = "budget ran out";
      return d;
    }
  }
  d.sat = saturate(d.problem, opts.saturate, opts.force, budget, opts.long_tail_reach);
  switch (d.sat.outcome) {
    case Saturation::Cycle: d.verdict = Verdict::Fail; return d;
    case Saturation::Unknown:
      d.verdict = Verdict::Unknown;
      d.reason = "budget ran out during saturation";
      return d;
    case Saturation::Settled:
      d.verdict = Verdict::Pass;
      d.order = d.sat.order;
      break;
    case Saturation::Open:
      if (d.sat.complete && opts.solver) {
        d.by_solver = true;
        d.solved = solve(d.problem, d.sat, budget);
        d.verdict = d.solved.verdict;
        d.reason = d.solved.reason;
        if (d.verdict == Verdict::Pass) d.order = d.solved.order;
        break;
      }
      d.search = search(d.problem, d.sat, opts, budget);
      d.verdict = d.search.verdict;
      d.reason = d.search.reason;
      if (d.verdict == Verdict::Pass) d.order = d.search.order;
      break;
  }
  if (d.verdict == Verdict::Pass && !verify_order(d.problem, d.sat.edges, d.order)) {
    // Never report a pass whose witness does not hold.
    d.verdict = Verdict::Unknown;
    d.reason = "internal error: the commit order found does not verify";
  }
  return d;
}

namespace {

// Drops transactions while the violation persists (checkers/shrink.h): every accepted step is
// a decided Fail, so the result always violates.
std::vector<char> shrink(const Instance& in, std::vector<char> keep, Level level,
                         const CheckBudget& budget, bool& minimal) {
  StrongOptions opts;
  opts.minimize = false;
  minimal = shrink_failing(keep, budget, [&](const std::vector<char>& trial) {
    const Verdict v = decide(sub_instance(in, trial), level, opts, budget).verdict;
    return v == Verdict::Fail ? Trial::Fails : v == Verdict::Unknown ? Trial::Unknown : Trial::Passes;
  });
  return keep;
}

}  // namespace

}  // namespace strong

StrongReport check_strong(const History& h, Level level, const CheckBudget& budget,
                          const StrongOptions& opts) {
  using namespace strong;
  StrongReport rep;
  LevelResult& res = rep.result;
  if (!is_strong(level)) {
    res.verdict = Verdict::Unknown;
    res.reason = "not a strong level";
    return rep;
  }
  const double t0 = now_ms();
  if (level == Level::SSER && !h.has_timestamps) {
    res.verdict = Verdict::NotApplicable;
    res.reason = "no timestamps";
    return rep;
  }
  if (!h.ambiguous.empty()) {  // checker_for routes them (choice.h)
    res = unresolved_reads();
    return rep;
  }
  // Every strong level implies CC (and read consistency): its violations are ours. Within one
  // check, CC is decided once, before the strong levels (budget.cc_holds).
  if (budget.cc_unknown) {
    res.verdict = Verdict::Unknown;
    res.reason = "causal consistency, which this level needs to hold first, was left undecided (its budget ran out)";
    res.ms = now_ms() - t0;
    return rep;
  }
  if (!budget.cc_holds) {
    LevelResult cc = check_cc(h, budget);
    if (cc.verdict == Verdict::Fail) {
      res = std::move(cc);
      res.reason.clear();
      res.ms = now_ms() - t0;
      return rep;
    }
    if (cc.verdict != Verdict::Pass) {
      res.verdict = Verdict::Unknown;
      res.reason = cc.reason.empty() ? "budget ran out" : cc.reason;
      res.ms = now_ms() - t0;
      return rep;
    }
  }
  const Instance in = make_instance(h);
  const std::vector<char> lost =
      level == Level::PC ? std::vector<char>() : lost_update(in);  // PC allows lost updates
  Decision d;
  if (lost.empty()) d = decide(in, level, opts, budget);
  else d.verdict = Verdict::Fail;
  // The witness decides sub-histories: the check's memo is the whole history's.
  CheckBudget sub_budget = budget;
  sub_budget.memo = nullptr;
  StrongStats& st = rep.stats;
  st.nodes = d.problem.n;
  st.chains = d.problem.k;
  st.constraints = d.by_lazy ? d.lazy.constraints : d.sat.constraints;
  st.forced_edges = d.sat.forced;
  st.rounds = d.sat.rounds;
  st.settled_by_saturation =
      d.sat.outcome == Saturation::Cycle || d.sat.outcome == Saturation::Settled;
  st.by_solver = d.by_solver;
  st.solver_vars = d.solved.vars;
  st.conflicts = d.solved.conflicts;
  st.components = d.search.components;
  st.states = d.search.states;
  st.memo_hits = d.search.memo_hits;
  res.verdict = d.verdict;
  if (d.verdict == Verdict::Unknown) {
    res.reason = d.reason.empty() ? "budget ran out" : d.reason;
  } else if (d.verdict == Verdict::Pass) {
    for (uint32_t v : d.order) {
      if (v != 0 && d.problem.part[v] == Part::Read) continue;
      res.commit_order.push_back(in.orig[d.problem.txn[v]]);
    }
  } else if (d.sat.outcome == Saturation::Cycle) {
    res.anomalies.push_back(cycle_anomaly(in, d.problem, d.sat, level));
  } else {
    // Found by search or as a lost update: shrink to a core (within the failing component).
    std::vector<char> keep(in.n(), 0);
    keep[0] = 1;
    if (!lost.empty()) {
      keep = lost;
    } else if (d.by_solver) {
      // The transactions of the solver's conflict cycles usually violate the level on their
      // own; when a forced edge they relied on needs others, start from the whole history.
      for (uint32_t v = 0; v < d.problem.n; ++v)
        if (d.solved.core_nodes[v]) keep[d.problem.txn[v]] = 1;
      StrongOptions o = opts;
      o.minimize = false;
      if (decide(sub_instance(in, keep), level, o, sub_budget).verdict != Verdict::Fail)
        std::fill(keep.begin(), keep.end(), 1);
    } else {
      for (uint32_t t = 1; t < in.n(); ++t)
        keep[t] = d.search.failed_chains.empty() || d.search.failed_chains[in.session[t]];
    }
    bool minimal = false;
    if (opts.minimize) {
      CheckBudget b = sub_budget;
      const double cap = now_ms() + opts.minimize_ms;
      b.deadline_ms = sub_budget.deadline_ms > 0 ? std::min(sub_budget.deadline_ms, cap) : cap;
      keep = shrink(in, keep, level, b, minimal);
    }
    const Instance core = sub_instance(in, keep);
    st.core_size = core.n() - 1;
    CheckBudget b = sub_budget;
    const double cap = now_ms() + 200;
    b.deadline_ms = sub_budget.deadline_ms > 0 ? std::min(sub_budget.deadline_ms, cap) : cap;
    res.anomalies.push_back(core_anomaly(core, level, b, minimal));
  }
  res.anomalies_total = res.anomalies.size();
  res.ms = now_ms() - t0;
  return rep;
}

LevelResult check_pc(const History& h, const CheckBudget& budget) {
  return check_strong(h, Level::PC, budget).result;
}
LevelResult check_si(const History& h, const CheckBudget& budget) {
  return check_strong(h, Level::SI, budget).result;
}
LevelResult check_ser(const History& h, const CheckBudget& budget) {
  return check_strong(h, Level::SER, budget).result;
}
LevelResult check_sser(const History& h, const CheckBudget& budget) {
  return check_strong(h, Level::SSER, budget).result;
}

}  // namespace isoscope
