#include "checkers/check.h"

#include "checkers/cycle_names.h"
#include "checkers/mtc/mtc.h"
#include "checkers/weak/weak.h"
#include "util/memory.h"

namespace isoscope {

namespace {

bool one_op_per_txn(const History& h) {
  for (uint32_t t = 1; t < h.txns.size(); ++t)
    if (h.txns[t].size() != 1) return false;
  return h.num_txns() > 0;
}

// Lightweight transactions (MTC Sec. IV-E): timestamped reads, inserts and read&writes of one
// key each (checkers/mtc/mtc.h).
bool lightweight_txns(const History& h) { return is_lightweight_history(h); }

// The strongest level decided as a pass (by its own checker) that implies l, or -1.
int stronger_pass(const CheckReport& report, Level l) {
  int best = -1;
  for (int j = 0; j < kNumLevels; ++j)
    if (report.requested[j] && report.results[j].verdict == Verdict::Pass &&
        !report.results[j].implied_by && is_weaker(l, static_cast<Level>(j)) &&
        (best < 0 || is_weaker(static_cast<Level>(best), static_cast<Level>(j))))
      best = j;
  return best;
}

// The stronger level's commit order (when it has one) is one of this level too: it is not
// repeated.
void set_implied_pass(LevelResult& r, Level by) {
  r = LevelResult{};
  r.verdict = Verdict::Pass;
  r.implied_by = by;
  r.reason = std::string("implied by the ") + level_name(by) + " pass";
}

}  // namespace

std::vector<Level> check_order(const History& h) {
  (void)h;
  // Weak levels weakest first: each is cheap, and a failure decides every stronger level.
  // Then the strong levels strongest first (SSER when the history has timestamps, whose
  // real-time edges usually make it the easiest): a pass decides every weaker one, so a
  // history that holds is searched once. Then the levels outside the chain.
  return {Level::RC,  Level::RR, Level::RA,  Level::CC, Level::SSER, Level::SER,
          Level::SI,  Level::PC, Level::WCC, Level::CCv, Level::CM,  Level::LIN};
}

bool level_applies(const History& h, Level l, std::string& reason) {
  // An object history (Jepsen registers, key-value stores, Porcupine's logs) has operations,
  // not transactions, and repeats written values: only LIN speaks about it.
  if (!h.registers.empty()) {
    if (l == Level::LIN) return true;
    reason = std::string("a non-transactional ") + object_model_name(h.registers.model) +
             " history: its operations are not transactions (LIN decides it)";
    return false;
  }
  switch (l) {
    case Level::SSER:
      if (!h.has_timestamps) {
        reason = "no timestamps";
        return false;
      }
      return true;
    case Level::WCC:
    case Level::CCv:
    case Level::CM:
      if (!one_op_per_txn(h)) {
        reason = "applies only to histories whose transactions each hold one operation";
        return false;
      }
      return true;
    case Level::LIN:
      if (!h.ambiguous.empty()) {
        reason = "applies only to histories whose reads each have one writer (this one has repeated values)";
        return false;
      }
      if (!lightweight_txns(h)) {
        reason = "applies only to timestamped lightweight transactions (read, insert, read&write of one key)";
        return false;
      }
      return true;
    default: return true;
  }
}

// A generous estimate of the working memory a level's checker needs beyond the history, from
// measurements (RC needs about 75 bytes per operation on a 24M-operation history; the strong
// levels hold per-node reachability over the sessions).
static size_t estimated_bytes(const History& h, Level l) {
  const size_t ops = h.num_ops(), txns = h.txns.size(), sessions = h.num_sessions() + 1;
  size_t bytes = 96 * ops + 64 * txns;
  if (l == Level::CC) bytes += cc_clock_bytes_estimate(h);
  if (is_strong(l)) {
    const size_t nodes = (l == Level::PC || l == Level::SI ? 2 : 1) * txns;
    bytes += 32 * ops + std::min<size_t>(nodes * sessions, size_t{48} << 20) * 8;
  }
  return bytes;
}

const LevelResult& decide_level(const History& h, Level l, const CheckOptions& opts, CheckReport& report) {
  const int i = static_cast<int>(l);
  report.requested[i] = true;
  LevelResult& r = report.results[i];
  r = LevelResult{};
  const double t0 = now_ms();
  if (!level_applies(h, l, r.reason)) {
    r.verdict = Verdict::NotApplicable;
  } else {
    // A failing weaker level decides this one (the lattice), without another search.
    int implied_by = -1;
    for (int j = 0; j < kNumLevels && implied_by < 0; ++j)
      if (j != i && report.requested[j] && report.results[j].verdict == Verdict::Fail &&
          is_weaker(static_cast<Level>(j), l))
        implied_by = j;
    // A passing stronger level decides it too: the strong checkers verify the commit order of
    // every pass they report, so the pass is sound and holds at every weaker level.
    const int implied_pass = implied_by >= 0 ? -1 : stronger_pass(report, l);
    if (implied_by >= 0) {
      const LevelResult& weaker = report.results[implied_by];
      r.verdict = Verdict::Fail;
      r.implied_by = static_cast<Level>(implied_by);
      r.reason = std::string("implied by the ") + level_name(*r.implied_by) + " violation";
      r.anomalies = weaker.anomalies;
      r.anomalies_total = weaker.anomalies_total;
      r.kinds = weaker.kinds;
    } else if (implied_pass >= 0) {
      set_implied_pass(r, static_cast<Level>(implied_pass));
    } else if (const size_t need = estimated_bytes(h, l); !can_allocate(need)) {
      // Refused before it starts: in wasm a failed allocation would abort the module.
      r.verdict = Verdict::Unknown;
      r.reason = "this level needs about " + std::to_string(need >> 20) +
                 " MB more memory than is available (a browser tab has 4 GB in all; the command line has the machine's)";
    } else {
      const LevelChecker checker = checker_for(l);
      CheckBudget budget;
      budget.deadline_ms = opts.budget_ms > 0 ? t0 + opts.budget_ms : 0;
      budget.cancelled = opts.cancelled;
      budget.cancelled_ctx = opts.cancelled_ctx;
      budget.cc_holds = report.requested[static_cast<int>(Level::CC)] &&
                        report.results[static_cast<int>(Level::CC)].verdict == Verdict::Pass;
      budget.cc_unknown = report.requested[static_cast<int>(Level::CC)] &&
                          report.results[static_cast<int>(Level::CC)].verdict == Verdict::Unknown;
      budget.ser_fails = report.requested[static_cast<int>(Level::SER)] &&
                         report.results[static_cast<int>(Level::SER)].verdict == Verdict::Fail;
      budget.memo = report.memo.get();
      budget.stats = opts.stats;
      struct ProgressCtx {
        const CheckOptions* opts;
        Level level;
      } progress_ctx{&opts, l};
      if (opts.on_progress) {
        budget.progress_ctx = &progress_ctx;
        budget.progress = [](void* ctx, size_t settled, size_t open) {
          auto* c = static_cast<ProgressCtx*>(ctx);
          c->opts->on_progress(c->level, settled, open);
        };
      }
      r = checker(h, budget);
    }
  }
  if (r.anomalies_total < r.anomalies.size()) r.anomalies_total = r.anomalies.size();
  // Counts per kind from every anomaly returned; the searches (PC and up, LIN) stop at a
  // counterexample, so theirs are lower bounds.
  if (!r.implied_by) summarize_kinds(r, l == Level::RC || l == Level::RR || l == Level::RA || l == Level::CC);
  if (r.anomalies.size() > opts.max_anomalies) r.anomalies.resize(opts.max_anomalies);
  for (KindCount& k : r.kinds)
    if (k.example >= r.anomalies.size()) k.example = kNone;
  name_level(h, report, l, opts.max_anomalies);
  // A pass may show that a failing level decided before it (a stronger one: check_order puts
  // SSER before SER, SER before SI and PC) named its anomaly by a kind this level forbids: name
  // those again (as check_history does once every level is decided).
  if (r.verdict == Verdict::Pass && is_transactional(l))
    for (int j = 0; j < kNumLevels; ++j)
      if (j != static_cast<int>(l) && report.requested[j] && report.results[j].verdict == Verdict::Fail)
        name_level(h, report, static_cast<Level>(j), opts.max_anomalies);
  r.ms = now_ms() - t0;
  if (opts.on_level) opts.on_level(l, r);
  return r;
}

CheckReport check_history(const History& h, const CheckOptions& opts) {
  CheckReport report;
  std::string reason;
  if (opts.levels.empty()) {
    for (int i = 0; i < kNumLevels; ++i) {
      Level l = static_cast<Level>(i);
      report.requested[i] = is_transactional(l) || level_applies(h, l, reason);
    }
  } else {
    for (Level l : opts.levels) report.requested[static_cast<int>(l)] = true;
  }

  for (Level l : check_order(h))
    if (report.requested[static_cast<int>(l)]) decide_level(h, l, opts, report);
  // A level left unknown (its budget ran out) before a stronger one passed holds after all.
  for (int i = 0; i < kNumLevels; ++i) {
    LevelResult& r = report.results[i];
    if (!report.requested[i] || r.verdict != Verdict::Unknown) continue;
    const int by = stronger_pass(report, static_cast<Level>(i));
    if (by < 0) continue;
    const double ms = r.ms;
    set_implied_pass(r, static_cast<Level>(by));
    r.ms = ms;
    if (opts.on_level) opts.on_level(static_cast<Level>(i), r);
  }
  name_anomalies(h, report, opts.max_anomalies);
  return report;
}

}  // namespace isoscope
