// Differential tests of the weak checkers (RC, RR, RA, CC) against the brute-force reference
// on many small random histories, plus the lattice, witness validity, and large histories
// whose verdict is known by construction (Serial: every level; Causal: CC).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "checkers/weak/weak.h"
#include "formats/formats.h"
#include "generate/random_history.h"
#include "reference.h"
#include "weak_witness.h"
#include "test_util.h"

using namespace isoscope;

namespace {

constexpr std::array<Level, 4> kWeak = {Level::RC, Level::RR, Level::RA, Level::CC};
using Checker = LevelResult (*)(const History&, const CheckBudget&);
constexpr std::array<Checker, 4> kWeakCheckers = {check_rc, check_rr, check_ra, check_cc};

// Random parameters for a small history (at most 7 transactions).
GenParams weak_params(Rng& rng, uint64_t seed) {
  GenParams p;
  p.seed = seed;
  p.sessions = 1 + rng.below(4);
  const uint32_t max_tps = std::max<uint32_t>(1, 7 / p.sessions);
  p.txns_per_session = 1 + rng.below(max_tps);
  if (p.sessions * p.txns_per_session < 2) p.txns_per_session = 2;
  p.min_ops = 1;
  p.max_ops = 2 + rng.below(3);
  p.keys = 1 + rng.below(3);
  p.read_ratio = 0.3 + 0.4 * rng.uniform();
  const uint32_t m = rng.below(20);
  p.mode = m < 2 ? GenMode::Serial : m < 14 ? GenMode::Causal : GenMode::Random;
  if (m >= 5 && m < 14) {  // causal views with stale reads: fail RC, RA or CC, keep so ∪ wr acyclic
    p.causal_stale_ratio = 0.2 + 0.5 * rng.uniform();
    p.sessions = 3 + rng.below(2);
    p.txns_per_session = 2;
    p.keys = 2;
    p.min_ops = 2;
  }
  p.sync_ratio = 0.3 + 0.7 * rng.uniform();
  p.stale_ratio = 0.05 + 0.45 * rng.uniform();
  p.wild_ratio = rng.chance(0.5) ? 0.0 : 0.1 * rng.uniform();
  p.thin_air_ratio = rng.chance(0.8) ? 0.0 : 0.02;
  p.abort_ratio = rng.chance(0.7) ? 0.0 : 0.15;
  p.unknown_ratio = rng.chance(0.8) ? 0.0 : 0.15;
  p.key_dist = rng.chance(0.8) ? KeyDist::Uniform : KeyDist::Hotspot;
  if (rng.chance(0.15)) {  // many keys, few of them hot: exercises the key-signature filters
    p.keys = 8 + rng.below(120);
    p.key_dist = KeyDist::Hotspot;
    p.hot_keys = 0.02;
  }
  p.timestamps = rng.chance(0.3);
  p.overlap = rng.below(3);
  return p;
}

// Runs the four checkers and the reference on one history and tallies the outcome.
struct WeakTally {
  std::array<int, 4> pass{}, fail{};
  // boundary[0]: fails RC although read consistent; boundary[i]: fails level i, passes i-1.
  std::array<int, 4> boundary{};
  int histories = 0, disagreements = 0, lattice_violations = 0, witness_errors = 0;

  void run(const History& h, uint64_t seed) {
    ++histories;
    CheckBudget budget;
    std::array<Verdict, 4> got{};
    for (size_t li = 0; li < kWeak.size(); ++li) {
      LevelResult r = kWeakCheckers[li](h, budget);
      got[li] = r.verdict;
      const Verdict want = reference_check(h, kWeak[li]);
      if (r.verdict != want && ++disagreements <= 5)
        ADD_FAILURE() << level_name(kWeak[li]) << ": checker says " << verdict_name(r.verdict)
                      << ", reference says " << verdict_name(want) << " (seed " << seed << ")\n"
                      << dump(h);
      (r.verdict == Verdict::Pass ? pass : fail)[li]++;
      if (r.verdict == Verdict::Fail && r.anomalies.empty() && ++witness_errors <= 5)
        ADD_FAILURE() << "fail without anomalies, seed " << seed;
      std::string bad = verify_weak_witnesses(h, kWeak[li], r);
      if (!bad.empty() && ++witness_errors <= 5)
        ADD_FAILURE() << level_name(kWeak[li]) << " witness: " << bad << " (seed " << seed
                      << ")\n" << dump(h);
    }
    if (got[0] == Verdict::Fail && reference_read_consistent(h)) ++boundary[0];
    for (size_t li = 1; li < got.size(); ++li) {
      if (got[li] == Verdict::Fail && got[li - 1] == Verdict::Pass) ++boundary[li];
      // Lattice: CC => RA => RR => RC.
      if (got[li] == Verdict::Pass && got[li - 1] != Verdict::Pass && ++lattice_violations <= 5)
        ADD_FAILURE() << level_name(kWeak[li]) << " passes but " << level_name(kWeak[li - 1])
                      << " fails (seed " << seed << ")";
    }
  }
  void print(const char* what) const {
    std::printf("  %s: %d histories\n", what, histories);
    for (size_t li = 0; li < kWeak.size(); ++li)
      std::printf("    %-3s pass %5d  fail %5d  (fails here first: %d)\n", level_name(kWeak[li]),
                  pass[li], fail[li], boundary[li]);
  }
};

}  // namespace

TEST(WeakDifferential, AgreesWithReferenceOnRandomSmallHistories) {
  const int kHistories = scaled(12000);
  Rng rng(20250611);
  WeakTally t;
  for (int i = 0; i < kHistories; ++i) {
    GenParams p = weak_params(rng, 1000 + i);
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok()) << eh.error().to_string();
    t.run(*eh, p.seed);
  }
  t.print("mixed");
  EXPECT_EQ(t.disagreements, 0);
  EXPECT_EQ(t.lattice_violations, 0);
  EXPECT_EQ(t.witness_errors, 0);
  for (size_t li = 0; li < kWeak.size(); ++li) {
    // Not vacuous: both outcomes occur often at every level, and many histories sit exactly
    // on the RC, RR and RA boundaries (pass the weaker level, fail this one).
    EXPECT_GT(t.pass[li], scaled_threshold(12000 / 10)) << level_name(kWeak[li]);
    EXPECT_GT(t.fail[li], scaled_threshold(12000 / 15)) << level_name(kWeak[li]);
    if (li < 3) EXPECT_GT(t.boundary[li], scaled_threshold(12000 / 40)) << level_name(kWeak[li]);
  }
}

TEST(WeakDifferential, AgreesWithReferenceOnTheCausalBoundary) {
  // Histories that pass RA and fail CC need a causal chain of at least two steps: four
  // sessions of causally merged views with stale reads produce them a few percent of the time.
  const int kHistories = scaled(6000);
  Rng rng(4242);
  WeakTally t;
  for (int i = 0; i < kHistories; ++i) {
    GenParams p;
    p.seed = 900000 + i;
    p.mode = GenMode::Causal;
    p.sessions = 4;
    p.txns_per_session = 2;
    p.keys = 3;
    p.min_ops = 2;
    p.max_ops = 3 + rng.below(2);
    p.read_ratio = 0.5 + 0.2 * rng.uniform();
    p.sync_ratio = 0.7 + 0.3 * rng.uniform();
    p.causal_stale_ratio = 0.2 + 0.4 * rng.uniform();
    p.abort_ratio = rng.chance(0.8) ? 0.0 : 0.1;
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok()) << eh.error().to_string();
    t.run(*eh, p.seed);
  }
  t.print("causal boundary");
  EXPECT_EQ(t.disagreements, 0);
  EXPECT_EQ(t.lattice_violations, 0);
  EXPECT_EQ(t.witness_errors, 0);
  EXPECT_GT(t.boundary[3], scaled_threshold(100));
  EXPECT_GT(t.pass[3], scaled_threshold(6000 / 4));
}

TEST(WeakDifferential, ReferenceIsSaneOnItsOwn) {
  // The reference's own lattice over all transactional levels, and the verdicts known by
  // construction: a Serial history satisfies SER (and SSER with timestamps), a Causal one CC.
  const std::array<Level, 7> chain = {Level::RC, Level::RR, Level::RA, Level::CC,
                                      Level::PC, Level::SI, Level::SER};
  Rng rng(77);
  int checked = 0, separations = 0;
  const int histories = scaled(2500);
  for (int i = 0; i < histories; ++i) {
    GenParams p = weak_params(rng, 500000 + i);
    p.txns_per_session = std::min<uint32_t>(p.txns_per_session, std::max<uint32_t>(1, 6 / p.sessions));
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok());
    const History& h = *eh;
    std::array<Verdict, 7> v{};
    for (size_t li = 0; li < chain.size(); ++li) v[li] = reference_check(h, chain[li]);
    for (size_t li = 1; li < chain.size(); ++li) {
      ASSERT_FALSE(v[li] == Verdict::Pass && v[li - 1] != Verdict::Pass)
          << level_name(chain[li]) << " passes, " << level_name(chain[li - 1]) << " does not\n"
          << dump(h);
      if (v[li] == Verdict::Fail && v[li - 1] == Verdict::Pass) ++separations;
    }
    if (p.mode == GenMode::Serial) {
      ASSERT_EQ(v[6], Verdict::Pass) << dump(h);
      if (p.timestamps) ASSERT_EQ(reference_check(h, Level::SSER), Verdict::Pass) << dump(h);
    }
    if (p.mode == GenMode::Causal && p.causal_stale_ratio == 0) ASSERT_EQ(v[3], Verdict::Pass) << dump(h);
    if (!p.timestamps) ASSERT_EQ(reference_check(h, Level::SSER), Verdict::NotApplicable);
    ++checked;
  }
  EXPECT_EQ(checked, histories);
  EXPECT_GT(separations, scaled_threshold(100));
}

TEST(WeakDifferential, LargeHistoriesWithKnownVerdicts) {
  CheckBudget budget;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    for (GenMode mode : {GenMode::Serial, GenMode::Causal}) {
      GenParams p;
      p.seed = seed;
      p.mode = mode;
      p.sessions = seed % 2 ? 8 : 40;
      p.txns_per_session = seed % 2 ? 150 : 30;
      p.max_ops = 6;
      p.keys = seed % 3 == 0 ? 5 : 60;
      p.key_dist = seed % 3 == 1 ? KeyDist::Zipf : KeyDist::Uniform;
      p.abort_ratio = 0.05;
      p.unknown_ratio = 0.05;
      Expected<History> eh = generate_history(p);
      ASSERT_TRUE(eh.ok());
      for (size_t li = 0; li < kWeak.size(); ++li) {
        LevelResult r = kWeakCheckers[li](*eh, budget);
        EXPECT_EQ(r.verdict, Verdict::Pass)
            << level_name(kWeak[li]) << " seed " << seed << " mode " << int(mode)
            << (r.anomalies.empty() ? "" : ": " + name_of(r.anomalies[0].kind) + ": " +
                                                r.anomalies[0].explanation);
      }
    }
  }
}

TEST(WeakDifferential, LargeRandomHistoriesKeepTheLatticeAndValidWitnesses) {
  CheckBudget budget;
  int fails = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    GenParams p;
    p.seed = seed;
    p.mode = GenMode::Random;
    p.sessions = 6;
    p.txns_per_session = 25;
    p.max_ops = 5;
    p.keys = 10;
    p.stale_ratio = 0.02 * seed;
    p.wild_ratio = seed % 2 ? 0.0 : 0.01;
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok());
    std::array<Verdict, 4> got{};
    for (size_t li = 0; li < kWeak.size(); ++li) {
      LevelResult r = kWeakCheckers[li](*eh, budget);
      got[li] = r.verdict;
      fails += r.verdict == Verdict::Fail;
      EXPECT_EQ(verify_weak_witnesses(*eh, kWeak[li], r), "") << level_name(kWeak[li]);
      if (li) {
        EXPECT_FALSE(got[li] == Verdict::Pass && got[li - 1] != Verdict::Pass) << seed;
      }
    }
  }
  EXPECT_GT(fails, 8);
}
