// Differential tests of the mini-transaction checkers (SER, SI, SSER: checkers/mtc) against the
// brute-force reference (reference.h), and of LIN against lin_reference.h, on many small random
// MT and lightweight-transaction histories: from the MT generator's engines (consistent and
// anomalous by construction) and from a "chaos" builder whose reads pick any value of their key.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "checkers/check.h"
#include "checkers/mtc/mtc.h"
#include "formats/formats.h"
#include "generate/mt_history.h"
#include "lin_reference.h"
#include "reference.h"
#include "test_util.h"

using namespace isoscope;

namespace {

// A fail must come with anomalies; a cycle's edges must chain and close.
std::string witness_problem(const LevelResult& r) {
  if (r.verdict != Verdict::Fail) return {};
  if (r.anomalies.empty()) return "fail without anomalies";
  for (const Anomaly& a : r.anomalies) {
    if (a.explanation.empty()) return "anomaly without an explanation";
    static const std::set<std::string> kCycles = {
        "SessionGuaranteeViolation", "NonMonotonicRead", "FracturedRead", "CausalityViolation",
        "LongFork", "WriteSkew", "G1c", "CausalityCycle", "RealTimeViolation"};
    if (!kCycles.count(name_of(a.kind))) continue;
    if (a.edges.empty()) return name_of(a.kind) + " without edges";
    for (size_t i = 0; i < a.edges.size(); ++i)
      if (a.edges[i].to_txn != a.edges[(i + 1) % a.edges.size()].from_txn)
        return name_of(a.kind) + ": edges do not form a cycle";
  }
  return {};
}

// ---- chaos histories ----------------------------------------------------------------------

struct PlannedOp {
  bool write;
  uint32_t key;
  int64_t value;
};
struct PlannedTxn {
  std::vector<PlannedOp> ops;
  TxnStatus status = TxnStatus::Committed;
  bool timed = false;
  int64_t start = 0, end = 0;
};

// MT op shapes (slot 0 = x, 1 = y): the generator's six plus re-reads and double writes.
const std::vector<std::vector<std::pair<bool, int>>>& mt_shapes() {
  static const std::vector<std::vector<std::pair<bool, int>>> k = {
      {{false, 0}},
      {{false, 0}, {false, 1}},
      {{false, 0}, {true, 0}},
      {{false, 0}, {false, 1}, {true, 0}},
      {{false, 0}, {false, 1}, {true, 0}, {true, 1}},
      {{false, 0}, {true, 0}, {false, 1}, {true, 1}},
      {{false, 0}, {false, 0}},
      {{false, 0}, {true, 0}, {false, 0}},
      {{false, 0}, {true, 0}, {true, 0}},
      {{false, 0}, {true, 0}, {true, 0}, {false, 0}},
      {{false, 0}, {false, 0}, {true, 0}},
  };
  return k;
}

Expected<History> build(const std::vector<std::vector<PlannedTxn>>& sessions) {
  HistoryBuilder b;
  b.set_initial(b.values().intern_int(0));
  for (const auto& s : sessions) {
    b.begin_session();
    for (const PlannedTxn& t : s) {
      b.begin_txn();
      for (const PlannedOp& o : t.ops) {
        if (o.write)
          b.write(b.keys().intern_int(o.key), b.values().intern_int(o.value));
        else
          b.read(b.keys().intern_int(o.key), b.values().intern_int(o.value));
      }
      if (t.status != TxnStatus::Committed) b.set_status(t.status);
      if (t.timed) b.set_time(Time::integer(t.start), Time::integer(t.end));
      b.end_txn();
    }
  }
  return b.finish("chaos");
}

// Reads get a random value of their key: any write in the history (earlier, later, own,
// aborted), the initial value, or rarely a thin-air value. Timestamps random.
void assign_reads(Rng& rng, std::vector<std::vector<PlannedTxn>>& sessions, uint32_t keys,
                  double timed_ratio, double invert_ratio, double plausible) {
  std::vector<std::vector<int64_t>> values(keys, std::vector<int64_t>{0});
  for (auto& s : sessions)
    for (auto& t : s)
      for (auto& o : t.ops)
        if (o.write) values[o.key].push_back(o.value);
  // Plausible reads: the latest write of a random serial order of the transactions.
  std::vector<PlannedTxn*> order;
  for (auto& s : sessions)
    for (auto& t : s) order.push_back(&t);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(static_cast<uint32_t>(i))]);
  std::vector<int64_t> current(keys, 0);
  for (PlannedTxn* t : order) {
    for (auto& o : t->ops) {
      if (o.write) {
        if (t->status != TxnStatus::Aborted) current[o.key] = o.value;
      } else {
        o.value = rng.chance(plausible) ? current[o.key]
                  : rng.chance(0.02)    ? 999
                                        : values[o.key][rng.below(static_cast<uint32_t>(values[o.key].size()))];
      }
    }
  }
  for (auto& s : sessions) {
    int64_t clock = 0;
    for (auto& t : s) {
      if (rng.chance(timed_ratio)) {
        t.timed = true;
        t.start = clock + rng.below(6);
        t.end = t.start + rng.below(6);
        if (rng.chance(invert_ratio)) std::swap(t.start, t.end), t.end -= 1;
        clock = rng.chance(0.5) ? t.end + 1 : t.start;  // sessions mostly sequential in time
      }
    }
  }
}

Expected<History> chaos_mt(Rng& rng) {
  const uint32_t ns = 1 + rng.below(4), keys = 1 + rng.below(3);
  const uint32_t total = 2 + rng.below(7);  // at most 8 transactions
  std::vector<std::vector<PlannedTxn>> sessions(ns);
  int64_t next = 1;
  for (uint32_t i = 0; i < total; ++i) {
    PlannedTxn t;
    const auto& shapes = mt_shapes();
    const auto& shape = shapes[rng.below(static_cast<uint32_t>(shapes.size()))];
    uint32_t k[2] = {rng.below(keys), 0};
    k[1] = keys > 1 ? (k[0] + 1 + rng.below(keys - 1)) % keys : k[0];
    for (auto [w, slot] : shape) t.ops.push_back({w, k[slot], w ? next++ : 0});
    const uint32_t st = rng.below(20);
    t.status = st == 0 ? TxnStatus::Aborted : st == 1 ? TxnStatus::Unknown : TxnStatus::Committed;
    sessions[rng.below(ns)].push_back(t);
  }
  assign_reads(rng, sessions, keys, rng.chance(0.8) ? 0.9 : 0.0, 0.02, rng.uniform());
  return build(sessions);
}

Expected<History> chaos_lwt(Rng& rng) {
  const uint32_t ns = 1 + rng.below(4), keys = 1 + rng.below(2);
  const uint32_t total = 2 + rng.below(8);  // at most 9 transactions
  std::vector<std::vector<PlannedTxn>> sessions(ns);
  int64_t next = 1;
  for (uint32_t i = 0; i < total; ++i) {
    PlannedTxn t;
    const uint32_t k = rng.below(keys), shape = rng.below(10);
    if (shape < 3)
      t.ops = {{false, k, 0}};
    else if (shape < 5)
      t.ops = {{true, k, next++}};
    else
      t.ops = {{false, k, 0}, {true, k, next++}};
    const uint32_t st = rng.below(25);
    t.status = st == 0 ? TxnStatus::Aborted : st == 1 ? TxnStatus::Unknown : TxnStatus::Committed;
    sessions[rng.below(ns)].push_back(t);
  }
  assign_reads(rng, sessions, keys, 1.0, 0.01, rng.uniform());
  return build(sessions);
}

// ---- tallies ------------------------------------------------------------------------------

constexpr std::array<Level, 3> kMtLevels = {Level::SI, Level::SER, Level::SSER};
using Checker = LevelResult (*)(const History&, const CheckBudget&);
constexpr std::array<Checker, 3> kMtCheckers = {check_si_mt, check_ser_mt, check_sser_mt};

struct MtTally {
  std::array<int, 3> pass{}, fail{}, na{};
  int histories = 0, disagreements = 0, witness_errors = 0, lattice = 0, not_mt = 0;
  std::map<std::string, int> kinds;  // first anomaly kind of each SI / SER / SSER failure
  std::array<int, 3> boundary{};  // SI fails first; SER fails, SI passes; SSER fails, SER passes
  void run(const History& h, const std::string& what) {
    if (!is_mini_transaction_history(h)) {
      ++not_mt;
      return;
    }
    ++histories;
    CheckBudget budget;
    std::array<Verdict, 3> got{};
    for (size_t i = 0; i < kMtLevels.size(); ++i) {
      const LevelResult r = kMtCheckers[i](h, budget);
      got[i] = r.verdict;
      const Verdict want = reference_check(h, kMtLevels[i]);
      if (r.verdict != want && ++disagreements <= 5)
        ADD_FAILURE() << level_name(kMtLevels[i]) << ": MT checker says " << verdict_name(r.verdict)
                      << ", reference says " << verdict_name(want) << " (" << what << ")\n"
                      << dump(h);
      if (r.verdict == Verdict::Fail && !r.anomalies.empty())
        ++kinds[std::string(level_name(kMtLevels[i])) + ":" + name_of(r.anomalies[0].kind)];
      if (r.verdict == Verdict::Pass) ++pass[i];
      else if (r.verdict == Verdict::Fail) ++fail[i];
      else ++na[i];
      const std::string bad = witness_problem(r);
      if (!bad.empty() && ++witness_errors <= 5)
        ADD_FAILURE() << level_name(kMtLevels[i]) << " witness: " << bad << " (" << what << ")\n" << dump(h);
    }
    if (got[0] == Verdict::Fail && reference_check(h, Level::PC) == Verdict::Pass) ++boundary[0];
    if (got[1] == Verdict::Fail && got[0] == Verdict::Pass) ++boundary[1];
    if (got[2] == Verdict::Fail && got[1] == Verdict::Pass) ++boundary[2];
    if ((got[1] == Verdict::Pass && got[0] != Verdict::Pass) ||
        (got[2] == Verdict::Pass && got[1] != Verdict::Pass))
      ++lattice;
  }
  void print(const char* what) const {
    std::printf("  %s: %d MT histories (%d not MT)\n", what, histories, not_mt);
    for (size_t i = 0; i < kMtLevels.size(); ++i)
      std::printf("    %-4s pass %5d  fail %5d  n/a %4d  (fails here first: %d)\n",
                  level_name(kMtLevels[i]), pass[i], fail[i], na[i], boundary[i]);
    std::printf("    disagreements %d\n    first anomalies:", disagreements);
    for (const auto& [k, c] : kinds) std::printf(" %s=%d", k.c_str(), c);
    std::printf("\n");
  }
};

MtGenParams small_mt_params(Rng& rng, uint64_t seed) {
  MtGenParams p;
  p.seed = seed;
  p.sessions = 1 + rng.below(4);
  p.txns_per_session = std::max<uint32_t>(1, (2 + rng.below(6)) / p.sessions);
  if (p.sessions * p.txns_per_session < 2) p.txns_per_session = 2;
  p.key.keys = 1 + rng.below(3);
  p.read_only_ratio = 0.1 + 0.3 * rng.uniform();
  p.two_key_ratio = rng.uniform();
  const uint32_t e = rng.below(4);
  p.engine = static_cast<MtEngine>(e);
  p.stale_ratio = 0.1 + 0.5 * rng.uniform();
  p.abort_ratio = rng.chance(0.7) ? 0.0 : 0.15;
  p.timestamps = rng.chance(0.8);
  if (p.engine == MtEngine::SnapshotIsolation && rng.chance(0.6)) {  // write skews
    p.key.keys = 2;
    p.two_key_ratio = 0.9;
    p.read_only_ratio = 0.05;
    p.sessions = std::max<uint32_t>(p.sessions, 2);
  }
  return p;
}

}  // namespace

TEST(MtcDifferential, GeneratedMtHistoriesAgreeWithReference) {
  const int kHistories = scaled(12000);
  Rng rng(8080);
  MtTally t;
  for (int i = 0; i < kHistories; ++i) {
    MtGenParams p = small_mt_params(rng, 7000 + i);
    Expected<History> eh = generate_mt_history(p);
    ASSERT_TRUE(eh.ok()) << eh.error().to_string();
    t.run(*eh, "generated seed " + std::to_string(p.seed) + " engine " +
                   std::to_string(static_cast<int>(p.engine)));
    // Known by construction.
    if (p.engine == MtEngine::Serial && p.timestamps)
      ASSERT_EQ(check_sser_mt(*eh, {}).verdict, Verdict::Pass) << dump(*eh);
    if (p.engine == MtEngine::SnapshotIsolation)
      ASSERT_EQ(check_si_mt(*eh, {}).verdict, Verdict::Pass) << dump(*eh);
  }
  t.print("generated");
  EXPECT_EQ(t.not_mt, 0);
  EXPECT_EQ(t.disagreements, 0);
  EXPECT_EQ(t.witness_errors, 0);
  EXPECT_EQ(t.lattice, 0);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_GT(t.pass[i], scaled_threshold(12000 / 10));
    EXPECT_GT(t.fail[i], scaled_threshold(12000 / 20));
  }
  EXPECT_GT(t.boundary[1], scaled_threshold(20));  // write skews: SI holds, SER fails
  EXPECT_GT(t.boundary[2], scaled_threshold(20));  // real-time violations: SER holds, SSER fails
}

TEST(MtcDifferential, ChaosMtHistoriesAgreeWithReference) {
  const int kHistories = scaled(20000);
  Rng rng(31337);
  MtTally t;
  for (int i = 0; i < kHistories; ++i) {
    Expected<History> eh = chaos_mt(rng);
    if (!eh.ok()) continue;
    t.run(*eh, "chaos #" + std::to_string(i));
  }
  t.print("chaos");
  EXPECT_EQ(t.disagreements, 0);
  EXPECT_EQ(t.witness_errors, 0);
  EXPECT_EQ(t.lattice, 0);
  EXPECT_GT(t.histories, scaled_threshold(20000 * 9 / 10));
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_GT(t.pass[i], scaled_threshold(20000 / 50));
    EXPECT_GT(t.fail[i], scaled_threshold(20000 / 10));
  }
}

// A passing LIN check's witness: every committed operation once, each read reading the latest
// write of its key before it in the order, and no operation placed after one that started after
// it ended (real time, across all keys). "" when it holds.
std::string verify_linearization(const History& h, const std::vector<uint32_t>& order) {
  std::vector<char> seen(h.txns.size(), 0);
  std::vector<uint32_t> last_writer(h.keys.size(), kInitialTxn);
  Time max_start = Time::below_all();
  for (uint32_t t : order) {
    if (t == kInitialTxn || t >= h.txns.size() || seen[t]++) return "T" + std::to_string(t) + " twice or out of range";
    const Txn& x = h.txns[t];
    const uint32_t key = h.ops[x.op_begin].key;
    if (h.times[t].end < max_start) return h.txn_name(t) + " ends before an operation placed before it starts";
    max_start = std::max(max_start, h.times[t].start);
    for (uint32_t o = x.op_begin; o < x.op_end; ++o) {
      if (h.ops[o].is_read()) {
        const uint32_t w = h.read_from[o];
        const uint32_t from = w == kReadsInitial ? kInitialTxn : h.op_txn[w];
        if (from != last_writer[key]) return h.txn_name(t) + " reads from " + h.txn_name(from) + ", not the latest write " + h.txn_name(last_writer[key]);
      } else {
        last_writer[key] = t;
      }
    }
  }
  for (uint32_t t = 1; t < h.txns.size(); ++t)
    if (h.txns[t].committed && !seen[t]) return h.txn_name(t) + " is missing";
  return {};
}

TEST(MtcDifferential, LinAgreesWithReference) {
  Rng rng(4711);
  int histories = 0, pass = 0, fail = 0, disagreements = 0, witness_errors = 0, verifier_caught = 0;
  auto run = [&](const History& h, const std::string& what) {
    if (!is_lightweight_history(h)) return;
    ++histories;
    const LevelResult r = check_lin(h, {});
    const Verdict want = lin_reference_check(h);
    if (r.verdict != want && ++disagreements <= 5)
      ADD_FAILURE() << "LIN: checker says " << verdict_name(r.verdict) << ", reference says "
                    << verdict_name(want) << " (" << what << ")\n" << dump(h);
    (r.verdict == Verdict::Pass ? pass : fail)++;
    if (r.verdict == Verdict::Fail && r.anomalies.empty() && ++witness_errors <= 5)
      ADD_FAILURE() << "LIN fail without anomalies (" << what << ")";
    if (r.verdict == Verdict::Pass)
      if (const std::string wrong = verify_linearization(h, r.commit_order); !wrong.empty() && ++witness_errors <= 5)
        ADD_FAILURE() << "LIN linearization: " << wrong << " (" << what << ")\n" << dump(h);
    // the verifier itself can fail: the reversed order of a chain of writes is wrong
    if (r.verdict == Verdict::Pass && r.commit_order.size() > 2)
      verifier_caught += !verify_linearization(h, {r.commit_order.rbegin(), r.commit_order.rend()}).empty();
    for (const Anomaly& a : r.anomalies)
      if (a.kind == AnomalyKind::RealTimeViolation || a.kind == AnomalyKind::G1c)
        for (size_t i = 0; i < a.edges.size(); ++i)
          if (a.edges[i].to_txn != a.edges[(i + 1) % a.edges.size()].from_txn && ++witness_errors <= 5)
            ADD_FAILURE() << name_of(a.kind) << " edges do not close a cycle (" << what << ")\n" << dump(h);
  };
  for (int i = 0, n = scaled(6000); i < n; ++i) {
    LwtGenParams p;
    p.seed = 100 + i;
    p.sessions = 1 + rng.below(4);
    p.ops_per_session = std::max<uint32_t>(1, (2 + rng.below(8)) / p.sessions);
    p.key.keys = 1 + rng.below(2);
    p.read_ratio = 0.4 * rng.uniform();
    p.inserts = rng.chance(0.5);
    p.latency = rng.below(4);
    p.stale_ratio = rng.chance(0.4) ? 0.0 : 0.5 * rng.uniform();
    p.abort_ratio = rng.chance(0.8) ? 0.0 : 0.1;
    Expected<History> eh = generate_lwt_history(p);
    ASSERT_TRUE(eh.ok()) << eh.error().to_string();
    if (p.stale_ratio == 0) ASSERT_EQ(check_lin(*eh, {}).verdict, Verdict::Pass) << dump(*eh);
    run(*eh, "generated seed " + std::to_string(p.seed));
  }
  for (int i = 0, n = scaled(8000); i < n; ++i) {
    Expected<History> eh = chaos_lwt(rng);
    if (eh.ok()) run(*eh, "chaos #" + std::to_string(i));
  }
  std::printf("  LIN: %d histories, pass %d, fail %d, disagreements %d\n", histories, pass, fail,
              disagreements);
  EXPECT_EQ(disagreements, 0);
  EXPECT_EQ(witness_errors, 0);
  EXPECT_GT(verifier_caught, scaled_threshold(1000));
  EXPECT_GT(pass, scaled_threshold(2000));
  EXPECT_GT(fail, scaled_threshold(2000));
}

TEST(MtcDifferential, LargeGeneratedHistoriesHaveKnownVerdicts) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    MtGenParams p;
    p.seed = seed;
    p.sessions = 20;
    p.txns_per_session = scaled(5000, 250);
    p.key.keys = 1000;
    p.key.dist = seed == 2 ? KeyDist::Zipf : KeyDist::Uniform;
    p.abort_ratio = 0.05;
    Expected<History> serial = generate_mt_history(p);
    ASSERT_TRUE(serial.ok());
    ASSERT_TRUE(is_mini_transaction_history(*serial));
    EXPECT_EQ(check_ser_mt(*serial, {}).verdict, Verdict::Pass);
    EXPECT_EQ(check_si_mt(*serial, {}).verdict, Verdict::Pass);
    EXPECT_EQ(check_sser_mt(*serial, {}).verdict, Verdict::Pass);
    p.engine = MtEngine::SnapshotIsolation;
    Expected<History> si = generate_mt_history(p);
    ASSERT_TRUE(si.ok());
    EXPECT_EQ(check_si_mt(*si, {}).verdict, Verdict::Pass);
    p.engine = MtEngine::Stale;
    Expected<History> stale = generate_mt_history(p);
    ASSERT_TRUE(stale.ok());
    const LevelResult r = check_si_mt(*stale, {});
    EXPECT_EQ(r.verdict, Verdict::Fail);
    EXPECT_EQ(witness_problem(r), "");
    LwtGenParams lp;
    lp.seed = seed;
    lp.sessions = 50;
    lp.ops_per_session = 2000;
    lp.key.keys = 100;
    lp.inserts = seed != 1;
    Expected<History> lwt = generate_lwt_history(lp);
    ASSERT_TRUE(lwt.ok());
    EXPECT_EQ(check_lin(*lwt, {}).verdict, Verdict::Pass);
    lp.stale_ratio = 0.01;
    Expected<History> bad = generate_lwt_history(lp);
    ASSERT_TRUE(bad.ok());
    EXPECT_EQ(check_lin(*bad, {}).verdict, Verdict::Fail);
  }
}

TEST(MtcDifferential, MtPathAgreesWithGeneralSearch) {
  // Medium MT histories (beyond the reference's reach): the MT path and the general strong
  // checkers (checkers/strong) must agree whenever the general search decides.
  Rng rng(5150);
  int compared = 0, disagreements = 0, undecided = 0;
  for (int i = 0; i < 300; ++i) {
    MtGenParams p;
    p.seed = 60000 + i;
    p.sessions = 2 + rng.below(6);
    p.txns_per_session = 5 + rng.below(20);
    p.key.keys = 2 + rng.below(20);
    p.engine = static_cast<MtEngine>(rng.below(4));
    p.stale_ratio = 0.02 + 0.1 * rng.uniform();
    p.abort_ratio = rng.chance(0.7) ? 0.0 : 0.05;
    p.timestamps = rng.chance(0.7);
    Expected<History> eh = generate_mt_history(p);
    ASSERT_TRUE(eh.ok());
    const History& h = *eh;
    for (auto [mt, general, name] :
         {std::tuple{&check_si_mt, checker_for(Level::SI), "SI"},
          std::tuple{&check_ser_mt, checker_for(Level::SER), "SER"},
          std::tuple{&check_sser_mt, checker_for(Level::SSER), "SSER"}}) {
      if (!general) continue;
      CheckBudget budget;
      budget.deadline_ms = now_ms() + 2000;
      const Verdict g = general(h, budget).verdict;
      const Verdict m = mt(h, CheckBudget{}).verdict;
      if (g == Verdict::Unknown) {
        ++undecided;
        continue;
      }
      ++compared;
      if (g != m && ++disagreements <= 5)
        ADD_FAILURE() << name << ": MT path says " << verdict_name(m) << ", general search says "
                      << verdict_name(g) << " (seed " << p.seed << ")\n" << dump(h);
    }
  }
  std::printf("  MT path vs general search: %d compared, %d undecided, %d disagreements\n", compared,
              undecided, disagreements);
  EXPECT_EQ(disagreements, 0);
  EXPECT_GT(compared, 500);
}
