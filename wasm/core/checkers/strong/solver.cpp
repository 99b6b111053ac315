// The polygraph solver's search (solver.h): decisions in VSIDS order with phases from the
// current topological order, propagation through the theory's graph and the learned clauses
// (two watched literals), backjumps and Luby restarts.
#include <algorithm>

#include "checkers/strong/solver.h"

namespace isoscope::strong {

SolveResult Solver::run() {
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

size_t Solver::open_vars() const {
  size_t fixed = 0;
  for (size_t i = 0; i < trail_.size() && (trail_lim_.empty() || i < trail_lim_[0]); ++i) ++fixed;
  return num_vars_ - fixed;
}

bool Solver::propagate() {
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

void Solver::backtrack(uint32_t lvl) {
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
    if (!var_order_.contains(v)) var_order_.insert(v);
  }
  trail_.resize(keep);
  trail_lim_.resize(lvl);
}

Lit Solver::phase(uint32_t v) {
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

Verdict Solver::search() {
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
    while (!var_order_.empty()) {
      const uint32_t top = var_order_.pop();
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

uint32_t Solver::choice_decision(uint32_t v) {
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
  if (pick != v) var_order_.insert(v);
  prefer_[pick] = 1;
  return pick;
}

uint64_t Solver::luby(uint64_t i) {
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

SolveResult solve(const Problem& p, const Saturation& sat, const CheckBudget& budget, Hyper* hyper) {
  return Solver(p, sat, budget, hyper).run();
}

}  // namespace isoscope::strong
