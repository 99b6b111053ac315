// The choice layer: each read's candidates and its first choices (chooser.h).
#include "checkers/choice/chooser.h"

namespace isoscope::choice {

std::vector<uint32_t> Chooser::choosable(const Var& v) const {
  std::vector<uint32_t> d;
  for (uint32_t w : h_.ambiguous.candidates_at(v.amb))
    if (consistent(v, w)) d.push_back(w);
  if (std::any_of(d.begin(), d.end(), [&](uint32_t w) { return !after_in_session(v.txn, w); }))
    d.erase(std::remove_if(d.begin(), d.end(), [&](uint32_t w) { return after_in_session(v.txn, w); }), d.end());
  return d;
}

bool Chooser::first_by_time(Var& v, std::span<const uint32_t> cands) {
  const Txn& t = h_.txns[v.txn];
  if (!t.has_time()) return false;
  // Two choosable candidates (not later in the reader's session: choosable keeps those only
  // when every candidate is).
  uint32_t found = 0;
  for (uint32_t w : cands)
    if (consistent(v, w) && !after_in_session(v.txn, w) && ++found == 2) break;
  if (found < 2) return false;
  v.valid = 2;  // (at least)
  // Rank 0: a write of its own transaction (the first in candidate order).
  for (uint32_t w : cands)
    if (h_.candidate_txn(w) == v.txn && consistent(v, w)) {
      v.first[0] = v.first[1] = w;
      return true;
    }
  std::vector<std::pair<double, uint32_t>>& e = by_end_[h_.ambiguous.group[v.amb]];
  if (e.empty()) {
    for (uint32_t w : cands)
      if (const uint32_t u = h_.candidate_txn(w); u != kInitialTxn && h_.txns[u].has_time()) e.push_back({end_[u], w});
    std::sort(e.begin(), e.end());
  }
  const double ts = start_[v.txn], te = end_[v.txn];
  for (int ph = 0; ph < kPhases; ++ph) {
    // Rank 1: the latest end at or before the moment (the first candidate among equal ends),
    // then the initial value.
    const double at = ph == 0 ? ts : ts + (te - ts) * (v.op - t.op_begin + 1) / (t.size() + 1);
    auto it = std::upper_bound(e.begin(), e.end(), at,
                               [](double a, const std::pair<double, uint32_t>& x) { return a < x.first; });
    uint32_t best = kNone;
    double best_end = 0;
    while (it != e.begin()) {
      --it;
      if (best != kNone && it->first != best_end) break;
      if (!consistent(v, it->second) || after_in_session(v.txn, it->second)) continue;
      best = it->second, best_end = it->first;  // (equal ends: the lower candidate last)
    }
    if (best == kNone && cands.back() == kReadsInitial && consistent(v, kReadsInitial)) best = kReadsInitial;
    if (best == kNone) return false;
    v.first[ph] = best;
  }
  return true;
}

std::vector<uint32_t> Chooser::domain(const Var& v) const {
  std::vector<uint32_t> d = choosable(v);
  std::vector<std::pair<std::pair<int, double>, uint32_t>> ranked;  // (each rank computed once)
  ranked.reserve(d.size());
  for (uint32_t w : d) ranked.push_back({rank(v, w, phase_), w});
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 0; i < d.size(); ++i) d[i] = ranked[i].second;
  return d;
}

// A read committed engine serves each read the latest version committed when the read runs, at
// some moment inside its transaction, later for later reads. Taking versions in the order their
// writers end (commit times are not recorded; ends approximate them), version W of a key is
// current from W's end until the next writer of the key ends. Per transaction, the reads in
// order: a fixed read's writer ending raises the earliest moment; an ambiguous read takes the
// candidate current at the earliest moment not before it (leaving the most room for the reads
// after it). Only a guess: the level's checker verifies the choice it gives.
void Chooser::sweep_read_committed() {
  const std::vector<std::vector<uint32_t>>& writers = committed_writers();
  std::vector<std::vector<std::pair<double, uint32_t>>> ends(h_.keys.size());  // (end, txn) per key
  for (uint32_t k = 0; k < ends.size(); ++k) {
    for (uint32_t t : writers[k])
      if (h_.txns[t].has_time()) ends[k].push_back({end_[t], t});
    std::sort(ends[k].begin(), ends[k].end());
  }
  // Per read, the versions of its key from the one current at the earliest moment on (each
  // version current from its writer's end to the next one's), up to the first whose writer is a
  // candidate: the scan stops at once when values repeat often, where going through every
  // candidate cost reads x candidates (seconds on 25,000 transactions of two values).
  uint32_t last_txn = kNone;
  double at = 0;
  for (uint32_t i = 0; i < vars_.size(); ++i) {
    if ((i & 1023) == 0 && budget_.expired()) return;  // (a guess: the rank's stays)
    const uint32_t t = vars_[i].txn;
    if (t == last_txn || !h_.txns[t].has_time()) continue;
    last_txn = t;
    at = start_[t];
    const double until = end_[t];
    for (uint32_t o = h_.txns[t].op_begin; o < h_.txns[t].op_end; ++o) {
      if (!h_.ops[o].is_read()) continue;
      auto vi = var_of_op_.find(o);
      if (vi == var_of_op_.end()) {
        const uint32_t u = h_.writer_txn(o);
        if (u != kInitialTxn && u != kThinAir && u != t && h_.txns[u].has_time())
          at = std::max(at, end_[u]);
        continue;
      }
      Var& v = vars_[vi->second];
      if (h_.candidate_txn(v.first[1]) == t) continue;  // its own write
      const uint32_t k = h_.ops[o].key, value = h_.ops[o].value;
      const auto& e = ends[k];
      // The first version that ends after at; the one before it is current at at (-1: the
      // initial one).
      const auto first_after = std::upper_bound(e.begin(), e.end(), at,
                                                 [](double a, const std::pair<double, uint32_t>& x) { return a < x.first; });
      uint32_t best = kNone;
      double best_at = HUGE_VAL;
      for (ptrdiff_t j = (first_after - e.begin()) - 1; j < static_cast<ptrdiff_t>(e.size()); ++j) {
        const double from = j < 0 ? -HUGE_VAL : e[j].first;
        const double to = j + 1 < static_cast<ptrdiff_t>(e.size()) ? e[j + 1].first : HUGE_VAL;
        const double m = std::max(from, at);
        if (m > until) break;  // (later versions begin later still)
        if (!(m < to)) continue;
        uint32_t w = kNone;
        if (j < 0) {
          if (const std::optional<uint32_t> init = h_.initial_of(k); init && *init == value) w = kReadsInitial;
        } else if (const uint32_t lw = h_.last_write_of(e[j].second, k); lw != kNone && h_.ops[lw].value == value) {
          w = lw;
        }
        if (w == kNone || !consistent(v, w) || after_in_session(t, w)) continue;
        best = w, best_at = m;
        break;
      }
      if (best == kNone) continue;  // (the rank's guess stays)
      v.first[1] = best;
      at = best_at;
    }
  }
}

void Chooser::apply() {
  for (size_t i = 0; i < vars_.size(); ++i) work_.read_from[vars_[i].op] = cur_[i];
  compute_effective_status(work_);
}

}  // namespace isoscope::choice
