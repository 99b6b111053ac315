// CC keeps only the forced orderings that no other one implies through session order (the
// staircase per pair of sessions, checkers/weak/cc.cpp). The kept edges must give the same
// verdict and the same strongly connected components (hence the same number of cycle
// anomalies) as every ordering the axiom forces, and each witness must be a real cycle.
// Checked here against a brute force over histories with many sessions and hot keys, larger
// than the exponential reference decides, and against the checker keeping every edge.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "checkers/read_consistency.h"
#include "checkers/weak/common.h"
#include "checkers/weak/weak.h"
#include "formats/formats.h"
#include "generate/random_history.h"
#include "graph/digraph.h"
#include "weak_witness.h"
#include "test_util.h"

using namespace isoscope;

namespace {

// so ∪ wr and every ordering the CC axiom forces: t1 -wr_x-> t3, t2 != t1 writes x,
// t2 -(so ∪ wr)+-> t3  =>  t2 -> t1; and the number of non-trivial strongly connected
// components of their union. When so ∪ wr alone is cyclic, the checker reports its components
// (it has no happens-before order to visit), and so does this.
struct Brute {
  DigraphBuilder hb_edges{0};
  bool hb_cyclic = false;
  std::vector<std::pair<uint32_t, uint32_t>> forced;
  size_t components = 0;
};

size_t nontrivial_components(const Digraph& g) {
  uint32_t count = 0;
  const std::vector<uint32_t> comp = strongly_connected_components(g, count);
  std::vector<uint32_t> size(count, 0);
  for (uint32_t c : comp) ++size[c];
  return static_cast<size_t>(std::count_if(size.begin(), size.end(), [](uint32_t z) { return z > 1; }));
}

// reach[a][b]: a path of g leads from a to b (a != b).
std::vector<std::vector<char>> reachability(const Digraph& g) {
  std::vector<std::vector<char>> reach(g.n, std::vector<char>(g.n, 0));
  for (uint32_t a = 0; a < g.n; ++a) {
    std::vector<uint32_t> stack{a};
    while (!stack.empty()) {
      const uint32_t u = stack.back();
      stack.pop_back();
      for (uint32_t e = g.begin(u); e < g.end(u); ++e) {
        const uint32_t v = g.targets[e];
        if (reach[a][v]) continue;
        reach[a][v] = 1;
        stack.push_back(v);
      }
    }
  }
  return reach;
}

Brute brute_cc(const History& h) {
  const uint32_t n = static_cast<uint32_t>(h.txns.size());
  const weak::Reads R = weak::collect_reads(h);
  Brute out;
  out.hb_edges = DigraphBuilder(n);
  for (size_t s = 0; s < h.num_sessions(); ++s) {
    uint32_t prev = kInitialTxn;
    for (uint32_t t = h.session_begin[s]; t < h.session_begin[s + 1]; ++t) {
      if (!h.txns[t].committed) continue;
      out.hb_edges.add(prev, t);
      prev = t;
    }
  }
  for (uint32_t t = 1; t < n; ++t)
    for (uint32_t i = R.begin[t]; i < R.begin[t + 1]; ++i) out.hb_edges.add(R.writer[i], t);
  const Digraph hb = out.hb_edges.build();
  if (topological_order(hb).empty()) {
    out.hb_cyclic = true;
    out.components = nontrivial_components(hb);
    return out;
  }
  const std::vector<std::vector<char>> before = reachability(hb);  // before[t2][t3]
  auto writes = [&](uint32_t t, uint32_t key) {
    for (uint32_t o = h.txns[t].op_begin; o < h.txns[t].op_end; ++o)
      if (h.ops[o].is_write() && h.ops[o].key == key) return true;
    return false;
  };
  DigraphBuilder all = out.hb_edges;
  for (uint32_t t3 = 1; t3 < n; ++t3)
    for (uint32_t i = R.begin[t3]; i < R.begin[t3 + 1]; ++i) {
      const uint32_t x = h.ops[R.op[i]].key, t1 = R.writer[i];
      for (uint32_t t2 = 1; t2 < n; ++t2)
        if (t2 != t1 && h.txns[t2].committed && before[t2][t3] && writes(t2, x)) {
          all.add(t2, t1);
          out.forced.push_back({t2, t1});
        }
    }
  std::sort(out.forced.begin(), out.forced.end());
  out.forced.erase(std::unique(out.forced.begin(), out.forced.end()), out.forced.end());
  out.components = nontrivial_components(all.build());
  return out;
}

GenParams crowded_params(Rng& rng, uint64_t seed) {
  GenParams p;
  p.seed = seed;
  p.sessions = 6 + rng.below(30);
  p.txns_per_session = 2 + rng.below(std::max<uint32_t>(2, 240 / p.sessions));
  p.min_ops = 1;
  p.max_ops = 1 + rng.below(4);
  p.keys = 1 + rng.below(4);  // hot keys: many writer sessions per key, many forced orderings
  p.read_ratio = 0.3 + 0.5 * rng.uniform();
  const uint32_t m = rng.below(10);
  p.mode = m < 1 ? GenMode::Serial : m < 7 ? GenMode::Causal : GenMode::Random;
  p.causal_stale_ratio = m < 4 ? 0.02 + 0.2 * rng.uniform() : 0;
  p.sync_ratio = 0.2 + 0.8 * rng.uniform();
  p.abort_ratio = rng.chance(0.8) ? 0.0 : 0.1;
  p.unknown_ratio = rng.chance(0.8) ? 0.0 : 0.1;
  return p;
}

}  // namespace

TEST(CcStaircase, SameComponentsAsEveryForcedOrdering) {
  Rng rng(2111);
  int pass = 0, fail = 0;
  for (int it = 0, n = scaled(400); it < n; ++it) {
    const GenParams p = crowded_params(rng, 91000 + it);
    Expected<History> h = generate_history(p);
    ASSERT_TRUE(h.ok());
    const size_t consistency = check_read_consistency(*h).size();
    const size_t cycles = brute_cc(*h).components;
    const Verdict want = consistency + cycles > 0 ? Verdict::Fail : Verdict::Pass;
    for (CcClocks clocks : {CcClocks::Dense, CcClocks::Sparse})
      for (CcEdges edges : {CcEdges::Staircase, CcEdges::Compacted, CcEdges::All}) {
        const LevelResult r = check_cc(*h, CheckBudget{}, clocks, edges);
        const std::string what = "seed " + std::to_string(p.seed) + " clocks " +
                                 std::to_string(static_cast<int>(clocks)) + " edges " +
                                 std::to_string(static_cast<int>(edges));
        ASSERT_EQ(r.verdict, want) << what << "\n" << write_isoscope_json(*h);
        ASSERT_EQ(r.anomalies_total, consistency + cycles) << what;
        ASSERT_EQ(verify_weak_witnesses(*h, Level::CC, r), "") << what;
      }
    (want == Verdict::Pass ? pass : fail)++;
  }
  EXPECT_GT(pass, scaled_threshold(80));  // not vacuous: both verdicts are common
  EXPECT_GT(fail, scaled_threshold(80));
}

// The orderings kept are forced ones whose closure with so ∪ wr holds every forced ordering
// (nothing is lost), and compaction leaves none that another kept one implies.
TEST(CcStaircase, KeptOrderingsImplyEveryForcedOrdering) {
  Rng rng(2112);
  size_t forced_total = 0, kept_total = 0;
  for (int it = 0, n = scaled(150); it < n; ++it) {
    const GenParams p = crowded_params(rng, 93000 + it);
    Expected<History> h = generate_history(p);
    ASSERT_TRUE(h.ok());
    const Brute b = brute_cc(*h);
    if (b.hb_cyclic) continue;
    for (CcClocks clocks : {CcClocks::Dense, CcClocks::Sparse})
      for (CcEdges edges : {CcEdges::Staircase, CcEdges::Compacted}) {
        const std::string what = "seed " + std::to_string(p.seed) + " clocks " +
                                 std::to_string(static_cast<int>(clocks)) + " edges " +
                                 std::to_string(static_cast<int>(edges));
        const std::vector<std::pair<uint32_t, uint32_t>> kept = cc_kept_orderings(*h, clocks, edges);
        DigraphBuilder g = b.hb_edges;
        for (const auto& [t2, t1] : kept) {
          ASSERT_TRUE(std::binary_search(b.forced.begin(), b.forced.end(), std::make_pair(t2, t1)))
              << what << ": T" << t2 << " -> T" << t1 << " is not forced";
          g.add(t2, t1);
        }
        const std::vector<std::vector<char>> reach = reachability(g.build());
        for (const auto& [t2, t1] : b.forced)
          ASSERT_TRUE(reach[t2][t1]) << what << ": T" << t2 << " -> T" << t1 << " is lost";
        if (edges != CcEdges::Compacted) continue;
        for (const auto& [a2, a1] : kept)
          for (const auto& [b2, b1] : kept) {
            const Txn &x2 = h->txns[a2], &x1 = h->txns[a1], &y2 = h->txns[b2], &y1 = h->txns[b1];
            const bool implies = (a2 != b2 || a1 != b1) && a1 != kInitialTxn && b1 != kInitialTxn &&
                                 x2.session == y2.session && x1.session == y1.session &&
                                 x2.index <= y2.index && y1.index <= x1.index;
            ASSERT_FALSE(implies) << what << ": T" << b2 << " -> T" << b1 << " implies T" << a2 << " -> T" << a1;
          }
        if (clocks == CcClocks::Dense) forced_total += b.forced.size(), kept_total += kept.size();
      }
  }
  EXPECT_LT(kept_total * 2, forced_total);  // the staircase is much smaller
}

// Larger histories (50 sessions, 2,000 transactions): the staircase found as the edges come
// agrees with the one compaction alone finds (same witnesses) and with every edge kept.
TEST(CcStaircase, FilteredAgreesWithUnfilteredOnLargerHistories) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    GenParams p;
    p.seed = seed;
    p.sessions = 50;
    p.txns_per_session = static_cast<uint32_t>(scaled(40, 8));
    p.keys = 2 + seed % 4;
    p.mode = seed % 3 == 0 ? GenMode::Random : GenMode::Causal;
    p.causal_stale_ratio = seed % 2 ? 0.005 : 0;
    Expected<History> h = generate_history(p);
    ASSERT_TRUE(h.ok());
    const LevelResult stair = check_cc(*h, CheckBudget{}, CcClocks::Auto, CcEdges::Staircase);
    const LevelResult compacted = check_cc(*h, CheckBudget{}, CcClocks::Auto, CcEdges::Compacted);
    const LevelResult all = check_cc(*h, CheckBudget{}, CcClocks::Auto, CcEdges::All);
    ASSERT_EQ(stair.verdict, all.verdict) << "seed " << seed;
    ASSERT_EQ(stair.anomalies_total, all.anomalies_total) << "seed " << seed;
    ASSERT_EQ(compacted.anomalies_total, all.anomalies_total) << "seed " << seed;
    ASSERT_EQ(verify_weak_witnesses(*h, Level::CC, stair), "") << "seed " << seed;
    ASSERT_EQ(verify_weak_witnesses(*h, Level::CC, compacted), "") << "seed " << seed;
  }
}
