// The polygraph solver's conflicts (solver.h): a theory conflict is an edge that closes a cycle
// of true literals' edges; its clause, the reason clauses of theory propagation, first-UIP
// learning, and the conflict cycles' nodes (the core that explains a failure).
#include <algorithm>

#include "checkers/strong/solver.h"

namespace isoscope::strong {

void Solver::theory_conflict(uint32_t e) {
  conflict_.clear();
  edge_lits(e, conflict_);
  for (uint32_t ref : graph_.cycle_refs)
    if (ref != kKnownEdge) edge_lits(ref, conflict_);
  for (Lit& l : conflict_) l = negate(l);
  std::sort(conflict_.begin(), conflict_.end());
  conflict_.erase(std::unique(conflict_.begin(), conflict_.end()), conflict_.end());
  mark_core(e);
}

void Solver::mark_core(uint32_t closing) {
  for (uint32_t v : graph_.cycle_nodes) core_[v] = 1;
  scratch_.clear();
  if (closing != kNone) edge_lits(closing, scratch_);
  for (uint32_t ref : graph_.cycle_refs)
    if (ref != kKnownEdge) edge_lits(ref, scratch_);
  for (Lit l : scratch_) core_[va_[var_of(l)]] = core_[vb_[var_of(l)]] = 1;
}

uint32_t Solver::analyze() {
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
      var_order_.bump(v);
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
  var_order_.decay();
  return back;
}

uint32_t Solver::closing_cycle(Lit l) {
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

uint32_t Solver::add_reason(Lit implied, uint32_t e) {
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

uint32_t Solver::add_learnt() {
  const uint32_t c = static_cast<uint32_t>(clause_begin_.size());
  clause_begin_.push_back(lits_.size());
  lits_.insert(lits_.end(), learnt_.begin(), learnt_.end());
  watches_[learnt_[0]].push_back(c);
  watches_[learnt_[1]].push_back(c);
  return c;
}

}  // namespace isoscope::strong
