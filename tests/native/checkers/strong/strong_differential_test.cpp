// Differential tests of the strong checkers (PC, SI, SER, SSER) against the brute-force
// reference on many small random histories, with witness validation (commit orders checked
// against the axioms, cores checked by the reference), the lattice, the ablations (no
// saturation / no decomposition / no reduction must not change a verdict), and large histories
// whose verdict is known by construction.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>

#include "checkers/check.h"
#include "checkers/strong/strong.h"
#include "checkers/weak/weak.h"
#include "formats/formats.h"
#include "generate/random_history.h"
#include "reference.h"
#include "strong_witness.h"
#include "test_util.h"

using namespace isoscope;

namespace {

constexpr std::array<Level, 4> kStrong = {Level::PC, Level::SI, Level::SER, Level::SSER};

// Random parameters for a small history (at most 8 transactions).
GenParams strong_params(Rng& rng, uint64_t seed, bool force_time) {
  GenParams p;
  p.seed = seed;
  p.sessions = 1 + rng.below(4);
  const uint32_t max_tps = std::max<uint32_t>(1, 8 / p.sessions);
  p.txns_per_session = 1 + rng.below(max_tps);
  if (p.sessions * p.txns_per_session < 2) p.txns_per_session = 2;
  p.min_ops = 1;
  p.max_ops = 2 + rng.below(3);
  p.keys = 1 + rng.below(4);
  p.read_ratio = 0.3 + 0.4 * rng.uniform();
  const uint32_t m = rng.below(20);
  p.mode = m < 5 ? GenMode::Serial : m < 11 ? GenMode::Causal : GenMode::Random;
  p.sync_ratio = 0.2 + 0.8 * rng.uniform();
  p.stale_ratio = 0.05 + 0.4 * rng.uniform();
  p.wild_ratio = rng.chance(0.7) ? 0.0 : 0.05 * rng.uniform();
  p.thin_air_ratio = 0.0;
  p.abort_ratio = rng.chance(0.8) ? 0.0 : 0.15;
  p.unknown_ratio = rng.chance(0.85) ? 0.0 : 0.15;
  p.key_dist = rng.chance(0.8) ? KeyDist::Uniform : KeyDist::Hotspot;
  p.timestamps = force_time || rng.chance(0.4);
  p.overlap = rng.below(4);
  return p;
}

struct StrongTally {
  std::array<int, 4> pass{}, fail{}, na{}, boundary{};
  int histories = 0, disagreements = 0, witness_errors = 0, lattice_violations = 0, ablation = 0;
  std::array<int, 4> by_saturation{}, by_solver{};

  void run(const History& h, uint64_t seed, bool ablate) {
    ++histories;
    CheckBudget budget;
    std::array<Verdict, 4> got{};
    for (size_t li = 0; li < kStrong.size(); ++li) {
      const Level l = kStrong[li];
      StrongReport r = check_strong(h, l, budget);
      got[li] = r.result.verdict;
      const Verdict want = reference_check(h, l);
      if (r.result.verdict != want && ++disagreements <= 5)
        ADD_FAILURE() << level_name(l) << ": checker says " << verdict_name(r.result.verdict)
                      << ", reference says " << verdict_name(want) << " (seed " << seed << ")\n"
                      << dump(h);
      if (r.result.verdict == Verdict::Pass) ++pass[li];
      if (r.result.verdict == Verdict::Fail) ++fail[li];
      if (r.result.verdict == Verdict::NotApplicable) ++na[li];
      by_saturation[li] += r.stats.settled_by_saturation;
      by_solver[li] += r.stats.by_solver;
      std::string bad = verify_strong_report(h, l, r, true);
      if (!bad.empty() && ++witness_errors <= 5)
        ADD_FAILURE() << level_name(l) << " witness: " << bad << " (seed " << seed << ")\n" << dump(h);
      if (ablate) {
        // Ablations: each pruning step off; 4: the session-antichain search instead of the
        // solver; 5: no forced edges, so the solver meets every open constraint; 6: no
        // candidate order; 7: the lazy polygraph instead of saturation; 8: saturation stops
        // after three rounds whenever a round forces little (as on large problems).
        for (int a = 0; a < 9; ++a) {
          StrongOptions o;
          o.saturate = a != 0;
          o.decompose = a != 1;
          o.reduce = a != 2;
          o.ser_first = a != 3;
          o.solver = a != 4;
          o.force = a != 5;
          o.candidate = a != 6;
          if (a == 7) o.lazy_above = o.lazy_untimed_above = 0;
          if (a == 8) o.candidate = false, o.long_tail_reach = 0;
          o.minimize = false;
          StrongReport q = check_strong(h, l, budget, o);
          if (q.result.verdict != want && ++ablation <= 5)
            ADD_FAILURE() << level_name(l) << " ablation " << a << ": "
                          << verdict_name(q.result.verdict) << " vs " << verdict_name(want)
                          << " (seed " << seed << ")\n" << dump(h);
        }
      }
    }
    // Lattice SSER => SER => SI => PC; and CC => ... is the weak checkers' business.
    for (size_t li = 1; li < 3; ++li) {
      if (got[li] == Verdict::Pass && got[li - 1] != Verdict::Pass && ++lattice_violations <= 5)
        ADD_FAILURE() << level_name(kStrong[li]) << " passes but " << level_name(kStrong[li - 1])
                      << " does not (seed " << seed << ")";
      if (got[li] == Verdict::Fail && got[li - 1] == Verdict::Pass) ++boundary[li];
    }
    if (got[3] == Verdict::Pass && got[2] != Verdict::Pass && ++lattice_violations <= 5)
      ADD_FAILURE() << "SSER passes but SER does not (seed " << seed << ")";
    if (got[3] == Verdict::Fail && got[2] == Verdict::Pass) ++boundary[3];
  }
  void print(const char* what) const {
    std::printf("  %s: %d histories\n", what, histories);
    for (size_t li = 0; li < kStrong.size(); ++li)
      std::printf("    %-4s pass %5d  fail %5d  n/a %5d  (fails here first: %d; settled by saturation: %d; "
                  "by the solver: %d)\n",
                  level_name(kStrong[li]), pass[li], fail[li], na[li], boundary[li], by_saturation[li],
                  by_solver[li]);
  }
};

}  // namespace

TEST(StrongDifferential, AgreesWithReferenceOnRandomSmallHistories) {
  const int kHistories = scaled(12000);
  Rng rng(20250612);
  StrongTally t;
  for (int i = 0; i < kHistories; ++i) {
    GenParams p = strong_params(rng, 7000 + i, false);
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok()) << eh.error().to_string();
    t.run(*eh, p.seed, i % 4 == 0);
  }
  t.print("mixed");
  EXPECT_EQ(t.disagreements, 0);
  EXPECT_EQ(t.witness_errors, 0);
  EXPECT_EQ(t.lattice_violations, 0);
  EXPECT_EQ(t.ablation, 0);
  for (size_t li = 0; li < 3; ++li) {
    EXPECT_GT(t.pass[li], scaled_threshold(12000 / 10)) << level_name(kStrong[li]);
    EXPECT_GT(t.fail[li], scaled_threshold(12000 / 15)) << level_name(kStrong[li]);
  }
  // Not vacuous: histories on each boundary (pass the weaker level, fail this one).
  EXPECT_GT(t.boundary[1], scaled_threshold(50));
  EXPECT_GT(t.boundary[2], scaled_threshold(50));
}

TEST(StrongDifferential, AgreesWithReferenceOnTimestampedHistories) {
  // SSER needs timestamps: 10,000 timestamped histories (all four levels again).
  const int kHistories = scaled(10000);
  Rng rng(99173);
  StrongTally t;
  for (int i = 0; i < kHistories; ++i) {
    GenParams p = strong_params(rng, 3000000 + i, true);
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok()) << eh.error().to_string();
    t.run(*eh, p.seed, i % 8 == 0);
  }
  t.print("timestamped");
  EXPECT_EQ(t.disagreements, 0);
  EXPECT_EQ(t.witness_errors, 0);
  EXPECT_EQ(t.lattice_violations, 0);
  EXPECT_EQ(t.ablation, 0);
  EXPECT_GT(t.pass[3], scaled_threshold(10000 / 10));
  EXPECT_GT(t.fail[3], scaled_threshold(10000 / 10));
  EXPECT_GT(t.boundary[3], scaled_threshold(50));
}

TEST(StrongDifferential, AgreesWithReferenceOnTheStrongBoundaries) {
  // Causal histories with several sessions and few keys: the PC / SI / SER boundaries
  // (long forks, lost updates, write skews) with only causally consistent reads.
  const int kHistories = scaled(6000);
  Rng rng(5151);
  StrongTally t;
  for (int i = 0; i < kHistories; ++i) {
    GenParams p;
    p.seed = 8800000 + i;
    p.mode = GenMode::Causal;
    p.sessions = 2 + rng.below(3);
    p.txns_per_session = std::max<uint32_t>(1, (8 / p.sessions) - rng.below(2));
    p.keys = 2 + rng.below(2);
    p.min_ops = 1;
    p.max_ops = 2 + rng.below(3);
    p.read_ratio = 0.4 + 0.3 * rng.uniform();
    p.sync_ratio = 0.2 + 0.7 * rng.uniform();
    p.timestamps = rng.chance(0.3);
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok()) << eh.error().to_string();
    t.run(*eh, p.seed, i % 4 == 0);
  }
  t.print("strong boundaries");
  EXPECT_EQ(t.disagreements, 0);
  EXPECT_EQ(t.witness_errors, 0);
  EXPECT_EQ(t.lattice_violations, 0);
  EXPECT_EQ(t.ablation, 0);
  EXPECT_GT(t.boundary[1], scaled_threshold(100));  // SI fails, PC passes
  EXPECT_GT(t.boundary[2], scaled_threshold(100));  // SER fails, SI passes
}

TEST(StrongDifferential, LargeSerialHistoriesPass) {
  CheckBudget budget;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    GenParams p;
    p.seed = seed;
    p.mode = GenMode::Serial;
    p.sessions = seed % 2 ? 8 : 30;
    p.txns_per_session = seed % 2 ? scaled(150, 30) : scaled(40, 10);
    p.max_ops = 6;
    p.keys = seed % 3 == 0 ? 5 : 60;
    p.key_dist = seed % 3 == 1 ? KeyDist::Zipf : KeyDist::Uniform;
    p.abort_ratio = 0.05;
    p.unknown_ratio = 0.05;
    p.timestamps = true;
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok());
    for (Level l : kStrong) {
      StrongReport r = check_strong(*eh, l, budget);
      EXPECT_EQ(r.result.verdict, Verdict::Pass)
          << level_name(l) << " seed " << seed
          << (r.result.anomalies.empty() ? "" : ": " + name_of(r.result.anomalies[0].kind) + ": " +
                                                    r.result.anomalies[0].explanation);
      EXPECT_EQ(verify_commit_order(*eh, l, r.result.commit_order), "") << level_name(l) << " seed " << seed;
    }
  }
}

TEST(StrongDifferential, BudgetGivesUnknownNeverAWrongAnswer) {
  // A hard instance (many sessions, causal reads): with a tiny budget the answer is unknown
  // or agrees with the unbudgeted one.
  GenParams p;
  p.seed = 42;
  p.mode = GenMode::Causal;
  p.sessions = 24;
  p.txns_per_session = 30;
  p.keys = 40;
  p.sync_ratio = 0.9;
  Expected<History> eh = generate_history(p);
  ASSERT_TRUE(eh.ok());
  CheckBudget tiny;
  tiny.deadline_ms = now_ms() + 1;
  for (Level l : {Level::PC, Level::SI, Level::SER}) {
    StrongReport r = check_strong(*eh, l, tiny);
    if (r.result.verdict == Verdict::Unknown) EXPECT_FALSE(r.result.reason.empty());
  }
  // Cancellation.
  CheckBudget cancelled;
  cancelled.cancelled = [](void*) { return true; };
  StrongReport r = check_strong(*eh, Level::SER, cancelled);
  EXPECT_NE(r.result.verdict, Verdict::Pass == r.result.verdict ? Verdict::Fail : Verdict::Pass);
}

TEST(StrongDifferential, CheckHistoryUsesTheStrongCheckers) {
  GenParams p;
  p.seed = 3;
  p.mode = GenMode::Serial;
  p.sessions = 4;
  p.txns_per_session = 20;
  p.timestamps = true;
  Expected<History> eh = generate_history(p);
  ASSERT_TRUE(eh.ok());
  CheckOptions o;
  std::vector<Level> progress;
  o.on_level = [&](Level l, const LevelResult&) { progress.push_back(l); };
  CheckReport rep = check_history(*eh, o);
  for (Level l : kStrong) EXPECT_EQ(rep.results[static_cast<int>(l)].verdict, Verdict::Pass) << level_name(l);
  EXPECT_GE(progress.size(), 8u);
}

// The polygraph solver against the session-antichain search on mid-size histories (too large
// for the brute-force reference): wherever the search decides within its budget, both agree,
// and the solver's witnesses verify. Causal-mode histories with many sessions are the shape the
// solver is for (the search is exponential in the number of sessions there).
TEST(StrongDifferential, SolverAgreesWithTheSearchOnMidSizeHistories) {
  int compared = 0, by_solver = 0, disagreements = 0, witness_errors = 0, search_unknown = 0;
  std::array<int, 2> verdicts{};
  for (uint64_t i = 0, n = scaled(400); i < n; ++i) {
    Rng rng(7700000 + i);
    GenParams p;
    p.seed = 7700000 + i;
    p.sessions = 3 + rng.below(6);
    p.txns_per_session = 6 + rng.below(20);
    p.min_ops = 1;
    p.max_ops = 3 + rng.below(5);
    p.keys = 3 + rng.below(30);
    p.read_ratio = 0.3 + 0.5 * rng.uniform();
    const uint32_t m = rng.below(10);
    p.mode = m < 3 ? GenMode::Serial : m < 8 ? GenMode::Causal : GenMode::Random;
    p.sync_ratio = 0.5 + 0.5 * rng.uniform();
    p.stale_ratio = 0.02 + 0.1 * rng.uniform();
    p.wild_ratio = 0;
    p.timestamps = rng.chance(0.3);
    p.overlap = rng.below(6);
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok());
    for (Level l : kStrong) {
      StrongOptions solver_opts, search_opts;
      solver_opts.minimize = search_opts.minimize = false;
      search_opts.solver = false;
      search_opts.ser_first = solver_opts.ser_first = false;
      solver_opts.force = i % 2 == 0;  // half without forced edges: the solver meets everything
      CheckBudget budget;
      budget.deadline_ms = now_ms() + 200;
      StrongReport s = check_strong(*eh, l, budget, search_opts);
      StrongReport r = check_strong(*eh, l, CheckBudget{}, solver_opts);
      by_solver += r.stats.by_solver;
      ASSERT_NE(r.result.verdict, Verdict::Unknown) << level_name(l) << " seed " << p.seed;
      const std::string bad = verify_strong_report(*eh, l, r, false);
      if (!bad.empty() && ++witness_errors <= 5)
        ADD_FAILURE() << level_name(l) << " witness: " << bad << " (seed " << p.seed << ")";
      if (s.result.verdict == Verdict::Unknown) {
        ++search_unknown;
        continue;
      }
      ++compared;
      if (r.result.verdict == Verdict::Pass) ++verdicts[0];
      if (r.result.verdict == Verdict::Fail) ++verdicts[1];
      if (s.result.verdict != r.result.verdict && ++disagreements <= 5)
        ADD_FAILURE() << level_name(l) << ": solver " << verdict_name(r.result.verdict) << ", search "
                      << verdict_name(s.result.verdict) << " (seed " << p.seed << ")";
    }
  }
  std::printf("  compared %d (pass %d, fail %d); decided by the solver %d; search unknown %d\n",
              compared, verdicts[0], verdicts[1], by_solver, search_unknown);
  EXPECT_EQ(disagreements, 0);
  EXPECT_EQ(witness_errors, 0);
  EXPECT_GT(by_solver, scaled_threshold(200));
  EXPECT_GT(verdicts[0], scaled_threshold(100));
  EXPECT_GT(verdicts[1], scaled_threshold(100));
}

// An all-levels check decides CC once: the strong levels, which imply it, reuse that verdict.
TEST(StrongDifferential, AnAllLevelsCheckRunsCcOnce) {
  GenParams p;
  p.seed = 11;
  p.mode = GenMode::Serial;  // every level passes, so every strong level really runs
  p.sessions = 4;
  p.txns_per_session = 20;
  p.timestamps = true;
  Expected<History> eh = generate_history(p);
  ASSERT_TRUE(eh.ok());
  CheckStats stats;
  CheckOptions o;
  o.stats = &stats;
  const CheckReport r = check_history(*eh, o);
  EXPECT_EQ(stats.cc_runs, 1u);
  for (Level l : kStrong) EXPECT_EQ(r.results[static_cast<int>(l)].verdict, Verdict::Pass) << level_name(l);
  // Alone, a strong level still checks CC itself.
  CheckStats alone;
  CheckBudget b;
  b.stats = &alone;
  (void)check_strong(*eh, Level::SER, b);
  EXPECT_EQ(alone.cc_runs, 1u);
}

// CC left unknown by its budget: the strong levels, which need it to hold, do not run it again
// (at 10^6 transactions each would spend another budget to the same end).
TEST(StrongDifferential, CcLeftUnknownIsNotRunAgainByTheStrongLevels) {
  GenParams p;
  p.seed = 3;
  p.mode = GenMode::Serial;
  p.sessions = 50;
  p.txns_per_session = 400;
  p.timestamps = true;
  Expected<History> eh = generate_history(p);
  ASSERT_TRUE(eh.ok());
  CheckStats stats;
  CheckOptions o;
  o.budget_ms = 1;  // 20,000 transactions: CC polls its budget every 4,096
  o.stats = &stats;
  const CheckReport r = check_history(*eh, o);
  ASSERT_EQ(r.results[static_cast<int>(Level::CC)].verdict, Verdict::Unknown);
  EXPECT_EQ(stats.cc_runs, 1u);
  for (Level l : kStrong) {
    EXPECT_EQ(r.results[static_cast<int>(l)].verdict, Verdict::Unknown) << level_name(l);
    EXPECT_NE(r.results[static_cast<int>(l)].reason.find("causal consistency"), std::string::npos) << level_name(l);
  }
}

// The lattice both ways in check_history: on a serial timestamped history SSER is decided first
// and its pass decides SER, SI and PC (one search); a failure still propagates upward.
TEST(StrongDifferential, APassingStrongerLevelDecidesTheWeakerOnes) {
  GenParams p;
  p.seed = 5;
  p.mode = GenMode::Serial;
  p.sessions = 6;
  p.txns_per_session = 30;
  p.timestamps = true;
  Expected<History> eh = generate_history(p);
  ASSERT_TRUE(eh.ok());
  std::vector<Level> decided;
  CheckOptions o;
  o.on_level = [&](Level l, const LevelResult&) { decided.push_back(l); };
  const CheckReport r = check_history(*eh, o);
  const LevelResult& sser = r.results[static_cast<int>(Level::SSER)];
  EXPECT_EQ(sser.verdict, Verdict::Pass);
  EXPECT_FALSE(sser.implied_by.has_value());
  EXPECT_FALSE(sser.commit_order.empty());
  for (Level l : {Level::SER, Level::SI, Level::PC}) {
    const LevelResult& x = r.results[static_cast<int>(l)];
    EXPECT_EQ(x.verdict, Verdict::Pass) << level_name(l);
    ASSERT_TRUE(x.implied_by.has_value()) << level_name(l);
    EXPECT_EQ(*x.implied_by, Level::SSER) << level_name(l);
    EXPECT_EQ(x.reason, "implied by the SSER pass");
  }
  // Strong levels strongest first: SSER before SER, SI and PC.
  const auto at = [&](Level l) { return std::find(decided.begin(), decided.end(), l) - decided.begin(); };
  EXPECT_LT(at(Level::SSER), at(Level::SER));
  EXPECT_LT(at(Level::SER), at(Level::PC));
  // Without SSER requested, SER settles SI and PC.
  CheckOptions some;
  some.levels = {Level::PC, Level::SER, Level::SI};
  const CheckReport s = check_history(*eh, some);
  EXPECT_FALSE(s.results[static_cast<int>(Level::SER)].implied_by.has_value());
  EXPECT_EQ(s.results[static_cast<int>(Level::PC)].implied_by, Level::SER);
  EXPECT_EQ(s.results[static_cast<int>(Level::SI)].implied_by, Level::SER);
  // A level left unknown before a stronger one passed is reported as the pass it is.
  CheckReport manual;
  manual.requested[static_cast<int>(Level::SI)] = true;
  manual.results[static_cast<int>(Level::SI)].verdict = Verdict::Unknown;
  decide_level(*eh, Level::SER, CheckOptions{}, manual);
  EXPECT_EQ(decide_level(*eh, Level::SI, CheckOptions{}, manual).implied_by, Level::SER);
}

// The lazy polygraph (only the constraints a candidate order violates go to the solver) against
// saturation and the solver on many-session hot-key histories, too large for the reference:
// the same verdict wherever both decide, and verified witnesses.
TEST(StrongDifferential, LazyPolygraphAgreesOnManySessionHotKeyHistories) {
  int compared = 0, disagreements = 0, witness_errors = 0, lazy_unknown = 0;
  std::array<int, 2> verdicts{};
  for (uint64_t i = 0, n = scaled(120); i < n; ++i) {
    Rng rng(9100000 + i);
    GenParams p;
    p.seed = 9100000 + i;
    p.sessions = 12 + rng.below(40);
    p.txns_per_session = 2 + rng.below(6);
    p.min_ops = 1;
    p.max_ops = 2 + rng.below(4);
    p.keys = 1 + rng.below(4);
    p.read_ratio = 0.3 + 0.5 * rng.uniform();
    const uint32_t m = rng.below(10);
    p.mode = m < 4 ? GenMode::Serial : m < 8 ? GenMode::Causal : GenMode::Random;
    p.sync_ratio = 0.5 + 0.5 * rng.uniform();
    p.stale_ratio = 0.02 + 0.1 * rng.uniform();
    p.wild_ratio = 0;
    p.key_dist = rng.chance(0.5) ? KeyDist::Uniform : KeyDist::Hotspot;
    p.timestamps = rng.chance(0.5);
    p.overlap = rng.below(6);
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok());
    for (Level l : kStrong) {
      StrongOptions lazy, eager;
      lazy.minimize = eager.minimize = false;
      lazy.lazy_above = lazy.lazy_untimed_above = 0;
      eager.lazy = false;
      CheckBudget b1, b2;
      b1.deadline_ms = now_ms() + 2000;
      const StrongReport z = check_strong(*eh, l, b1, lazy);
      b2.deadline_ms = now_ms() + 2000;
      const StrongReport e = check_strong(*eh, l, b2, eager);
      const std::string bad = verify_strong_report(*eh, l, z, false);
      if (!bad.empty() && ++witness_errors <= 5)
        ADD_FAILURE() << level_name(l) << " lazy witness: " << bad << " (seed " << p.seed << ")";
      if (z.result.verdict == Verdict::Unknown) ++lazy_unknown;
      if (z.result.verdict == Verdict::Unknown || e.result.verdict == Verdict::Unknown) continue;
      ++compared;
      if (z.result.verdict == Verdict::Pass) ++verdicts[0];
      if (z.result.verdict == Verdict::Fail) ++verdicts[1];
      if (z.result.verdict != e.result.verdict && ++disagreements <= 5)
        ADD_FAILURE() << level_name(l) << ": lazy " << verdict_name(z.result.verdict) << ", saturation "
                      << verdict_name(e.result.verdict) << " (seed " << p.seed << ")";
    }
  }
  std::printf("  compared %d (pass %d, fail %d); lazy unknown %d\n", compared, verdicts[0], verdicts[1],
              lazy_unknown);
  EXPECT_EQ(disagreements, 0);
  EXPECT_EQ(witness_errors, 0);
  EXPECT_GT(verdicts[0], scaled_threshold(50));
  EXPECT_GT(verdicts[1], scaled_threshold(50));
}
