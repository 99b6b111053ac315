// CC over many sessions (issue 22, class 11): sparse vector clocks give the same verdicts and
// the same forced orderings as dense ones, and a history of 10^5 one-operation sessions is
// decided (dense clocks needed 10^5 x 10^5 entries and gave up as unknown).
#include <gtest/gtest.h>

#include "checkers/weak/weak.h"
#include "formats/formats.h"
#include "generate/random_history.h"
#include "reference.h"
#include "weak_witness.h"
#include "test_util.h"

using namespace isoscope;

namespace {

GenParams cc_params(Rng& rng, uint64_t seed) {
  GenParams p;
  p.seed = seed;
  p.sessions = 2 + rng.below(4);
  p.txns_per_session = 1 + rng.below(std::max<uint32_t>(1, 8 / p.sessions));  // the reference is exponential
  p.min_ops = 1;
  p.max_ops = 1 + rng.below(3);
  p.keys = 1 + rng.below(3);
  p.read_ratio = 0.3 + 0.4 * rng.uniform();
  const uint32_t m = rng.below(10);
  p.mode = m < 1 ? GenMode::Serial : m < 7 ? GenMode::Causal : GenMode::Random;
  p.causal_stale_ratio = m < 5 ? 0.2 + 0.5 * rng.uniform() : 0;
  p.sync_ratio = 0.3 + 0.7 * rng.uniform();
  p.abort_ratio = rng.chance(0.8) ? 0.0 : 0.15;
  p.unknown_ratio = rng.chance(0.8) ? 0.0 : 0.15;
  return p;
}

}  // namespace

TEST(CcSparseClocks, AgreeWithTheReferenceAndWithDenseClocks) {
  Rng rng(22011);
  int pass = 0, fail = 0;
  for (int i = 0, n = scaled(8000); i < n; ++i) {
    GenParams p = cc_params(rng, 7000 + i);
    Expected<History> h = generate_history(p);
    ASSERT_TRUE(h.ok());
    const LevelResult sparse = check_cc(*h, CheckBudget{}, CcClocks::Sparse);
    const LevelResult dense = check_cc(*h, CheckBudget{}, CcClocks::Dense);
    const Verdict want = reference_check(*h, Level::CC);  // unknown beyond 12 transactions
    if (want != Verdict::Unknown)
      ASSERT_EQ(sparse.verdict, want) << "seed " << p.seed << "\n" << write_isoscope_json(*h);
    ASSERT_EQ(sparse.verdict, dense.verdict) << "seed " << p.seed;
    ASSERT_EQ(sparse.anomalies.size(), dense.anomalies.size()) << "seed " << p.seed;
    ASSERT_EQ(verify_weak_witnesses(*h, Level::CC, sparse), "") << "seed " << p.seed;
    (sparse.verdict == Verdict::Pass ? pass : fail)++;
  }
  EXPECT_GT(pass, scaled_threshold(600));  // not vacuous: both verdicts are common
  EXPECT_GT(fail, scaled_threshold(600));
}

// Larger histories than the reference decides: both clock forms find the same anomalies.
TEST(CcSparseClocks, SameAnomaliesAsDenseOnLargerHistories) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    GenParams p;
    p.seed = seed;
    p.sessions = 20 + seed % 30;
    p.txns_per_session = 3 + seed % 5;
    p.keys = 4 + seed % 6;
    p.mode = seed % 3 == 0 ? GenMode::Random : GenMode::Causal;
    p.causal_stale_ratio = seed % 2 ? 0.1 : 0;
    Expected<History> h = generate_history(p);
    ASSERT_TRUE(h.ok());
    const LevelResult sparse = check_cc(*h, CheckBudget{}, CcClocks::Sparse);
    const LevelResult dense = check_cc(*h, CheckBudget{}, CcClocks::Dense);
    ASSERT_EQ(sparse.verdict, dense.verdict) << "seed " << seed;
    ASSERT_EQ(sparse.anomalies_total, dense.anomalies_total) << "seed " << seed;
    ASSERT_EQ(sparse.anomalies.size(), dense.anomalies.size()) << "seed " << seed;
    for (size_t i = 0; i < sparse.anomalies.size(); ++i)
      EXPECT_EQ(sparse.anomalies[i].explanation, dense.anomalies[i].explanation) << "seed " << seed;
  }
}

// 10^5 sessions of one operation each, reads of other sessions' writes: decided, and the
// memory estimate is per transaction, not per transaction and session.
TEST(CcSparseClocks, ManyOneOperationSessionsAreDecided) {
  GenParams p;
  p.seed = 5;
  p.sessions = 100000;
  p.txns_per_session = 1;
  p.min_ops = p.max_ops = 1;
  Expected<History> h = generate_history(p);
  ASSERT_TRUE(h.ok());
  const LevelResult r = check_cc(*h, CheckBudget{});
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.reason;
  EXPECT_LT(cc_clock_bytes_estimate(*h), size_t{100} * h->txns.size());
}
