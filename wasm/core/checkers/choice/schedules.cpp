// The choice layer's schedule searches: the choices of a serial schedule and of a concurrent
// engine's run, found over the keys' values and checked by the level's own checker (chooser.h).
#include "checkers/choice/chooser.h"

#include "checkers/choice/serial_schedule.h"

namespace isoscope::choice {

bool Chooser::schedule_passes(LevelResult& out, SearchEffort effort) {
  // (The search runs over values: one initial value, a read of one value.)
  if ((level_ != Level::SER && level_ != Level::SSER) || h_.has_rows()) return false;
  // A search that finds nothing decides nothing: it gets a quarter of the time left and a
  // bounded number of steps, few enough that the short one costs little before the solver when
  // it fails (a quarter of SER's time on VeriStrong's PostgreSQL runs at 16 steps per
  // transaction, where the solver passes them at once). A thorough one (after the solver has
  // had half the time left) goes further, with backjumps.
  const SearchLimits limits = search_limits(effort, 4096);
  const SerialSchedule s = find_serial_schedule(h_, level_ == Level::SSER, budget_.share(0.25), limits.max_steps,
                                                effort == SearchEffort::Thorough, limits.stall_steps);
  if (!s.found) return false;
  for (size_t i = 0; i < vars_.size(); ++i)
    if (s.choice[vars_[i].amb] != kNone) cur_[i] = s.choice[vars_[i].amb];
  apply();
  ++tried_;
  // SER: the schedule's order is checked at once (the checker would replay the history to find
  // an order); SSER's real time is left to its checker.
  if (level_ == Level::SER && serial_order_holds(work_, s.order)) {
    out = pass_in_order(s.order);
    return true;
  }
  return current_choice_passes(out);
}

Chooser::SearchLimits Chooser::search_limits(SearchEffort effort, size_t thorough_base) const {
  const size_t n = h_.txns.size(), cap = size_t(1) << 21;
  switch (effort) {
    case SearchEffort::Short: return {std::min<size_t>(4 * n + 4096, cap), n + 1024};
    case SearchEffort::Thorough: break;
  }
  return {std::min<size_t>(256 * n + thorough_base, cap), SIZE_MAX};
}

LevelResult Chooser::pass_in_order(const std::vector<uint32_t>& order) {
  LevelResult r;
  r.verdict = Verdict::Pass;
  r.commit_order.reserve(order.size() + 1);
  r.commit_order.push_back(kInitialTxn);
  r.commit_order.insert(r.commit_order.end(), order.begin(), order.end());
  return r;
}

const ConcurrentSchedule& Chooser::concurrent_schedule(ScheduleModel model, SearchLimits limits) {
  LevelMemo::Schedule* m = memo_ ? &memo_->schedules[static_cast<int>(model)] : nullptr;
  // A schedule found serves any search; one that found none, a search no longer than the steps
  // it surely took (its limit, or its stall point if it stalled).
  if (m && m->result && (m->result->found || limits.max_steps <= std::min(m->max_steps, m->stall_steps)))
    return *m->result;
  schedule_ = std::make_shared<const ConcurrentSchedule>(
      find_concurrent_schedule(h_, model, budget_.share(0.25), limits.max_steps, limits.stall_steps));
  if (m && !schedule_->stopped) {
    memo_->history = &h_;
    m->result = schedule_, m->max_steps = limits.max_steps, m->stall_steps = limits.stall_steps;
  }
  return *schedule_;
}

bool Chooser::concurrent_schedule_passes(LevelResult& out, SearchEffort effort) {
  if (!is_transactional(level_) || h_.has_lists || h_.has_rows()) return false;
  // A bounded number of steps and a quarter of the time left: a search that finds nothing
  // decides nothing.
  const SearchLimits limits = search_limits(effort, 65536);
  // A choice that satisfies SI satisfies every level below it, and RC's its own; either may
  // satisfy a weak level, whose own checker decides.
  const ScheduleModel first = level_ == Level::RC ? ScheduleModel::ReadCommitted : ScheduleModel::SnapshotIsolation;
  const ScheduleModel second = level_ == Level::RC ? ScheduleModel::SnapshotIsolation : ScheduleModel::ReadCommitted;
  for (const ScheduleModel model : {first, second}) {
    if (budget_.expired()) return false;
    if (model == ScheduleModel::ReadCommitted && is_strong(level_)) continue;  // (never serves PC or SI)
    const ConcurrentSchedule& s = concurrent_schedule(model, limits);
    if (!s.found || s.choice.size() != h_.ambiguous.size()) continue;
    bool candidates = true;  // (a memo's choice is of this history: checked all the same)
    for (size_t i = 0; i < vars_.size() && candidates; ++i) {
      const uint32_t w = s.choice[vars_[i].amb];
      const std::span<const uint32_t> c = h_.ambiguous.candidates_at(vars_[i].amb);
      if (w == kNone) continue;
      candidates = std::binary_search(c.begin(), c.end(), w);
      cur_[i] = w;
    }
    if (!candidates) continue;
    apply();
    ++tried_;
    // PC and SI: the run's commit order is checked at once (their checker would replay the
    // history to find an order again).
    if (model == ScheduleModel::SnapshotIsolation && (level_ == Level::PC || level_ == Level::SI) &&
        snapshot_order_holds(work_, s.commits, level_ == Level::SI)) {
      out = pass_in_order(s.commits);
      return true;
    }
    if (current_choice_passes(out)) return true;
  }
  return false;
}

}  // namespace isoscope::choice
