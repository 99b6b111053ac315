// The choice layer and the strong levels' solver: candidates pruned by the known edges, the
// choice decided inside the solver (strong.h, decide_choices), its witness (chooser.h).
#include "checkers/choice/chooser.h"

#include "checkers/counterexample.h"
#include "checkers/explain.h"
#include "checkers/strong/strong.h"
#include "checkers/weak/weak.h"
#include "graph/digraph.h"

namespace isoscope::choice {

const std::vector<std::vector<uint32_t>>& Chooser::committed_writers() {
  if (committed_writers_.empty()) {
    committed_writers_.resize(h_.keys.size());
    for (uint32_t t = 1; t < h_.txns.size(); ++t) {
      if (h_.txns[t].status != TxnStatus::Committed) continue;
      for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
        std::vector<uint32_t>& w = committed_writers_[h_.ops[o].key];
        if (h_.ops[o].is_write() && (w.empty() || w.back() != t)) w.push_back(t);
      }
    }
  }
  return committed_writers_;
}

// Under SSER the commit order extends real time, so a read of t cannot read from a candidate
// that starts after t ends (a cycle), nor from one that ends before another writer of the key
// starts when that one ends before t starts (it is overwritten in between). When none is left
// the candidates stay (the solver then finds the contradiction and its witness).
void Chooser::prune_by_real_time(const Var& v, std::vector<uint32_t>& d) {
  if (!h_.txns[v.txn].has_time()) return;
  if (writers_by_end_.empty()) {
    const std::vector<std::vector<uint32_t>>& writers = committed_writers();
    writers_by_end_.resize(h_.keys.size());
    for (uint32_t k = 0; k < writers_by_end_.size(); ++k)
      for (uint32_t t : writers[k])
        if (h_.txns[t].has_time()) writers_by_end_[k].push_back({h_.times[t].end, h_.times[t].start});
    for (auto& w : writers_by_end_) {
      std::sort(w.begin(), w.end());
      for (size_t i = 1; i < w.size(); ++i) w[i].second = std::max(w[i].second, w[i - 1].second);
    }
  }
  const Interval& me = h_.times[v.txn];
  const auto& w = writers_by_end_[h_.ops[v.op].key];
  // The latest start among the writers that end before the reader starts.
  auto it = std::lower_bound(w.begin(), w.end(), me.start,
                             [](const std::pair<Time, Time>& e, const Time& s) { return e.first < s; });
  const bool any = it != w.begin();
  const Time latest = any ? (it - 1)->second : Time{};
  std::vector<uint32_t> kept;
  for (uint32_t c : d) {
    const uint32_t u = h_.candidate_txn(c);
    bool out = false;
    if (u == kInitialTxn) {
      out = any;
    } else if (h_.txns[u].has_time()) {
      const Interval& x = h_.times[u];
      out = me.end < x.start || (any && x.end < latest);
    }
    if (!out) kept.push_back(c);
  }
  if (!kept.empty()) d = std::move(kept);
}


bool Chooser::decide_in_solver(LevelResult& out, const Anomaly& best,
                               const std::vector<std::pair<uint32_t, uint32_t>>& best_lits) {
  if (budget_.expired()) {  // (the solver's set-up does not poll it)
    out = CheckBudget::ran_out();
    return true;
  }
  std::vector<uint32_t> ops, which;
  std::vector<std::vector<uint32_t>> cands, doms(vars_.size());
  apply();
  for (uint32_t i = 0; i < vars_.size(); ++i) {
    if (vars_[i].valid < 2) continue;  // (its one candidate: apply() set it)
    doms[i] = domain(vars_[i]);
    if (level_ == Level::SSER) prune_by_real_time(vars_[i], doms[i]);
  }
  prune_by_reachability(doms);
  for (uint32_t i = 0; i < vars_.size(); ++i) {
    if (vars_[i].valid < 2) continue;
    std::vector<uint32_t>& d = doms[i];
    if (d.size() == 1) {  // the others are ruled out: a read without a choice
      cur_[i] = d[0];
      work_.read_from[vars_[i].op] = d[0];
      continue;
    }
    auto c = std::find(d.begin(), d.end(), cur_[i]);
    if (c != d.end()) std::rotate(d.begin(), c, c + 1);
    ops.push_back(vars_[i].op);
    cands.push_back(std::move(d));
    which.push_back(i);
    work_.read_from[vars_[i].op] = kThinAir;  // left out of the solver's instance
  }
  const ChoiceOutcome o = decide_choices(work_, level_, ops, cands, budget_, fixed_order_);
  if (o.verdict == Verdict::Pass)
    for (size_t k = 0; k < which.size(); ++k) cur_[which[k]] = o.choice[k];
  apply();
  if (o.verdict == Verdict::Unknown) {
    if (!budget_.expired()) return false;  // (cannot happen: the enumeration goes on)
    out = CheckBudget::ran_out();
    return true;
  }
  if (o.verdict == Verdict::Pass) {
    // Verified as the level's own checker verifies a candidate order (CC, then the order
    // against every read: decide_choices), else by that checker on the solution's reads-from.
    if (!o.commit_order.empty() && check_cc(work_, budget_).verdict == Verdict::Pass) {
      out = LevelResult{};
      out.verdict = Verdict::Pass;
      out.commit_order = o.commit_order;
      return true;
    }
    return current_choice_passes(out);
  }
  Anomaly a;
  if (depth_ == 0 && core_witness(o.core, a)) {
    out = failure_of(std::move(a));
  } else if (!best.txns.empty()) {
    out = failure_of(annotate(best, best_lits));
  } else {
    // No anomaly at hand (the solver was asked first): the current choice's, which fails too.
    best_cur_ = cur_;
    LevelResult r = decide(work_, budget_);
    if (r.verdict != Verdict::Fail || r.anomalies.empty()) {
      out = budget_.expired() ? CheckBudget::ran_out() : LevelResult{};
      if (!budget_.expired()) out.reason = "internal error: the choice shown does not fail";
      return true;
    }
    std::vector<std::pair<uint32_t, uint32_t>> lits;
    whole_choice(lits);
    out = failure_of(annotate(r.anomalies[0], lits));
  }
  return true;
}

// Candidates that no choice can take, by the known edges alone (session order and the reads
// without a choice; every strong level implies causal consistency, so their closure hb is
// acyclic in every choice):
//   - the reader reaches the candidate's transaction along hb: reading from it closes a cycle;
//   - the candidate's transaction reaches another writer W of the key that reaches the reader
//     (the initial transaction reaches every W): W is causally between the write and the read,
//     which causal consistency forbids (W would have to commit both before and after it).
// Reachability is kept per transaction as the earliest transaction of each session it reaches
// (transactions x sessions entries; histories beyond kMaxReachEntries are not pruned). A
// domain that would be left empty keeps its candidates (the solver refutes it with a witness).
void Chooser::prune_by_reachability(std::vector<std::vector<uint32_t>>& doms) {
  constexpr size_t kMaxReachEntries = size_t(1) << 24;
  constexpr size_t kMaxWriterScans = size_t(1) << 26;
  const uint32_t n = static_cast<uint32_t>(h_.txns.size());
  const uint32_t k = static_cast<uint32_t>(h_.num_sessions());
  if (k == 0 || size_t(n) * k > kMaxReachEntries) return;
  auto live = [&](uint32_t t) { return t != kInitialTxn && t < n && h_.txns[t].status == TxnStatus::Committed; };
  const std::vector<std::vector<uint32_t>>& writers = committed_writers();
  std::vector<char> open(h_.ops.size(), 0);
  std::vector<uint32_t> reach(size_t(n) * k);
  size_t scans = 0;
  for (int pass = 0; pass < 8; ++pass) {
    for (uint32_t i = 0; i < vars_.size(); ++i) open[vars_[i].op] = doms[i].size() >= 2;
    // hb's edges among committed transactions: session order (to the next committed one) and
    // every read of another transaction's write that has no choice left.
    DigraphBuilder b(n);
    for (uint32_t c = 0; c < k; ++c) {
      uint32_t prev = kNone;
      for (uint32_t t = h_.session_begin[c]; t < h_.session_begin[c + 1]; ++t) {
        if (!live(t)) continue;
        if (prev != kNone) b.add(prev, t);
        prev = t;
      }
    }
    for (uint32_t t = 1; t < n; ++t) {
      if (!live(t)) continue;
      for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
        if (!h_.ops[o].is_read() || open[o]) continue;
        const uint32_t u = work_.writer_txn(o);
        if (live(u) && u != t) b.add(u, t);
      }
    }
    const Digraph hb = b.build();
    const std::vector<uint32_t> topo = topological_order(hb);
    if (topo.empty()) return;  // hb has a cycle: every choice fails (the solver shows it)
    // reach[t][c]: the index in session c of the first transaction t reaches (kNone: none).
    std::fill(reach.begin(), reach.end(), kNone);
    for (size_t i = topo.size(); i-- > 0;) {
      const uint32_t t = topo[i];
      uint32_t* r = &reach[size_t(t) * k];
      for (uint32_t e = hb.begin(t); e < hb.end(t); ++e) {
        const uint32_t s = hb.targets[e];
        const uint32_t* rs = &reach[size_t(s) * k];
        for (uint32_t c = 0; c < k; ++c) r[c] = std::min(r[c], rs[c]);
        r[h_.txns[s].session] = std::min(r[h_.txns[s].session], h_.txns[s].index);
      }
    }
    // Whether a reaches b along hb (a != b; the initial transaction reaches every one).
    auto reaches = [&](uint32_t a, uint32_t b) {
      if (a == kInitialTxn) return b != kInitialTxn;
      return h_.txns[b].index >= reach[size_t(a) * k + h_.txns[b].session] &&
             reach[size_t(a) * k + h_.txns[b].session] != kNone;
    };
    bool fixed_more = false;
    std::vector<uint32_t> before;  // the writers of the key that reach the reader
    for (uint32_t i = 0; i < vars_.size(); ++i) {
      std::vector<uint32_t>& d = doms[i];
      if (d.size() < 2) continue;
      const uint32_t t = vars_[i].txn;
      if (!live(t)) continue;
      const std::vector<uint32_t>& ws = writers[h_.ops[vars_[i].op].key];
      before.clear();
      if (scans + ws.size() <= kMaxWriterScans) {
        scans += ws.size();
        for (uint32_t w : ws)
          if (w != t && reaches(w, t)) before.push_back(w);
      }
      std::vector<uint32_t> kept;
      for (uint32_t c : d) {
        const uint32_t u = h_.candidate_txn(c);
        bool out = false;
        if (u != t && u != kInitialTxn && reaches(t, u)) {
          out = true;
          if (budget_.stats) ++budget_.stats->pruned_reader_reaches;
        }
        for (size_t j = 0; j < before.size() && !out && u != t; ++j)
          if (before[j] != u && reaches(u, before[j])) {
            out = true;
            if (budget_.stats) ++budget_.stats->pruned_overwritten;
          }
        if (!out) kept.push_back(c);
      }
      if (kept.empty() || kept.size() == d.size()) continue;
      if (kept.size() == 1) {
        fixed_more = true;
        if (budget_.stats) ++budget_.stats->pruned_fixed;
        work_.read_from[vars_[i].op] = kept[0];
      }
      d = std::move(kept);
    }
    if (!fixed_more) return;
  }
}

// The witness of a refutation by the solver: the sub-history of the transactions it used, less
// the ambiguous reads that may read from outside them (so that its failure is the history's:
// every choice of the history gives one of it), decided on its own and its anomaly told in the
// history's ids. False when it does not fail (then the first guess's anomaly is shown).
bool Chooser::core_witness(const std::vector<char>& core, Anomaly& a) {
  std::vector<char> keep = core;
  keep[kInitialTxn] = 1;
  std::vector<char> drop(h_.ops.size(), 0);
  size_t kept = 0;
  for (uint32_t t = 1; t < h_.txns.size(); ++t) kept += keep[t];
  if (kept + 1 >= h_.txns.size()) return false;  // no smaller than the history
  for (const Var& v : vars_) {
    if (!keep[v.txn]) continue;
    for (uint32_t w : domain(v))
      if (!keep[h_.candidate_txn(w)]) drop[v.op] = 1;
  }
  return projection_fails(keep, drop, a);
}

}  // namespace isoscope::choice
