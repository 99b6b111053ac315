// The choice layer's strategy: the order of its steps (choice.h), and its entry points.
#include "checkers/choice/chooser.h"

#include "checkers/choice/serial_schedule.h"
#include "checkers/explain.h"
#include "checkers/strong/strong.h"
#include "checkers/weak/weak.h"

namespace isoscope::choice {

LevelResult Chooser::run() {
  LevelResult res;
  if (!leaf_) {
    res.verdict = Verdict::NotApplicable;
    res.reason = "not decided for histories with repeated values";
    return res;
  }
  // 1. Read consistency, every candidate considered.
  std::vector<Anomaly> bad = check_read_consistency(h_);
  if (!bad.empty()) {
    res.verdict = Verdict::Fail;
    res.anomalies = std::move(bad);
    res.anomalies_total = res.anomalies.size();
    return res;
  }
  // 2. The reads with a choice, and a first choice.
  const AmbiguousReads& A = h_.ambiguous;
  if (h_.has_timestamps) {
    start_.assign(h_.txns.size(), 0);
    end_.assign(h_.txns.size(), 0);
    for (uint32_t t = 1; t < h_.txns.size(); ++t)
      if (h_.txns[t].has_time()) start_[t] = h_.times[t].start.approx(), end_[t] = h_.times[t].end.approx();
  }
  double choices = 1;
  for (uint32_t i = 0; i < A.size(); ++i) {
    Var v;
    v.amb = i;
    v.op = A.op[i];
    v.txn = h_.op_txn[v.op];
    v.mine = kNone;
    const Txn& t = h_.txns[v.txn];
    const std::span<const uint32_t> cands = A.candidates_at(i);
    if (t.status == TxnStatus::Aborted) {  // its reads are no part of the history
      work_.read_from[v.op] = cands[0];
      continue;
    }
    for (uint32_t o = t.op_begin; o < v.op; ++o)
      if (h_.ops[o].is_write() && h_.ops[o].key == h_.ops[v.op].key) v.mine = o;
    if (!is_causal_model(level_) && cands.size() > kFewCandidates && first_by_time(v, cands)) {
      var_of_op_[v.op] = static_cast<uint32_t>(vars_.size());
      vars_.push_back(v);
      cur_.push_back(v.first[0]);
      continue;
    }
    std::vector<uint32_t> d = choosable(v);
    if (d.empty()) d.push_back(cands[0]);  // an unknown reader that never commits
    v.valid = static_cast<uint32_t>(d.size());
    for (int ph = 0; ph < kPhases; ++ph) {
      v.first[ph] = d[0];
      std::pair<int, double> best = rank(v, d[0], ph);
      for (uint32_t w : d)
        if (const auto r = rank(v, w, ph); r < best) v.first[ph] = w, best = r;
    }
    choices *= v.valid;
    var_of_op_[v.op] = static_cast<uint32_t>(vars_.size());
    vars_.push_back(v);
    cur_.push_back(v.first[0]);
  }
  if (h_.has_timestamps) sweep_read_committed();
  if (is_causal_model(level_) && choices > kMaxCausalChoices) {
    res.verdict = Verdict::NotApplicable;
    res.reason = std::string(level_name(level_)) + " is decided on repeated values only up to " +
                 std::to_string(static_cast<int>(kMaxCausalChoices)) +
                 " choices of reads-from (by enumeration; this history has more)";
    return res;
  }
  // 3-4. Check, learn, choose again.
  Anomaly best;
  std::vector<std::pair<uint32_t, uint32_t>> best_lits, lits;
  if (solver_only_) {
    LevelResult decided;
    if (!solver_applies()) {
      decided.verdict = Verdict::NotApplicable;
      return decided;
    }
    best_cur_ = cur_;
    if (decide_in_solver(decided, best, best_lits)) return decided;
    decided.verdict = Verdict::Unknown;
    decided.reason = "the solver's pass did not verify";
    return decided;
  }
  bool have_best = false;
  // Each phase's first choice is checked; the search goes on from the one with the fewest
  // anomalies (a phase that timestamps cannot tell apart is skipped).
  const int phases = h_.has_timestamps ? kPhases : 1;
  int phase = 0, best_phase = 0;
  size_t best_phase_anomalies = SIZE_MAX;
  // Every phase's first choice is checked before any is learned from: the one that passes
  // saves the learning (hundreds of projections) from the ones that do not.
  std::vector<LevelResult> first_results;
  for (int ph = 0; ph < phases; ++ph) {
    if (budget_.expired()) return CheckBudget::ran_out();
    for (size_t i = 0; i < vars_.size(); ++i) cur_[i] = vars_[i].first[ph];
    apply();
    ++tried_;
    LevelResult r = decide(work_, budget_);
    if (r.verdict != Verdict::Fail) {
      r.ms = 0;
      return r;
    }
    first_results.push_back(std::move(r));
  }
  // Refutations by values alone, which hold with every choice (cheap: no check, no learning).
  if (LevelResult decided; reads_cannot_repeat(decided) || updates_outnumber_versions(decided)) return decided;
  // The weak levels try the concurrent schedules at once (a short search, before SER's solver,
  // which gets a quarter of the time left; a thorough one after it); PC and SI after the history less
  // the ambiguous reads is checked. (SER and SSER have their serial search: an SI run's choice
  // rarely serves them, and a failed search costs them seconds where their solver decides.)
  if (LevelResult decided; !is_strong(level_) && concurrent_schedule_passes(decided, SearchEffort::Short)) return decided;
  // RC, RR, RA and CC: a choice that satisfies SER satisfies them too, and SER's solver finds
  // one where the nogoods of these levels converge slowly (minutes on VeriStrong's 10^4
  // transactions). Its choice is checked by the level's own checker, so a pass stays a pass.
  // SER gets a quarter of the time left (without a deadline, a first slice), then the thorough
  // concurrent search, then, without a deadline, SER again for as long as it takes. On a table,
  // when SER's solver finds none (the history is not serializable), SI's, then PC's, likewise:
  // a choice that satisfies them satisfies these levels too, and the tables of a
  // snapshot-isolation database (whose predicate reads are choices the schedule searches do not
  // make) otherwise leave these levels to the nogoods, which took minutes on a hundred
  // transactions of PostgreSQL's REPEATABLE READ. (Registers keep SER's alone: the schedule
  // searches serve them.)
  if ((level_ == Level::RC || level_ == Level::RR || level_ == Level::RA || level_ == Level::CC) &&
      depth_ == 0 && !solver_only_) {
    const auto ser_choice_passes = [&](const CheckBudget& ser_budget, LevelResult& out) {
      for (const auto& [level, leaf] : {std::pair<Level, LevelChecker>{Level::SER, check_ser}, std::pair<Level, LevelChecker>{Level::SI, check_si},
                                        std::pair<Level, LevelChecker>{Level::PC, check_pc}}) {
        if (ser_budget.expired() || (level != Level::SER && !h_.has_rows())) return false;
        Chooser strong(h_, level, leaf, ser_budget);
        if (!strong.solver_applies() || strong.run().verdict != Verdict::Pass || strong.cur_.size() != cur_.size()) continue;
        cur_ = strong.cur_;
        apply();
        ++tried_;
        out = decide(work_, budget_);
        out.ms = 0;
        return out.verdict == Verdict::Pass;
      }
      return false;
    };
    if (LevelResult decided; ser_choice_passes(first_slice(0.25), decided)) return decided;
    if (budget_.expired()) return CheckBudget::ran_out();
    if (LevelResult decided; concurrent_schedule_passes(decided, SearchEffort::Thorough)) return decided;
    if (LevelResult decided; unlimited() && ser_choice_passes(budget_, decided)) return decided;
    if (budget_.expired()) return CheckBudget::ran_out();
  }
  while (true) {
    if (budget_.expired()) return CheckBudget::ran_out();
    if (phase < phases)
      for (size_t i = 0; i < vars_.size(); ++i) cur_[i] = vars_[i].first[phase];
    apply();
    LevelResult r;
    if (phase < phases) {
      r = std::move(first_results[phase]);
    } else {
      ++tried_;
      r = decide(work_, budget_);
    }
    if (r.verdict != Verdict::Fail) {
      r.ms = 0;
      return r;  // a pass (with its commit order), or unknown
    }
    bool learned = false;
    for (size_t i = 0; i < r.anomalies.size() && i < kLearnPerCheck; ++i) {
      if (budget_.expired()) return CheckBudget::ran_out();
      if (!learn_from(r.anomalies[i], lits)) continue;
      if (!have_best || lits.size() < best_lits.size()) {
        best_cur_ = cur_;
        best = r.anomalies[i];
        best_lits = lits;
        have_best = true;
      }
      nogoods_.push_back(lits);
      learned = true;
      if (lits.empty()) break;
    }
    if (!learned) {
      whole_choice(lits);
      if (!have_best) {
        best_cur_ = cur_;
        best = r.anomalies.empty() ? Anomaly{} : r.anomalies[0];
        best_lits = lits;
        have_best = true;
      }
      nogoods_.push_back(lits);
    }
    if (phase < phases) {
      if (r.anomalies.size() < best_phase_anomalies) {
        best_phase_anomalies = r.anomalies.size();
        best_phase = phase;
      }
      if (++phase < phases && !nogoods_.back().empty()) continue;
      phase_ = best_phase;
      for (size_t i = 0; i < vars_.size(); ++i) cur_[i] = vars_[i].first[phase_];
      phase = phases;
      LevelResult decided;
      const bool concurrent = level_ == Level::PC || level_ == Level::SI;
      // The short searches first: where one finds the run (twitter-1k, in a step per
      // transaction) the check of the fixed reads, a whole history's, is saved; one stuck early
      // stops at its stall point.
      if (!nogoods_.back().empty() && concurrent && concurrent_schedule_passes(decided, SearchEffort::Short)) return decided;
      if (!nogoods_.back().empty() && schedule_passes(decided, SearchEffort::Short)) return decided;
      if (!nogoods_.back().empty() && depth_ == 0 && !is_causal_model(level_) && fixed_reads_fail(decided))
        return decided;
      if (!nogoods_.back().empty() && solver_applies()) {
        // The solver gets half the time left (without a deadline, a first slice), then a
        // thorough schedule search (PC and SI: concurrent; SER and SSER: serial), then, without
        // a deadline, the solver again for as long as it takes.
        const CheckBudget full = budget_;
        budget_ = first_slice(0.5);
        const bool done = decide_in_solver(decided, best, best_lits);
        budget_ = full;
        if (done && !(decided.verdict == Verdict::Unknown && !budget_.expired())) return decided;
        if (done && ((concurrent && concurrent_schedule_passes(decided, SearchEffort::Thorough)) || schedule_passes(decided, SearchEffort::Thorough)))
          return decided;
        if (done && unlimited() && decide_in_solver(decided, best, best_lits)) return decided;
      }
    }
    if (nogoods_.back().empty() || !next_choice()) {
      if (budget_.expired()) return CheckBudget::ran_out();
      return failure_of(annotate(best, best_lits));
    }
  }
}

bool Chooser::unlimited() const { return budget_.deadline_ms <= 0; }

CheckBudget Chooser::first_slice(double fraction) const {
  if (!unlimited()) return budget_.share(fraction);
  CheckBudget b = budget_;
  b.deadline_ms = now_ms() + kFirstSliceMs;
  return b;
}

bool Chooser::solver_applies() const {
  if (!is_strong(level_)) return false;
  // A transaction that may or may not have committed makes its writes (and reads) optional,
  // which the solver's problem does not express: those histories keep the enumeration.
  for (uint32_t t = 1; t < h_.txns.size(); ++t)
    if (h_.txns[t].status == TxnStatus::Unknown) return false;
  return true;
}

}  // namespace isoscope::choice

namespace isoscope {

using choice::Chooser;

LevelResult check_with_choices(const History& h, Level level, LevelChecker leaf, const CheckBudget& budget) {
  LevelResult res;
  if (!level_applies(h, level, res.reason)) {  // (SSER without timestamps, as its leaf says)
    res.verdict = Verdict::NotApplicable;
    return res;
  }
  Chooser c(h, level, leaf, budget);
  return c.run();
}

LevelResult check_with_choices_by_solver(const History& h, Level level, LevelChecker leaf, const CheckBudget& budget) {
  Chooser c(h, level, leaf, budget, /*solver_only=*/true);
  return c.run();
}

}  // namespace isoscope
