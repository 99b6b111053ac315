// Counterexamples that reproduce (checkers/counterexample.h): the history a share link carries
// fails the same level when read back, keeps the user's initial value, ids and timestamps, and
// is minimal (the brute-force reference confirms that leaving out any transaction passes).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>
#include <string>

#include "checkers/check.h"
#include "checkers/counterexample.h"
#include "formats/formats.h"
#include "generate/db_sim.h"
#include "generate/inject.h"
#include "reference.h"
#include "test_util.h"

using namespace isoscope;

namespace {

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

// The counterexample of the first anomaly of the weakest failing level, written and read back.
struct RoundTrip {
  Level level = Level::RC;
  Anomaly anomaly;  // the first one the weakest failing level reports
  Counterexample c;
  Verdict reread = Verdict::Unknown;
};
RoundTrip round_trip(const History& h) {
  RoundTrip rt;
  CheckOptions o;
  o.levels.assign(kTransactional.begin(), kTransactional.end());
  const CheckReport r = check_history(h, o);
  for (Level l : kTransactional) {
    const LevelResult& res = r.results[static_cast<int>(l)];
    if (res.verdict != Verdict::Fail) continue;
    rt.level = l;
    rt.anomaly = res.anomalies.at(0);
    rt.c = make_counterexample(h, l, res.anomalies.at(0), CheckBudget{});
    const std::string text = write_isoscope_json(rt.c.history);
    Expected<History> back = read_one("counterexample.json", text);
    EXPECT_TRUE(back.ok()) << text;
    if (back.ok()) rt.reread = checker_for(l)(*back, CheckBudget{}).verdict;
    return rt;
  }
  ADD_FAILURE() << "no level fails";
  return rt;
}

}  // namespace

// Injected anomalies in large histories (10^3 to 10^5 transactions, 10 to 100 sessions): the
// weakest failing level reports the anomaly by its own name with at most 6 transactions, and
// its counterexample fails the same level when read back.
TEST(Counterexample, InjectedAnomaliesReproduceWithAHandfulOfTransactions) {
  struct Shape {
    uint32_t sessions, txns;
  };
  // The 10^5-transaction shape runs in the plain build; under the sanitizers (20x slower) the
  // others cover the same code, and at a small scale the long sessions are as short as the
  // 100-session shape's (one shape less).
  const uint32_t txns = static_cast<uint32_t>(scaled(100, 10));
  std::vector<Shape> shapes = {{10, txns}, {100, 10}};
  if (txns != 10) shapes.push_back({100, txns});
  if (!kSanitized) shapes.push_back({10, 10000});
  for (Shape shape : shapes) {
    for (const InjectableAnomaly& a : injectable_anomalies()) {
      if (shape.txns == 10000 && a.weakest_failing != Level::SER && a.weakest_failing != Level::RA) continue;
      GenParams p;
      p.seed = shape.sessions * 7 + shape.txns;
      p.sessions = shape.sessions;
      p.txns_per_session = shape.txns;
      p.keys = 50;
      p.mode = GenMode::Serial;
      p.timestamps = a.needs_timestamps;
      HistorySink sink(false);
      generate_with_anomaly(p, &a, sink);
      Expected<History> h = sink.builder().finish("generated");
      ASSERT_TRUE(h.ok());
      const RoundTrip rt = round_trip(*h);
      EXPECT_EQ(rt.level, a.weakest_failing) << a.name;
      EXPECT_EQ(name_of(rt.anomaly.kind), a.name) << shape.sessions << " x " << shape.txns;
      EXPECT_LE(rt.anomaly.txns.size(), 6u) << a.name << " at " << shape.sessions << " x " << shape.txns << ": "
                                            << rt.anomaly.explanation;
      EXPECT_TRUE(rt.c.reproduces) << a.name;
      EXPECT_EQ(rt.reread, Verdict::Fail) << a.name << " at " << shape.sessions << " x " << shape.txns;
      EXPECT_LE(rt.c.txns.size(), 6u) << a.name << " at " << shape.sessions << " x " << shape.txns;
      EXPECT_TRUE(rt.c.minimal) << a.name;
    }
  }
}

// The simulator's concurrent histories too (anomalies planted as overlapping transactions).
TEST(Counterexample, PlantedInConcurrentRuns) {
  for (const InjectableAnomaly& a : injectable_anomalies()) {
    DbSimParams p;
    p.seed = 99;
    p.sessions = 50;
    p.txns_per_session = 40;
    p.key.keys = 500;
    p.inject = &a;
    Expected<History> h = simulate_database(p);
    ASSERT_TRUE(h.ok());
    const RoundTrip rt = round_trip(*h);
    EXPECT_EQ(rt.level, a.weakest_failing) << a.name;
    EXPECT_EQ(name_of(rt.anomaly.kind), a.name);
    EXPECT_LE(rt.anomaly.txns.size(), 6u) << a.name << ": " << rt.anomaly.explanation;
    EXPECT_EQ(rt.reread, Verdict::Fail) << a.name;
    EXPECT_LE(rt.c.txns.size(), 6u) << a.name;
  }
}

// Random failing histories: the counterexample fails by the reference, and leaving out any one
// of its transactions makes the reference pass (minimal).
TEST(Counterexample, MinimalByTheReference) {
  int checked = 0;
  const int want = scaled(150, 30);
  for (uint64_t seed = 1; seed <= 400 && checked < want; ++seed) {
    GenParams p;
    p.seed = 5100000 + seed;
    p.sessions = 2 + seed % 3;
    p.txns_per_session = 2 + seed % 3;
    p.max_ops = 3;
    p.keys = 3;
    p.mode = seed % 2 ? GenMode::Causal : GenMode::Random;
    p.wild_ratio = 0;
    p.timestamps = seed % 3 == 0;
    Expected<History> h = generate_history(p);
    ASSERT_TRUE(h.ok());
    CheckOptions o;
    o.levels.assign(kTransactional.begin(), kTransactional.end());
    const CheckReport r = check_history(*h, o);
    for (Level l : kTransactional) {
      const LevelResult& res = r.results[static_cast<int>(l)];
      if (res.verdict != Verdict::Fail) continue;
      const Counterexample c = make_counterexample(*h, l, res.anomalies.at(0), CheckBudget{});
      ASSERT_TRUE(c.reproduces) << level_name(l) << " seed " << p.seed;
      ASSERT_TRUE(c.minimal);
      EXPECT_EQ(reference_check(c.history, l), Verdict::Fail) << level_name(l) << " seed " << p.seed;
      for (uint32_t drop : c.txns) {
        std::vector<char> keep(h->txns.size(), 0);
        for (uint32_t t : c.txns) keep[t] = t != drop;
        EXPECT_EQ(reference_check(project_history(*h, keep), l), Verdict::Pass)
            << level_name(l) << " seed " << p.seed << ": T" << drop << " can be left out";
      }
      ++checked;
      break;
    }
  }
  EXPECT_GE(checked, want * 2 / 3);
}

// The user's initial value, ids, statuses and timestamps survive.
TEST(Counterexample, KeepsInitialValueIdsAndTimes) {
  const std::string text = R"({"format": "isoscope/1", "initial": 5, "sessions": [
    [{"id": "a1", "ops": [["r", "x", 5], ["r", "y", 5], ["w", "x", 6]], "start": 1, "end": 4},
     {"id": "a2", "ops": [["w", "z", 1]], "start": 5, "end": 6}],
    [{"id": "b1", "ops": [["r", "x", 5], ["r", "y", 5], ["w", "y", 6]], "start": 2, "end": 3}],
    [{"id": "c1", "ops": [["w", "q", 1]], "status": "aborted", "start": 7, "end": 8}]]})";
  Expected<History> h = read_one("counterexample.json", text);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  const RoundTrip rt = round_trip(*h);
  EXPECT_EQ(rt.level, Level::SER);
  EXPECT_EQ(rt.reread, Verdict::Fail);
  EXPECT_EQ(rt.c.txns.size(), 2u);
  const std::string out = write_isoscope_json(rt.c.history);
  EXPECT_NE(out.find("\"initial\": 5"), std::string::npos) << out;
  EXPECT_NE(out.find("\"a1\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"b1\""), std::string::npos) << out;
  EXPECT_EQ(out.find("\"a2\""), std::string::npos) << out;
}

// A counterexample keeps each transaction's number, session and position in the original history
// (History::origin), through the canonical JSON and back, and its explanation names them so: the
// recipient finds them in their own history. A counterexample of a counterexample keeps them too.
TEST(Counterexample, KeepsTheOriginalIdentities) {
  const std::string text = R"({"format": "isoscope/1", "initial": 5, "sessions": [
    [[["w", "q", 1]], {"id": "a1", "ops": [["r", "x", 5], ["r", "y", 5], ["w", "x", 6]]}],
    [[["w", "p", 1]], [["w", "p", 2]], {"id": "b1", "ops": [["r", "x", 5], ["r", "y", 5], ["w", "y", 6]]}]]})";
  Expected<History> h = read_one("counterexample.json", text);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  const RoundTrip rt = round_trip(*h);
  ASSERT_EQ(rt.reread, Verdict::Fail);
  const std::string out = write_isoscope_json(rt.c.history);
  EXPECT_NE(out.find(R"("origin": {"transactions": 5, "txns": [[2, 0, 1], [5, 1, 2]]})"), std::string::npos) << out;
  Expected<History> back = read_one("counterexample.json", out);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->origin_txns, 5u);
  EXPECT_EQ(back->txn_name(2), "T5 (session 1 #2, id b1)");
  const LevelResult r = checker_for(Level::SER)(*back, CheckBudget{});
  ASSERT_EQ(r.verdict, Verdict::Fail);
  EXPECT_NE(r.anomalies.at(0).explanation.find("T5 (session 1 #2, id b1)"), std::string::npos) << r.anomalies[0].explanation;
  EXPECT_EQ(r.anomalies.at(0).explanation.find("T1 "), std::string::npos) << r.anomalies[0].explanation;
  const Counterexample again = make_counterexample(*back, Level::SER, r.anomalies.at(0), CheckBudget{});
  EXPECT_EQ(again.history.origin_txns, 5u);
  EXPECT_EQ(again.history.shown(2).txn, 5u);
  // an origin that does not match the transactions is an error, not a silent renaming
  std::string bad = out;
  bad.replace(bad.find("[5, 1, 2]"), 9, "[5, 1, 2], [9, 9, 9]");
  Expected<History> wrong = read_one("counterexample.json", bad);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("one entry per transaction"), std::string::npos) << wrong.error().message;
}

// The witness tells the whole story: a fractured read lists the reader that saw half of the
// writer, and a lost update carries the two conflicting anti-dependencies that close its cycle.
TEST(Counterexample, WitnessesShowTheObserverAndTheConflict) {
  for (const char* name : {"FracturedRead", "LostUpdate"}) {
    const InjectableAnomaly* a = find_injectable(name);
    ASSERT_NE(a, nullptr);
    GenParams p;
    p.sessions = 10;
    p.txns_per_session = 50;
    HistorySink sink(false);
    generate_with_anomaly(p, a, sink);
    Expected<History> h = sink.builder().finish("generated");
    ASSERT_TRUE(h.ok());
    const RoundTrip rt = round_trip(*h);
    const Anomaly& w = rt.anomaly;
    ASSERT_EQ(name_of(w.kind), name);
    if (std::string(name) == "FracturedRead") {
      // some listed transaction reads from another listed one and is not on the cycle's ends only
      bool reader = false;
      for (uint32_t t : w.txns)
        for (uint32_t o = h->txns[t].op_begin; t != kInitialTxn && o < h->txns[t].op_end; ++o)
          reader = reader || (h->ops[o].is_read() && std::find(w.txns.begin(), w.txns.end(), h->writer_txn(o)) != w.txns.end() &&
                              h->writer_txn(o) != kInitialTxn);
      EXPECT_TRUE(reader) << w.explanation;
    } else {
      // the conflict closes a cycle T1 -> T2 -> T1 (anti-dependencies or write conflicts)
      bool there = false, back = false;
      for (const AnomalyEdge& e : w.edges)
        if (e.type == EdgeType::RW || e.type == EdgeType::CO) (e.from_txn < e.to_txn ? there : back) = true;
      EXPECT_TRUE(there && back) << w.explanation;
    }
  }
}
