// The concurrent-database simulator (generate/db_sim.h): well-formed, deterministic histories
// whose verdicts are known by construction, checked by the brute-force reference on small runs
// and by every checker at real scale (20, 50 and 100 sessions): a `ser` run passes every
// level, an `si` run passes SI and below, an `rc` run passes RC, and an anomaly planted in a
// `ser` run fails exactly the levels that forbid it.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>

#include "checkers/check.h"
#include "checkers/choice/concurrent_schedule.h"
#include "checkers/strong/strong.h"
#include "formats/formats.h"
#include "generate/db_sim.h"
#include "reference.h"
#include "test_util.h"

using namespace isoscope;

namespace {

const char* engine_name(DbEngine e) {
  return e == DbEngine::Serializable ? "ser" : e == DbEngine::SnapshotIsolation ? "si" : "rc";
}
// The strongest level each engine guarantees.
Level guaranteed(DbEngine e) {
  return e == DbEngine::Serializable ? Level::SSER : e == DbEngine::SnapshotIsolation ? Level::SI : Level::RC;
}

DbSimParams params(DbEngine e, uint32_t sessions, uint32_t txns, uint64_t seed) {
  DbSimParams p;
  p.engine = e;
  p.seed = seed;
  p.sessions = sessions;
  p.txns_per_session = txns;
  p.min_ops = 2;
  p.max_ops = 10;
  p.key.keys = 200 + 37 * static_cast<uint32_t>(seed % 7);
  p.key.dist = seed % 3 == 0 ? KeyDist::Zipf : seed % 3 == 1 ? KeyDist::Hotspot : KeyDist::Uniform;
  if (seed % 2) parse_workload_mix("cobra", p.mix);
  p.abort_ratio = 0.02;
  return p;
}

CheckReport check_all(const History& h) {
  CheckOptions o;
  o.levels.assign(kTransactional.begin(), kTransactional.end());
  o.budget_ms = 60000;
  return check_history(h, o);
}

}  // namespace

TEST(DbSim, WellFormedAndDeterministic) {
  for (DbEngine e : {DbEngine::Serializable, DbEngine::SnapshotIsolation, DbEngine::ReadCommitted}) {
    const DbSimParams p = params(e, 12, 40, 5);
    Expected<History> a = simulate_database(p), b = simulate_database(p);
    ASSERT_TRUE(a.ok()) << a.error().to_string();  // the builder rejects duplicate writes
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(write_isoscope_json(*a), write_isoscope_json(*b));
    const History& h = *a;
    EXPECT_EQ(h.num_sessions(), 12u);
    size_t aborted = 0, overlapping = 0;
    for (size_t s = 0; s < h.num_sessions(); ++s)
      for (uint32_t t = h.session_begin[s]; t < h.session_begin[s + 1]; ++t) {
        const Txn& x = h.txns[t];
        ASSERT_TRUE(x.has_time());
        EXPECT_LE(h.times[t].start, h.times[t].end);
        if (t + 1 < h.session_begin[s + 1]) EXPECT_LT(h.times[t].end, h.times[t + 1].start);  // sessions are sequential
        aborted += !x.committed;
      }
    // Transactions of different sessions overlap in time (a concurrent run, not a serial one).
    for (uint32_t t = h.session_begin[0]; t < h.session_begin[1]; ++t)
      for (uint32_t u = h.session_begin[1]; u < h.session_begin[2]; ++u)
        overlapping += h.times[t].start < h.times[u].end && h.times[u].start < h.times[t].end;
    EXPECT_GT(overlapping, 10u) << engine_name(e);
    if (e != DbEngine::ReadCommitted) EXPECT_GT(aborted, 0u) << engine_name(e);
  }
}

// Small runs against the brute-force reference: the engine's guarantee holds, and the weaker
// engines do produce the anomalies the stronger ones forbid.
TEST(DbSim, SmallRunsSatisfyTheirEngineByTheReference) {
  std::array<int, 3> beyond{};  // runs failing the next stronger level
  for (DbEngine e : {DbEngine::Serializable, DbEngine::SnapshotIsolation, DbEngine::ReadCommitted}) {
    for (uint64_t seed = 1, n = scaled(150, 12); seed <= n; ++seed) {
      DbSimParams p = params(e, 2 + seed % 3, 2 + seed % 2, seed);
      p.min_ops = 1;
      p.max_ops = 3;
      p.key.keys = 2 + seed % 3;
      Expected<History> h = simulate_database(p);
      ASSERT_TRUE(h.ok());
      for (Level l : kTransactional) {
        if (static_cast<int>(l) > static_cast<int>(guaranteed(e))) continue;
        EXPECT_EQ(reference_check(*h, l), Verdict::Pass)
            << engine_name(e) << " " << level_name(l) << " seed " << seed << "\n" << write_isoscope_json(*h);
      }
      if (e == DbEngine::SnapshotIsolation) beyond[1] += reference_check(*h, Level::SER) == Verdict::Fail;
      if (e == DbEngine::ReadCommitted) beyond[2] += reference_check(*h, Level::SI) == Verdict::Fail;
    }
  }
  EXPECT_GT(beyond[1], 0);  // write skew happens under SI
  EXPECT_GT(beyond[2], 0);  // lost updates and the like under RC
}

// Real scale: every checker decides every level (no unknown) and agrees with the engine.
TEST(DbSim, KnownVerdictsAt20To100Sessions) {
  for (DbEngine e : {DbEngine::Serializable, DbEngine::SnapshotIsolation, DbEngine::ReadCommitted}) {
    for (uint32_t sessions : scaled_sizes({20, 50, 100})) {
      const uint64_t seed = sessions + static_cast<uint64_t>(e);
      const DbSimParams p = params(e, sessions, scaled(10000, 1000) / sessions, seed);
      Expected<History> h = simulate_database(p);
      ASSERT_TRUE(h.ok());
      const CheckReport r = check_all(*h);
      for (Level l : kTransactional) {
        const LevelResult& res = r.results[static_cast<int>(l)];
        EXPECT_NE(res.verdict, Verdict::Unknown) << engine_name(e) << " " << sessions << " " << level_name(l);
        if (static_cast<int>(l) <= static_cast<int>(guaranteed(e)))
          EXPECT_EQ(res.verdict, Verdict::Pass)
              << engine_name(e) << " " << sessions << " sessions, " << level_name(l) << " seed " << seed
              << (res.anomalies.empty() ? "" : ": " + res.anomalies[0].explanation);
      }
    }
  }
}

// Every injectable anomaly planted in a `ser` run fails exactly the levels that forbid it, and
// the weakest failing level names it with a handful of transactions.
TEST(DbSim, PlantedAnomaliesFailExactlyTheLevelsThatForbidThem) {
  for (const InjectableAnomaly& a : injectable_anomalies()) {
    for (uint32_t sessions : scaled_sizes({20, 50, 100})) {
      DbSimParams p = params(DbEngine::Serializable, sessions, scaled(3000, 600) / sessions, sessions * 31 + a.sessions);
      p.inject = &a;
      Expected<History> h = simulate_database(p);
      ASSERT_TRUE(h.ok()) << a.name;
      const CheckReport r = check_all(*h);
      for (Level l : kTransactional) {
        const LevelResult& res = r.results[static_cast<int>(l)];
        const bool forbids = static_cast<int>(l) >= static_cast<int>(a.weakest_failing);
        EXPECT_EQ(res.verdict, forbids ? Verdict::Fail : Verdict::Pass)
            << a.name << " at " << sessions << " sessions, " << level_name(l)
            << (res.anomalies.empty() ? "" : ": " + name_of(res.anomalies[0].kind) + ": " + res.anomalies[0].explanation);
      }
      const LevelResult& weakest = r.results[static_cast<int>(a.weakest_failing)];
      ASSERT_FALSE(weakest.anomalies.empty()) << a.name;
      EXPECT_LE(weakest.anomalies[0].txns.size(), 6u) << a.name << " at " << sessions << " sessions";
    }
  }
}

// Repeated values (value_range): every read becomes ambiguous among the writes of its value,
// and the levels each engine guarantees still hold, since the database served one of them.
TEST(DbSim, RepeatedValuesKeepTheEnginesLevelsAt20To100Sessions) {
  for (DbEngine e : {DbEngine::Serializable, DbEngine::SnapshotIsolation, DbEngine::ReadCommitted}) {
    for (uint32_t sessions : scaled_sizes({20, 50, 100})) {
      const uint64_t seed = 5 * sessions + static_cast<uint64_t>(e);
      DbSimParams p = params(e, sessions, scaled(3000, 600) / sessions, seed);
      p.value_range = 3;
      Expected<History> h = simulate_database(p);
      ASSERT_TRUE(h.ok());
      EXPECT_GT(h->ambiguous.size(), h->num_ops() / 10) << engine_name(e) << " " << sessions;
      for (Level l : kTransactional) {
        if (static_cast<int>(l) > static_cast<int>(guaranteed(e))) continue;
        const LevelResult res = checker_for(l)(*h, {});
        EXPECT_EQ(res.verdict, Verdict::Pass)
            << engine_name(e) << " " << sessions << " sessions, " << level_name(l) << " seed " << seed
            << (res.anomalies.empty() ? "" : ": " + res.anomalies[0].explanation);
      }
    }
  }
}

// A planted anomaly (on fresh keys, unique values) in a run with repeated values elsewhere:
// every choice of reads-from keeps it, so exactly the levels that forbid it fail.
TEST(DbSim, PlantedAnomaliesAmongRepeatedValues) {
  for (const char* name : {"LostUpdate", "WriteSkew", "FracturedRead"}) {
    const InjectableAnomaly* a = find_injectable(name);
    ASSERT_NE(a, nullptr) << name;
    for (uint32_t sessions : scaled_sizes({20, 50, 100})) {
      DbSimParams p = params(DbEngine::Serializable, sessions, scaled(2000, 400) / sessions, sessions * 7 + a->sessions);
      p.inject = a;
      p.value_range = 3;
      Expected<History> h = simulate_database(p);
      ASSERT_TRUE(h.ok()) << name;
      for (Level l : kTransactional) {
        const LevelResult res = checker_for(l)(*h, {});
        const bool forbids = static_cast<int>(l) >= static_cast<int>(a->weakest_failing);
        EXPECT_EQ(res.verdict, forbids ? Verdict::Fail : Verdict::Pass)
            << name << " at " << sessions << " sessions, " << level_name(l)
            << (res.anomalies.empty() ? "" : ": " + name_of(res.anomalies[0].kind) + ": " + res.anomalies[0].explanation);
      }
    }
  }
}

// A write skew planted (fresh keys, unique values) in snapshot isolation runs whose other keys
// repeat values: SI and below hold (the engine's), SER and SSER fail with every choice, found
// after the schedule search (checkers/choice/serial_schedule.h) has looked for a serial order and the
// solver for a choice: at scale, whatever these find must not pass the level.
TEST(DbSim, PlantedWriteSkewInSnapshotRunsWithRepeatedValues) {
  const InjectableAnomaly* a = find_injectable("WriteSkew");
  ASSERT_NE(a, nullptr);
  for (uint32_t sessions : scaled_sizes({20, 50, 100})) {
    DbSimParams p = params(DbEngine::SnapshotIsolation, sessions, scaled(2000, 400) / sessions, sessions * 7 + 2);
    p.inject = a;
    p.value_range = 5;
    Expected<History> h = simulate_database(p);
    ASSERT_TRUE(h.ok());
    EXPECT_GT(h->ambiguous.size(), h->num_ops() / 10) << sessions;
    for (Level l : kTransactional) {
      const LevelResult res = checker_for(l)(*h, {});
      const bool forbids = l == Level::SER || l == Level::SSER;
      EXPECT_EQ(res.verdict, forbids ? Verdict::Fail : Verdict::Pass)
          << sessions << " sessions, " << level_name(l)
          << (res.anomalies.empty() ? "" : ": " + name_of(res.anomalies[0].kind) + ": " + res.anomalies[0].explanation);
    }
  }
}

// The same without timestamps (as plume, dbcop and Cobra record them), on 8 hot keys and two
// values (`generate --engine E --value-range 2`): no time tells which write a read saw, so the
// first guesses miss and the schedule searches over the keys' values find the engine's run
// (checkers/choice/concurrent_schedule.h, serial_schedule.h); every level the engine guarantees passes,
// by its own checker on the choice found.
// A run of engine e (10 transactions per session, 8 keys, two values) with its times dropped.
static Expected<History> untimed_two_value_run(DbEngine e, uint32_t sessions, uint64_t seed) {
  DbSimParams p;
  p.engine = e;
  p.seed = seed;
  p.sessions = sessions;
  p.txns_per_session = 10;
  p.min_ops = 1;
  p.max_ops = 4;
  p.key.keys = 8;
  p.value_range = 2;
  Expected<History> h = simulate_database(p);
  if (!h.ok()) return h;
  h->times.clear();
  h->has_timestamps = false;
  for (Txn& t : h->txns) t.timed = false;
  return h;
}

TEST(DbSim, RepeatedValuesWithoutTimestampsKeepTheEnginesLevels) {
  for (DbEngine e : {DbEngine::Serializable, DbEngine::SnapshotIsolation, DbEngine::ReadCommitted}) {
    for (uint32_t sessions : scaled_sizes({20, 50, 100})) {
      const uint64_t seed = 3 + sessions;
      Expected<History> h = untimed_two_value_run(e, sessions, seed);
      ASSERT_TRUE(h.ok());
      EXPECT_GT(h->ambiguous.size(), h->num_ops() / 4) << engine_name(e) << " " << sessions;
      for (Level l : kTransactional) {
        if (l == Level::SSER || static_cast<int>(l) > static_cast<int>(guaranteed(e))) continue;
        // No deadline: the schedule searches (bounded in steps) come before the solvers, and
        // the outcome does not depend on the machine's speed.
        const LevelResult res = checker_for(l)(*h, CheckBudget{});
        EXPECT_EQ(res.verdict, Verdict::Pass)
            << engine_name(e) << " " << sessions << " sessions, " << level_name(l) << " seed " << seed
            << (res.anomalies.empty() ? "" : ": " + res.anomalies[0].explanation);
      }
    }
  }
}

// One check of such a history searches the engine's run once: the levels from RC to SI each ask
// for it, and the check's memo (checkers/result.h, LevelMemo) keeps it for the levels after the
// first. A memo made from another history is left alone.
TEST(DbSim, OneCheckSearchesTheEnginesRunOnce) {
  Expected<History> h = untimed_two_value_run(DbEngine::SnapshotIsolation, 50, 53);
  ASSERT_TRUE(h.ok());
  CheckOptions opts;
  opts.budget_ms = 0;  // no deadline, as the CLI's default: every search and solver slice runs
  const CheckReport r = check_history(*h, opts);
  for (Level l : {Level::RC, Level::RR, Level::RA, Level::CC, Level::PC, Level::SI})
    EXPECT_EQ(r.results[static_cast<int>(l)].verdict, Verdict::Pass) << level_name(l);
  ASSERT_EQ(r.memo->history, &*h);
  const auto& si = r.memo->schedules[static_cast<int>(ScheduleModel::SnapshotIsolation)];
  ASSERT_NE(si.result, nullptr);  // (found or not: the solver may have decided without it)

  Expected<History> other = untimed_two_value_run(DbEngine::SnapshotIsolation, 50, 54);
  ASSERT_TRUE(other.ok());
  CheckBudget b;
  b.memo = r.memo.get();
  const ConcurrentSchedule* kept = si.result.get();
  EXPECT_EQ(checker_for(Level::SI)(*other, b).verdict, Verdict::Pass);
  EXPECT_EQ(r.memo->schedules[static_cast<int>(ScheduleModel::SnapshotIsolation)].result.get(), kept);
}
