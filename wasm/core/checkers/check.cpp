#include "checkers/check.h"

#include "checkers/mtc/mtc.h"
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

}  // namespace

bool level_applies(const History& h, Level l, std::string& reason) {
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
  if (l == Level::CC) bytes += txns * std::min<size_t>(sessions, 4096) * 4;
  if (l == Level::PC || l == Level::SI || l == Level::SER || l == Level::SSER) {
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
    if (implied_by >= 0) {
      const LevelResult& weaker = report.results[implied_by];
      r.verdict = Verdict::Fail;
      r.implied_by = static_cast<Level>(implied_by);
      r.reason = std::string("implied by the ") + level_name(*r.implied_by) + " violation";
      r.anomalies = weaker.anomalies;
      r.anomalies_total = weaker.anomalies_total;
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
  if (r.anomalies.size() > opts.max_anomalies) r.anomalies.resize(opts.max_anomalies);
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

  for (int i = 0; i < kNumLevels; ++i)  // enum order is weakest first along the chain
    if (report.requested[i]) decide_level(h, static_cast<Level>(i), opts, report);
  return report;
}

}  // namespace isoscope
