// The replay (checkers/strong/candidate.cpp): on histories without timestamps that hold, it
// finds a commit order, so the strong levels pass without saturation or the solver.
#include <gtest/gtest.h>

#include "checkers/check.h"
#include "checkers/strong/internal.h"
#include "checkers/weak/weak.h"
#include "formats/formats.h"
#include "generate/random_history.h"
#include "test_util.h"

namespace isoscope::strong {
namespace {

// Serial histories on 8 hot keys with blind writes (generate --ops 5 --seed 1), up to 1,000
// sessions and with every key distribution. The replay that took writers in node order and never
// took a choice back got stuck after a few dozen transactions on each; the one that undid its last
// choice at a dead end, after a few hundred at 100 sessions and more (its mistakes lay hundreds
// of places back). It learns from each dead end now.
TEST(StrongReplay, FindsTheOrderOfSerialHotKeyHistories) {
  struct Shape {
    uint32_t sessions, txns;
    KeyDist dist;
  };
  const Shape shapes[] = {{10, 100, KeyDist::Uniform}, {20, 100, KeyDist::Uniform},
                          {50, 100, KeyDist::Uniform}, {100, 20, KeyDist::Uniform},
                          {100, 50, KeyDist::Hotspot}, {300, 10, KeyDist::Zipf},
                          {1000, 5, KeyDist::Uniform}};
  for (const Shape& s : shapes) {
    GenParams g;
    g.seed = 1;
    g.mode = GenMode::Serial;
    g.sessions = s.sessions;
    g.txns_per_session = s.txns;
    g.min_ops = g.max_ops = 5;
    g.keys = 8;
    g.key_dist = s.dist;
    Expected<History> h = generate_history(g);
    ASSERT_TRUE(h.ok());
    ASSERT_EQ(check_cc(*h, CheckBudget{}).verdict, Verdict::Pass);
    const Instance in = make_instance(*h);
    const Problem p = make_problem(in, Level::SER, false);
    const std::vector<uint32_t> order = replay_order(p);
    EXPECT_EQ(order.size(), p.n) << s.sessions << " x " << s.txns;
    if (!order.empty()) EXPECT_TRUE(verify_order(p, {}, order)) << s.sessions << " x " << s.txns;
  }
}

// A serial history with a planted write skew or lost update fails SER, so its order cannot
// serve PC; the replay of PC's own problem (read and write halves) finds one. (It refused split
// problems before: PC on 10^5 such transactions ended unknown after 30 s.)
TEST(StrongReplay, FindsPcOrdersWhereSerFails) {
  for (const char* name : {"WriteSkew", "LostUpdate"}) {
    const History h = planted_history(name, 20, 50);
    ASSERT_EQ(check_cc(h, CheckBudget{}).verdict, Verdict::Pass) << name;
    const Instance in = make_instance(h);
    EXPECT_TRUE(replay_order(make_problem(in, Level::SER, false)).empty()) << name;
    const Problem pc = make_problem(in, Level::PC, false);
    const std::vector<uint32_t> order = replay_order(pc);
    EXPECT_EQ(order.size(), pc.n) << name;
    if (!order.empty()) EXPECT_TRUE(verify_order(pc, {}, order)) << name;
  }
}

// A write skew planted in a serial history: the replay's forced order breaks the skew's reads,
// and each read half moved back to its snapshot (snapshot_order) gives SI's and PC's order, where
// the plain split of it does not verify.
TEST(StrongReplay, SnapshotsTurnAForcedSerialOrderIntoAnSiOrder) {
  const History h = planted_history("WriteSkew", 20, 50);
  ASSERT_EQ(check_cc(h, CheckBudget{}).verdict, Verdict::Pass);
  const Instance in = make_instance(h);
  const Problem ser = make_problem(in, Level::SER, false);
  const std::vector<uint32_t> whole = replay_order(ser, /*force=*/true);
  ASSERT_EQ(whole.size(), ser.n);
  EXPECT_FALSE(verify_order(ser, {}, whole));
  for (Level l : {Level::PC, Level::SI}) {
    const Problem p = make_problem(in, l, false);
    EXPECT_FALSE(verify_order(p, {}, split_order(whole))) << level_name(l);
    const std::vector<uint32_t> order = snapshot_order(ser, whole);
    ASSERT_EQ(order.size(), p.n) << level_name(l);
    EXPECT_TRUE(verify_order(p, {}, order)) << level_name(l);
  }
}

// One check replays the history once: SER leaves its forced replay in the check's memo, and PC
// and SI take their snapshots from it. A memo of another history is not used.
TEST(StrongReplay, OneCheckReplaysTheHistoryOnce) {
  const History h = planted_history("WriteSkew", 20, 50);
  const CheckReport r = check_history(h, {});
  EXPECT_EQ(r.results[static_cast<int>(Level::SER)].verdict, Verdict::Fail);
  EXPECT_EQ(r.results[static_cast<int>(Level::SI)].verdict, Verdict::Pass);
  ASSERT_EQ(r.memo->history, &h);
  const Problem ser = make_problem(make_instance(h), Level::SER, false);
  EXPECT_EQ(r.memo->ser_replay.size(), ser.n);
  // Another history's memo (an order of the right size that no level could use) is ignored.
  LevelMemo other;
  other.history = &r;
  other.ser_replay.assign(ser.n, 0);
  CheckBudget b;
  b.memo = &other;
  EXPECT_EQ(check_si(h, b).verdict, Verdict::Pass);
  EXPECT_EQ(other.history, &r);
}

// PolySI's PostgreSQL histories (5 sessions x 100 transactions, 5,298 keys, no timestamps): the
// search finds an order that verifies (as the replay before it did, in seconds rather than
// milliseconds: it scanned every read of the initial values for each key it touched).
TEST(StrongReplay, FindsTheOrderOfDatabaseHistories) {
  SKIP_WITHOUT_CORPUS();
  const char* paths[] = {"polysi/postgres-5_100_15/hist-00000/history.bincode",
                         "polysi/postgres-5_100_15/hist-00001/history.bincode"};
  for (const char* path : paths) {
    Expected<History> h = read_path(corpus_dir() + "/" + path, "dbcop-bincode");
    ASSERT_TRUE(h.ok()) << path << ": " << h.error().to_string();
    ASSERT_EQ(check_cc(*h, CheckBudget{}).verdict, Verdict::Pass) << path;
    const Instance in = make_instance(*h);
    const Problem p = make_problem(in, Level::SER, false);
    const std::vector<uint32_t> order = replay_order(p);
    EXPECT_EQ(order.size(), p.n) << path;
    if (!order.empty()) EXPECT_TRUE(verify_order(p, {}, order)) << path;
  }
}

// Any history (causal and random ones mostly fail SER): the clean replay returns an order only
// when it verifies, and the forced one (the lazy polygraph's first guess) every node once, after
// its known predecessors.
TEST(StrongReplay, ReturnsOnlyVerifiedOrdersAndForcedOnesThatKeepTheKnownEdges) {
  int clean = 0, runs = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    GenParams p;
    p.seed = seed;
    p.mode = seed % 3 == 0 ? GenMode::Serial : seed % 3 == 1 ? GenMode::Causal : GenMode::Random;
    p.sessions = 3 + seed % 6;
    p.txns_per_session = 4 + seed % 7;
    p.keys = 2 + seed % 4;
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok());
    if (check_cc(*eh, CheckBudget{}).verdict != Verdict::Pass) continue;
    ++runs;
    const Instance in = make_instance(*eh);
    const Problem pr = make_problem(in, Level::SER, false);
    const std::vector<uint32_t> order = replay_order(pr);
    if (!order.empty()) {
      ++clean;
      EXPECT_TRUE(verify_order(pr, {}, order)) << "seed " << seed;
    }
    const std::vector<uint32_t> forced = replay_order(pr, /*force=*/true);
    ASSERT_EQ(forced.size(), pr.n) << "seed " << seed;
    std::vector<uint32_t> at(pr.n, UINT32_MAX);
    for (uint32_t i = 0; i < forced.size(); ++i) at[forced[i]] = i;
    EXPECT_EQ(forced[0], 0u);
    for (uint32_t v = 1; v < pr.n; ++v) {
      ASSERT_NE(at[v], UINT32_MAX) << "seed " << seed;
      EXPECT_LT(at[pr.chain_pred(v)], at[v]) << "seed " << seed;
      for (uint32_t i = pr.rbeg[v]; i < pr.rbeg[v + 1]; ++i)
        EXPECT_LT(at[pr.reads[i].writer], at[v]) << "seed " << seed;
    }
  }
  EXPECT_GT(runs, 20);
  EXPECT_GT(clean, 5);
}

}  // namespace
}  // namespace isoscope::strong
