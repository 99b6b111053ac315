// Repeated values: a (key, value) written more than once makes its reads ambiguous, and a level
// holds when SOME choice of reads-from satisfies it (checkers/choice/choice.h). The model's candidate
// table, --unique-values (on the command line: cli/commands_test.cpp), and every level against the brute-force reference (which finds the
// candidates itself and enumerates every choice) on many small random histories whose writes
// draw values from a tiny range.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "checkers/check.h"
#include "checkers/choice/choice.h"
#include "checkers/choice/concurrent_schedule.h"
#include "checkers/counterexample.h"
#include "checkers/choice/serial_schedule.h"
#include "formats/formats.h"
#include "generate/random_history.h"
#include "reference.h"
#include "strong_witness.h"
#include "test_util.h"

using namespace isoscope;

namespace {

// Small random histories whose writes draw from 1 to 3 values (and 0 is the initial value).
GenParams ambiguous_params(Rng& rng, uint64_t seed) {
  GenParams p;
  p.seed = seed;
  p.sessions = 1 + rng.below(3);
  const uint32_t max_tps = std::max<uint32_t>(1, 6 / p.sessions);
  p.txns_per_session = 1 + rng.below(max_tps);
  if (p.sessions * p.txns_per_session < 2) p.txns_per_session = 2;
  p.min_ops = 1;
  p.max_ops = 2 + rng.below(2);
  p.keys = 1 + rng.below(2);
  p.read_ratio = 0.3 + 0.4 * rng.uniform();
  p.value_range = 1 + rng.below(3);
  const uint32_t m = rng.below(20);
  p.mode = m < 4 ? GenMode::Serial : m < 10 ? GenMode::Causal : GenMode::Random;
  p.causal_stale_ratio = m >= 6 && m < 10 ? 0.3 : 0.0;
  p.sync_ratio = 0.3 + 0.7 * rng.uniform();
  p.stale_ratio = 0.05 + 0.45 * rng.uniform();
  p.wild_ratio = rng.chance(0.6) ? 0.0 : 0.1 * rng.uniform();
  p.thin_air_ratio = rng.chance(0.9) ? 0.0 : 0.02;
  p.abort_ratio = rng.chance(0.75) ? 0.0 : 0.15;
  p.unknown_ratio = rng.chance(0.8) ? 0.0 : 0.15;
  p.timestamps = rng.chance(0.5);
  p.overlap = rng.below(3);
  return p;
}

}  // namespace

TEST(Ambiguous, RepeatedPairsMakeTheirReadsAmbiguous) {
  // x = 5 written by T1 and T2; T3 reads it: T1 or T2. y = 0 written once: read from it.
  History h = parse_json(R"({"initial": 0, "sessions": [[[["w","x",5],["w","y",0]]], [[["w","x",5]]],
                        [[["r","x",5],["r","y",0],["r","z",0]]]]})");
  ASSERT_EQ(h.ambiguous.size(), 1u);
  EXPECT_EQ(h.repeated_pairs, 1u);
  const uint32_t r = h.ambiguous.op[0];
  EXPECT_EQ(h.op_text(r), "r(x, 5)");
  EXPECT_EQ(h.read_from[r], kAmbiguous);
  ASSERT_EQ(h.ambiguous.candidates(r).size(), 2u);
  EXPECT_EQ(h.candidate_txn(h.ambiguous.candidates(r)[0]), 1u);
  EXPECT_EQ(h.candidate_txn(h.ambiguous.candidates(r)[1]), 2u);
  EXPECT_EQ(h.writer_txn(r + 1), 1u);             // y = 0: its one write, not the initial value
  EXPECT_EQ(h.read_from[r + 2], kReadsInitial);  // z = 0: the initial value
  ASSERT_TRUE(repeated_write_error(h).has_value());
  EXPECT_NE(repeated_write_error(h)->message.find("written with value 5 twice"), std::string::npos);
}

TEST(Ambiguous, TheInitialValueIsACandidateOfARepeatedPair) {
  History h = parse_json(R"({"initial": 0, "sessions": [[[["w","x",0]]], [[["w","x",0]]], [[["r","x",0]]]]})");
  ASSERT_EQ(h.ambiguous.size(), 1u);
  const auto c = h.ambiguous.candidates(h.ambiguous.op[0]);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[2], kReadsInitial);
}

TEST(Ambiguous, UniqueValueHistoriesHaveNoTable) {
  GenParams p;
  p.sessions = 5;
  p.txns_per_session = 50;
  Expected<History> h = generate_history(p);
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(h->ambiguous.empty());
  EXPECT_EQ(h->repeated_pairs, 0u);
  EXPECT_FALSE(repeated_write_error(*h).has_value());
}

TEST(Ambiguous, RepeatedAppendsStayAnError) {
  InputFile f{"t.json", R"({"sessions": [[[["append","x",1]]], [[["append","x",1]]]]})"};
  Expected<History> h = read_history(std::span<const InputFile>(&f, 1));
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.error().message.find("appended"), std::string::npos) << h.error().message;
}

TEST(Ambiguous, AReadIsInconsistentOnlyWhenEveryCandidateIs) {
  // T1 aborted and T2 committed both write x = 5: reading it is fine (from T2).
  History ok = parse_json(R"({"initial": 0, "sessions": [[{"status":"aborted","ops":[["w","x",5]]}], [[["w","x",5]]],
                         [[["r","x",5]]]]})");
  EXPECT_EQ(checker_for(Level::RC)(ok, {}).verdict, Verdict::Pass);
  // Both aborted: an aborted read whichever it reads, and the anomaly names both.
  History bad = parse_json(R"({"initial": 0, "sessions": [[{"status":"aborted","ops":[["w","x",5]]}],
                          [{"status":"aborted","ops":[["w","x",5]]}], [[["r","x",5]]]]})");
  const LevelResult r = checker_for(Level::RC)(bad, {});
  ASSERT_EQ(r.verdict, Verdict::Fail);
  ASSERT_FALSE(r.anomalies.empty());
  EXPECT_EQ(name_of(r.anomalies[0].kind), "AbortedRead");
  EXPECT_NE(r.anomalies[0].explanation.find("T1 or T2"), std::string::npos) << r.anomalies[0].explanation;
}

TEST(Ambiguous, SomeChoiceSatisfiesTheLevel) {
  // T3 reads x = 1 and y = 2. Read from T1 (x = 1, y = 1 ... ) it would be a fractured read;
  // T2 writes both x = 1 and y = 2: reading both from T2 is serializable.
  History h = parse_json(R"({"initial": 0, "sessions": [[[["w","x",1],["w","y",1]]], [[["w","x",1],["w","y",2]]],
                        [[["r","x",1],["r","y",2]]]]})");
  for (Level l : kTransactional) {
    if (l == Level::SSER) continue;
    const LevelResult r = checker_for(l)(h, {});
    EXPECT_EQ(r.verdict, Verdict::Pass) << level_name(l);
    EXPECT_EQ(reference_check(h, l), Verdict::Pass) << level_name(l);
  }
}

TEST(Ambiguous, AViolationWithEveryChoiceNamesTheChoice) {
  // T1 reads x = 5, written by T2 (later in T1's own session) and by T3 (which reads T1's y):
  // either choice closes a cycle of so and wr, so every level fails.
  History h = parse_json(R"({"initial": 0, "sessions": [[[["r","x",5],["w","y",1]], [["w","x",5]]],
                        [[["w","x",5],["r","y",1]]]]})");
  for (Level l : {Level::RC, Level::CC, Level::SER}) {
    EXPECT_EQ(reference_check(h, l), Verdict::Fail) << level_name(l);
    const LevelResult r = checker_for(l)(h, {});
    ASSERT_EQ(r.verdict, Verdict::Fail) << level_name(l);
    ASSERT_EQ(r.anomalies.size(), 1u);
    EXPECT_NE(r.anomalies[0].explanation.find("r(x, 5) of T1 may read from T2 or T3"), std::string::npos)
        << r.anomalies[0].explanation;
  }
  // Lost update, or not: T3 and T4 read x = 5 and overwrite it, but T1 and T2 both write it,
  // so T3 can read T1's and T4 T2's (T1 T3 T2 T4 is serial).
  History lu = parse_json(R"({"initial": 0, "sessions": [[[["w","x",5]]], [[["w","x",5]]], [[["r","x",5],["w","x",1]]],
                         [[["r","x",5],["w","x",2]]]]})");
  EXPECT_EQ(reference_check(lu, Level::SER), Verdict::Pass);
  EXPECT_EQ(checker_for(Level::SER)(lu, {}).verdict, Verdict::Pass);
}

namespace {

// How many writers a read may read from: its candidates, 1, or 0 (thin air).
size_t choices_of(const History& h, uint32_t op) {
  if (h.read_from[op] == kAmbiguous) return h.ambiguous.candidates(op).size();
  return h.writer_txn(op) == kThinAir ? 0 : 1;
}

// A counterexample (the history a share link or a download carries) leaves a read out rather
// than narrow its choice: a read kept with a candidate left out would fail for want of the
// choice that satisfies the level in the whole history (with none kept, from thin air), an
// anomaly the history does not have.
void expect_counterexample_keeps_every_choice(const History& h, Level l, const LevelResult& r, const std::string& what) {
  ASSERT_EQ(r.verdict, Verdict::Fail) << what;
  ASSERT_FALSE(r.anomalies.empty()) << what;
  const Counterexample c = make_counterexample(h, l, r.anomalies[0], {});
  ASSERT_TRUE(c.reproduces) << what << "\n" << write_isoscope_json(h) << "\n" << r.anomalies[0].explanation;
  const History& p = c.history;
  ASSERT_EQ(p.txns.size(), c.txns.size() + 1) << what;
  for (size_t i = 0; i < c.txns.size(); ++i) {
    const Txn &x = h.txns[c.txns[i]], &y = p.txns[i + 1];
    uint32_t o = x.op_begin;
    for (uint32_t q = y.op_begin; q < y.op_end; ++q, ++o) {
      while (o < x.op_end && !(h.ops[o].kind == p.ops[q].kind && h.ops[o].key == p.ops[q].key &&
                               h.ops[o].value == p.ops[q].value))
        ++o;
      ASSERT_LT(o, x.op_end) << what;
      if (p.ops[q].kind == OpKind::Read)
        EXPECT_EQ(choices_of(p, q), choices_of(h, o)) << what << ": T" << c.txns[i] << " operation " << (o - x.op_begin)
                                                      << "\n" << write_isoscope_json(p);
    }
  }
  const LevelResult again = checker_for(l)(p, {});
  ASSERT_EQ(again.verdict, Verdict::Fail) << what;
  EXPECT_EQ(reference_check(p, l), Verdict::Fail) << what;
  if (again.anomalies[0].kind == AnomalyKind::ThinAirRead)  // only the history's own
    EXPECT_EQ(name_of(r.anomalies[0].kind), "ThinAirRead") << what << ": " << again.anomalies[0].explanation;
}

}  // namespace

TEST(Ambiguous, CounterexamplesKeepEveryChoiceOfTheirReads) {
  // SER fails with either writer of x = 5: the counterexample keeps both (it used to keep T1
  // alone, whose read then came from thin air).
  const History h = parse_json(R"({"initial": 0, "sessions": [[[["r","x",5],["w","y",1]], [["w","x",5]]],
                             [[["w","x",5],["r","y",1]]]]})");
  for (Level l : {Level::RC, Level::CC, Level::SER}) {
    const LevelResult r = checker_for(l)(h, {});
    expect_counterexample_keeps_every_choice(h, l, r, level_name(l));
    EXPECT_EQ(make_counterexample(h, l, r.anomalies[0], {}).txns.size(), 3u) << level_name(l);
  }
  // Random histories with repeated values: every failing level's counterexample.
  Rng rng(77);
  int checked = 0;
  for (int i = 0, n = scaled(4000); i < n; ++i) {
    const GenParams gp = ambiguous_params(rng, 9100000 + i);
    Expected<History> eh = generate_history(gp);
    ASSERT_TRUE(eh.ok());
    if (eh->ambiguous.empty()) continue;
    for (Level l : kTransactional) {
      if (l == Level::SSER && !eh->has_timestamps) continue;
      const LevelResult r = checker_for(l)(*eh, {});
      if (r.verdict != Verdict::Fail) continue;
      ++checked;
      expect_counterexample_keeps_every_choice(*eh, l, r, std::string(level_name(l)) + " seed " + std::to_string(gp.seed));
      if (HasFatalFailure() || HasNonfatalFailure()) return;
    }
  }
  EXPECT_GT(checked, scaled_threshold(2000));
}

TEST(Ambiguous, LinAndMiniTransactionPathsStayOnUniqueValues) {
  History h = parse_json(R"({"initial": 0, "sessions": [[{"start":0,"end":1,"ops":[["w","x",1]]}],
                        [{"start":2,"end":3,"ops":[["w","x",1]]}], [{"start":4,"end":5,"ops":[["r","x",1]]}]]})");
  std::string why;
  EXPECT_FALSE(level_applies(h, Level::LIN, why));
  EXPECT_NE(why.find("repeated values"), std::string::npos);
  EXPECT_EQ(checker_for(Level::SER)(h, {}).verdict, Verdict::Pass);
  EXPECT_EQ(checker_for(Level::SSER)(h, {}).verdict, Verdict::Pass);
}

// Every level against the reference on random histories with repeated values: the acceptance
// test (10,000 histories, every one checked at the eight levels).
TEST(Ambiguous, AgreesWithReferenceOnRandomHistoriesWithRepeatedValues) {
  const int kHistories = scaled(10000);
  Rng rng(2026);
  int disagreements = 0, lattice = 0, ambiguous = 0, witness_errors = 0;
  std::array<int, 8> pass{}, fail{};
  for (int i = 0; i < kHistories; ++i) {
    const GenParams p = ambiguous_params(rng, 7000000 + i);
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok());
    const History& h = *eh;
    ambiguous += !h.ambiguous.empty();
    std::array<Verdict, 8> got{};
    for (size_t li = 0; li < kTransactional.size(); ++li) {
      const Level l = kTransactional[li];
      const Verdict want = reference_check(h, l);
      if (want == Verdict::Unknown) continue;
      const LevelResult r = l == Level::SSER && !h.has_timestamps
                                ? LevelResult{Verdict::NotApplicable}
                                : checker_for(l)(h, {});
      got[li] = r.verdict;
      pass[li] += r.verdict == Verdict::Pass;
      fail[li] += r.verdict == Verdict::Fail;
      if (r.verdict != want && ++disagreements <= 5)
        ADD_FAILURE() << level_name(l) << ": checker says " << verdict_name(r.verdict) << ", reference says "
                      << verdict_name(want) << " (seed " << p.seed << ")\n" << write_isoscope_json(h);
      if (r.verdict == Verdict::Fail && r.anomalies.empty() && ++witness_errors <= 5)
        ADD_FAILURE() << level_name(l) << " fails without an anomaly (seed " << p.seed << ")";
    }
    for (size_t a = 0; a < kTransactional.size(); ++a)
      for (size_t b = 0; b < kTransactional.size(); ++b)
        if (is_weaker(kTransactional[a], kTransactional[b]) && got[b] == Verdict::Pass && got[a] == Verdict::Fail &&
            ++lattice <= 5)
          ADD_FAILURE() << level_name(kTransactional[b]) << " passes but " << level_name(kTransactional[a])
                        << " fails (seed " << p.seed << ")";
  }
  std::printf("  %d histories, %d with ambiguous reads\n", kHistories, ambiguous);
  for (size_t li = 0; li < kTransactional.size(); ++li)
    std::printf("    %-4s pass %5d  fail %5d\n", level_name(kTransactional[li]), pass[li], fail[li]);
  EXPECT_EQ(disagreements, 0);
  EXPECT_EQ(lattice, 0);
  EXPECT_EQ(witness_errors, 0);
  EXPECT_GT(ambiguous, scaled_threshold(10000 / 2));
  for (size_t li = 0; li < kTransactional.size(); ++li) {
    EXPECT_GT(pass[li], scaled_threshold(10000 / 20)) << level_name(kTransactional[li]);
    EXPECT_GT(fail[li], scaled_threshold(10000 / 50)) << level_name(kTransactional[li]);
  }
}

namespace {

// Whether order is a serial schedule of h: every committed transaction once, sessions in order,
// real time kept when real_time, and every read seeing the value its key holds (its own
// transaction's last write of the key before it, else the last committed write placed before).
std::string schedule_error(const History& h, const std::vector<uint32_t>& order, bool real_time) {
  std::vector<uint32_t> place(h.txns.size(), kNone);
  for (uint32_t i = 0; i < order.size(); ++i) {
    if (order[i] == kInitialTxn || order[i] >= h.txns.size() || place[order[i]] != kNone) return "not a permutation";
    place[order[i]] = i;
  }
  for (uint32_t t = 1; t < h.txns.size(); ++t) {
    const bool committed = h.txns[t].status == TxnStatus::Committed;
    if (committed != (place[t] != kNone)) return "T" + std::to_string(t) + " placed wrongly";
  }
  for (size_t s = 0; s < h.num_sessions(); ++s) {
    uint32_t last = 0;
    for (uint32_t t = h.session_begin[s]; t < h.session_begin[s + 1]; ++t) {
      if (place[t] == kNone) continue;
      if (place[t] < last) return "session order broken";
      last = place[t];
    }
  }
  if (real_time)
    for (uint32_t a : order)
      for (uint32_t b : order)
        if (h.txns[a].has_time() && h.txns[b].has_time() && h.times[a].end < h.times[b].start && place[a] > place[b])
          return "real time broken";
  const uint32_t none = kNone - 1;
  std::vector<uint32_t> value(h.keys.size(), h.initial ? *h.initial : none);
  for (uint32_t t : order) {
    std::vector<std::pair<uint32_t, uint32_t>> own;
    for (uint32_t o = h.txns[t].op_begin; o < h.txns[t].op_end; ++o) {
      const Op& op = h.ops[o];
      uint32_t seen = value[op.key];
      for (auto [k, v] : own)
        if (k == op.key) seen = v;
      if (op.is_write()) own.push_back({op.key, op.value});
      else if (op.is_read() && seen != op.value) return "a read of T" + std::to_string(t) + " sees another value";
    }
    for (auto [k, v] : own) value[k] = v;
  }
  return "";
}

}  // namespace

// The serial schedule search (checkers/choice/serial_schedule.h) against the reference: a schedule it
// finds is one (checked by replaying it), so SER (SSER with real time) holds; and when it tries
// every state without finding one, the level fails (complete on histories this small: its
// rules that cut the search, forced read-only steps and values never left while still to be
// read and no longer written, lose no schedule; with backjumps, exhausted only when none
// skipped a state). Both with and without backjumps.
TEST(Ambiguous, SerialScheduleSearchAgreesWithReference) {
  const int kHistories = scaled(4000);
  Rng rng(3131);
  int found = 0, exhausted = 0, wrong = 0;
  for (int i = 0; i < kHistories; ++i) {
    const GenParams p = ambiguous_params(rng, 8100000 + i);
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok());
    const History& h = *eh;
    for (const int mode : {0, 1, 2, 3}) {  // real time or not, backjumps or not
      const bool real_time = mode & 1, backjump = mode & 2;
      if (real_time && !h.has_timestamps) continue;
      const Level l = real_time ? Level::SSER : Level::SER;
      const SerialSchedule s = find_serial_schedule(h, real_time, {}, 1u << 20, backjump);
      if (!s.found && !s.exhausted) continue;  // (a transaction of unknown status)
      const Verdict want = reference_check(h, l);
      if (want == Verdict::Unknown) continue;
      found += s.found;
      exhausted += s.exhausted;
      std::string error;
      if (s.found) {
        error = schedule_error(h, s.order, real_time);
        for (uint32_t a = 0; a < h.ambiguous.size() && error.empty(); ++a) {
          const std::span<const uint32_t> c = h.ambiguous.candidates_at(a);
          if (h.txns[h.op_txn[h.ambiguous.op[a]]].status == TxnStatus::Committed &&
              std::find(c.begin(), c.end(), s.choice[a]) == c.end())
            error = "a choice that is no candidate";
        }
        if (error.empty() && want != Verdict::Pass) error = "a schedule where the reference fails";
      } else if (want != Verdict::Fail) {
        error = "no schedule where the reference passes";
      }
      if (!error.empty() && ++wrong <= 5)
        ADD_FAILURE() << level_name(l) << ": " << error << " (seed " << p.seed << ")\n" << write_isoscope_json(h);
    }
  }
  std::printf("  schedules found %d, searches exhausted %d\n", found, exhausted);
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(found, scaled_threshold(4000 / 10));
  EXPECT_GT(exhausted, scaled_threshold(4000 / 10));
}

// serial_order_holds (the choice layer's check of a serial schedule, in place of SER's checker):
// it accepts the search's own schedules, with their choice of reads-from; whatever order it
// accepts (the search's, or one with transactions swapped) is a serial schedule by the
// reference, and SER's checker passes the history; and it never accepts a history whose reads
// are still to be chosen.
TEST(Ambiguous, SerialOrderHoldsOnlyOnSerialSchedules) {
  const int kHistories = scaled(1500);
  Rng rng(5151);
  int schedules = 0, accepted = 0, rejected = 0, wrong = 0;
  for (int i = 0; i < kHistories; ++i) {
    const GenParams p = ambiguous_params(rng, 8300000 + i);
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok());
    const History& h = *eh;
    const SerialSchedule s = find_serial_schedule(h, false, {}, 1u << 20);
    if (!s.found) continue;
    ++schedules;
    History r = h;  // the schedule's choice of reads-from
    bool committed_choice = false;
    for (uint32_t a = 0; a < h.ambiguous.size(); ++a) {
      r.read_from[h.ambiguous.op[a]] = s.choice[a] != kNone ? s.choice[a] : h.ambiguous.candidates_at(a)[0];
      committed_choice |= h.txns[h.op_txn[h.ambiguous.op[a]]].status == TxnStatus::Committed;
    }
    r.ambiguous = AmbiguousReads{};
    std::string error;
    if (committed_choice && serial_order_holds(h, s.order)) error = "accepted reads still to be chosen";
    if (error.empty() && !serial_order_holds(r, s.order)) error = "rejected the search's own schedule";
    for (int trial = 0; trial < 8 && error.empty(); ++trial) {
      std::vector<uint32_t> order = s.order;
      if (trial > 0 && order.size() >= 2)
        for (int swaps = 1 + static_cast<int>(rng.below(3)); swaps-- > 0;) {
          const size_t j = rng.below(static_cast<uint32_t>(order.size() - 1));
          std::swap(order[j], order[j + 1]);
        }
      History r2 = r;  // half the trials: another candidate for one read
      if (trial % 2 && !h.ambiguous.empty()) {
        const uint32_t a = rng.below(static_cast<uint32_t>(h.ambiguous.size()));
        const std::span<const uint32_t> c = h.ambiguous.candidates_at(a);
        r2.read_from[h.ambiguous.op[a]] = c[rng.below(static_cast<uint32_t>(c.size()))];
      }
      if (!serial_order_holds(r2, order)) {
        ++rejected;
        continue;
      }
      ++accepted;
      if (const std::string e = schedule_error(h, order, false); !e.empty()) error = "accepted an order that is none: " + e;
      else if (checker_for(Level::SER)(r2, {}).verdict != Verdict::Pass) error = "accepted an order where SER's checker fails";
    }
    if (!error.empty() && ++wrong <= 5) ADD_FAILURE() << error << " (seed " << p.seed << ")\n" << write_isoscope_json(h);
  }
  std::printf("  schedules %d, orders accepted %d, rejected %d\n", schedules, accepted, rejected);
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(schedules, scaled_threshold(1500 / 10));
  EXPECT_GT(rejected, schedules);
}

// snapshot_order_holds (the choice layer's check of a snapshot-isolation run, in place of SI's
// and PC's checkers): it accepts the runs the concurrent search finds, with their choice of
// reads-from; whatever commit order it accepts (the search's, or one with commits swapped)
// passes the level's checker; and it never accepts a history whose reads are still to be chosen.
TEST(Ambiguous, SnapshotOrderHoldsOnlyOnSnapshotRuns) {
  const int kHistories = scaled(1500);
  Rng rng(6161);
  int runs = 0, accepted = 0, rejected = 0, wrong = 0;
  for (int i = 0; i < kHistories; ++i) {
    const GenParams p = ambiguous_params(rng, 8400000 + i);
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok());
    const History& h = *eh;
    const ConcurrentSchedule s = find_concurrent_schedule(h, ScheduleModel::SnapshotIsolation, {}, 1u << 20);
    if (!s.found) continue;
    ++runs;
    History r = h;  // the run's choice of reads-from
    bool committed_choice = false;
    for (uint32_t a = 0; a < h.ambiguous.size(); ++a) {
      r.read_from[h.ambiguous.op[a]] = s.choice[a] != kNone ? s.choice[a] : h.ambiguous.candidates_at(a)[0];
      committed_choice |= h.txns[h.op_txn[h.ambiguous.op[a]]].status == TxnStatus::Committed;
    }
    r.ambiguous = AmbiguousReads{};
    std::string error;
    if (committed_choice && snapshot_order_holds(h, s.commits, true)) error = "accepted reads still to be chosen";
    if (error.empty() && !snapshot_order_holds(r, s.commits, true)) error = "rejected the search's own run";
    for (int trial = 0; trial < 8 && error.empty(); ++trial) {
      std::vector<uint32_t> order = s.commits;
      if (trial > 0 && order.size() >= 2)
        for (int swaps = 1 + static_cast<int>(rng.below(3)); swaps-- > 0;) {
          const size_t j = rng.below(static_cast<uint32_t>(order.size() - 1));
          std::swap(order[j], order[j + 1]);
        }
      History r2 = r;  // half the trials: another candidate for one read
      if (trial % 2 && !h.ambiguous.empty()) {
        const uint32_t a = rng.below(static_cast<uint32_t>(h.ambiguous.size()));
        const std::span<const uint32_t> c = h.ambiguous.candidates_at(a);
        r2.read_from[h.ambiguous.op[a]] = c[rng.below(static_cast<uint32_t>(c.size()))];
      }
      for (const Level l : {Level::SI, Level::PC}) {
        if (!snapshot_order_holds(r2, order, l == Level::SI)) {
          ++rejected;
          continue;
        }
        ++accepted;
        if (checker_for(l)(r2, {}).verdict != Verdict::Pass) error = std::string("accepted an order where the checker fails ") + level_name(l);
      }
    }
    if (!error.empty() && ++wrong <= 5) ADD_FAILURE() << error << " (seed " << p.seed << ")\n" << write_isoscope_json(h);
  }
  std::printf("  runs %d, orders accepted %d, rejected %d\n", runs, accepted, rejected);
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(runs, scaled_threshold(1500 / 10));
  EXPECT_GT(rejected, runs);
}

// The strong levels' solver with the reads-from choice inside it (the hyper-polygraph), alone:
// no first guess, every history with ambiguous reads straight to it, against the reference.
TEST(Ambiguous, TheSolverWithTheChoiceInsideAgreesWithReference) {
  const int kHistories = scaled(10000);
  constexpr std::array<Level, 4> kStrong = {Level::PC, Level::SI, Level::SER, Level::SSER};
  Rng rng(4242);
  int disagreements = 0, unverified = 0, no_witness = 0, histories = 0;
  CheckStats pruned;
  CheckBudget counted;
  counted.stats = &pruned;
  std::array<int, 4> pass{}, fail{};
  for (int i = 0; i < kHistories; ++i) {
    const GenParams p = ambiguous_params(rng, 9000000 + i);
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok());
    const History& h = *eh;
    if (h.ambiguous.empty()) continue;
    ++histories;
    for (size_t li = 0; li < kStrong.size(); ++li) {
      const Level l = kStrong[li];
      if (l == Level::SSER && !h.has_timestamps) continue;
      const LevelResult r = check_with_choices_by_solver(h, l, leaf_checker(l), counted);
      if (r.verdict == Verdict::NotApplicable) continue;  // a transaction of unknown status
      const Verdict want = reference_check(h, l);
      if (want == Verdict::Unknown) continue;
      pass[li] += r.verdict == Verdict::Pass;
      fail[li] += r.verdict == Verdict::Fail;
      if (r.verdict == Verdict::Unknown && ++unverified <= 5)
        ADD_FAILURE() << level_name(l) << ": " << r.reason << " (seed " << p.seed << ")\n" << write_isoscope_json(h);
      if (r.verdict != Verdict::Unknown && r.verdict != want && ++disagreements <= 5)
        ADD_FAILURE() << level_name(l) << ": the solver says " << verdict_name(r.verdict) << ", reference says "
                      << verdict_name(want) << " (seed " << p.seed << ")\n" << write_isoscope_json(h);
      if (r.verdict == Verdict::Fail && (r.anomalies.empty() || r.anomalies[0].txns.empty()) && ++no_witness <= 5)
        ADD_FAILURE() << level_name(l) << " fails without a witness (seed " << p.seed << ")\n" << write_isoscope_json(h);
    }
  }
  std::printf("  %d histories with ambiguous reads; pruned by the known edges: %zu candidates the reader "
              "reaches, %zu overwritten, %zu reads left with one\n",
              histories, pruned.pruned_reader_reaches, pruned.pruned_overwritten, pruned.pruned_fixed);
  for (size_t li = 0; li < kStrong.size(); ++li)
    std::printf("    %-4s pass %5d  fail %5d\n", level_name(kStrong[li]), pass[li], fail[li]);
  // Each pruning rule (and its cascade) is exercised, and every verdict agrees all the same.
  EXPECT_GT(pruned.pruned_reader_reaches, 0u);
  EXPECT_GT(pruned.pruned_overwritten, 0u);
  EXPECT_GT(pruned.pruned_fixed, 0u);
  EXPECT_EQ(disagreements, 0);
  EXPECT_EQ(unverified, 0);
  EXPECT_EQ(no_witness, 0);
  for (size_t li = 0; li < kStrong.size(); ++li) {
    EXPECT_GT(pass[li], histories / 10) << level_name(kStrong[li]);
    EXPECT_GT(fail[li], histories / 20) << level_name(kStrong[li]);
  }
}

// Known by construction: one transaction per session reads x and writes it, one after another
// in real time, with values from {1, 2, 3} (so each value is written many times and every read
// of x is ambiguous); then two concurrent transactions both read the last value and overwrite
// it. Each transaction reads x and writes it, so a serial order is a chain in which each reads
// what the one before it wrote; both last transactions' values are never read, so both would
// have to come last: SER, SI and SSER fail with every choice, while CC and PC (which allow a
// lost update) pass.
std::string read_modify_write_chain(int sessions) {
  std::string json = R"({"initial": 0, "sessions": [)";
  int last = 0;
  for (int s = 0; s < sessions; ++s) {
    const int v = 1 + s % 3;
    json += "[{\"start\": " + std::to_string(10 * s) + ", \"end\": " + std::to_string(10 * s + 5) +
            R"(, "ops": [["r","x",)" + std::to_string(last) + R"(],["w","x",)" + std::to_string(v) + "]]}],";
    last = v;
  }
  const int t = 10 * sessions;
  for (int k = 0; k < 2; ++k)
    json += "[{\"start\": " + std::to_string(t) + ", \"end\": " + std::to_string(t + 5) +
            R"(, "ops": [["r","x",)" + std::to_string(last) + R"(],["w","x",)" + std::to_string(7 + k) + "]]}]" +
            (k == 0 ? "," : "");
  return json + "]}";
}

TEST(Ambiguous, LostUpdateWithEveryChoiceAt20To100Sessions) {
  // SSER: real time leaves each read the last writer of its value, and the solver fails it at
  // once, naming the choice; CC and PC pass.
  for (int sessions : {20, 50, 100}) {
    const History h = parse_json(read_modify_write_chain(sessions));
    ASSERT_GT(h.ambiguous.size(), static_cast<size_t>(sessions) / 2);
    const LevelResult sser = checker_for(Level::SSER)(h, {});
    ASSERT_EQ(sser.verdict, Verdict::Fail) << sessions << " sessions";
    ASSERT_EQ(sser.anomalies.size(), 1u);
    EXPECT_LE(sser.anomalies[0].txns.size(), 4u) << sser.anomalies[0].explanation;
    EXPECT_NE(sser.anomalies[0].explanation.find("may read"), std::string::npos) << sser.anomalies[0].explanation;
    EXPECT_EQ(check_with_choices_by_solver(h, Level::SSER, leaf_checker(Level::SSER), {}).verdict, Verdict::Fail) << sessions;
    for (Level l : {Level::CC, Level::PC})
      EXPECT_EQ(checker_for(l)(h, {}).verdict, Verdict::Pass) << level_name(l) << " at " << sessions << " sessions";
    // SER and SI have no real time to prune with: the chain is a pigeonhole, refuted by counting
    // (the read-modify-writes of the last value outnumber its writers by one).
    for (Level l : {Level::SI, Level::SER}) {
      const LevelResult r = checker_for(l)(h, {});
      ASSERT_EQ(r.verdict, Verdict::Fail) << level_name(l) << " at " << sessions << " sessions";
      ASSERT_EQ(r.anomalies.size(), 1u);
      EXPECT_EQ(name_of(r.anomalies[0].kind), "LostUpdate");
      EXPECT_NE(r.anomalies[0].explanation.find("one of these updates is lost"), std::string::npos)
          << r.anomalies[0].explanation;
    }
  }
  for (int sessions : {4, 8, 10}) {
    const History h = parse_json(read_modify_write_chain(sessions));
    for (Level l : {Level::SI, Level::SER, Level::SSER}) {
      EXPECT_EQ(checker_for(l)(h, {}).verdict, Verdict::Fail) << level_name(l) << " at " << sessions;
      EXPECT_EQ(check_with_choices_by_solver(h, l, leaf_checker(l), {}).verdict, Verdict::Fail) << level_name(l) << " at " << sessions;
    }
    if (sessions == 4)
      for (Level l : {Level::CC, Level::PC, Level::SI, Level::SER, Level::SSER})
        EXPECT_EQ(reference_check(h, l), l == Level::CC || l == Level::PC ? Verdict::Pass : Verdict::Fail) << level_name(l);
  }
}

// Read-modify-write-heavy histories with values from {1, 2}: the refutations by values alone
// (choice/refutations.cpp: updates_outnumber_versions, SI, SER and SSER by counting; reads_cannot_repeat,
// RR and up) against the reference, which enumerates every choice. The histories are written
// directly: most transactions read a key (mostly the value a serial run would read) and then
// write it; some read a key twice.
std::string random_rmw_history(Rng& rng, bool timed) {
  const uint32_t sessions = 2 + rng.below(3), txns = 3 + rng.below(4), keys = 1 + rng.below(2);
  std::vector<std::string> session_json(sessions);
  std::vector<uint32_t> session_of(txns);
  for (uint32_t t = 0; t < txns; ++t) session_of[t] = t < sessions ? t : rng.below(sessions);
  const char* names[] = {"x", "y"};
  int clock = 0;
  int current[2] = {0, 0};  // a serial run's values, read most of the time
  for (uint32_t t = 0; t < txns; ++t) {
    std::string ops;
    const uint32_t n = 1 + rng.below(2);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t ki = rng.below(keys);
      const char* k = names[ki];
      const int read = rng.chance(0.75) ? current[ki] : static_cast<int>(rng.below(3));
      const int written = 1 + static_cast<int>(rng.below(2));
      if (!ops.empty()) ops += ",";
      if (rng.chance(0.15)) {  // a read repeated, perhaps with another value
        const int again = rng.chance(0.5) ? read : static_cast<int>(rng.below(3));
        ops += std::string(R"(["r",")") + k + R"(",)" + std::to_string(read) + "],";
        ops += std::string(R"(["r",")") + k + R"(",)" + std::to_string(again) + "]";
      } else if (rng.chance(0.75)) {
        ops += std::string(R"(["r",")") + k + R"(",)" + std::to_string(read) + "],";
        ops += std::string(R"(["w",")") + k + R"(",)" + std::to_string(written) + "]";
        current[ki] = written;
      } else if (rng.chance(0.5)) {
        ops += std::string(R"(["r",")") + k + R"(",)" + std::to_string(read) + "]";
      } else {
        ops += std::string(R"(["w",")") + k + R"(",)" + std::to_string(written) + "]";
        current[ki] = written;
      }
    }
    std::string txn = "{";
    if (timed) {
      const int start = clock, end = clock + 1 + static_cast<int>(rng.below(6));
      clock += 1 + static_cast<int>(rng.below(3));
      txn += "\"start\": " + std::to_string(start) + ", \"end\": " + std::to_string(end) + ", ";
    }
    txn += "\"ops\": [" + ops + "]}";
    std::string& sj = session_json[session_of[t]];
    sj += (sj.empty() ? "" : ",") + txn;
  }
  std::string json = R"({"initial": 0, "sessions": [)";
  for (uint32_t s = 0; s < sessions; ++s) json += (s ? ",[" : "[") + session_json[s] + "]";
  return json + "]}";
}

TEST(Ambiguous, RefutationsByValuesAgreeWithReferenceOnReadModifyWriteHistories) {
  const int kHistories = scaled(1500);
  const std::array<Level, 8>& kStrong = kTransactional;
  Rng rng(2121);
  int disagreements = 0, counted = 0, unrepeatable = 0;
  std::array<int, 8> pass{}, fail{};
  for (int i = 0; i < kHistories; ++i) {
    const bool timed = rng.chance(0.5);
    const std::string json = random_rmw_history(rng, timed);
    InputFile f{"t.json", json};
    Expected<History> eh = read_history(std::span<const InputFile>(&f, 1));
    if (!eh.ok()) continue;  // (a session left empty)
    const History& h = *eh;
    for (size_t li = 0; li < kStrong.size(); ++li) {
      const Level l = kStrong[li];
      if (l == Level::SSER && !timed) continue;
      const Verdict want = reference_check(h, l);
      if (want == Verdict::Unknown) continue;
      const LevelResult r = checker_for(l)(h, {});
      pass[li] += r.verdict == Verdict::Pass;
      fail[li] += r.verdict == Verdict::Fail;
      counted += r.verdict == Verdict::Fail && !r.anomalies.empty() &&
                 r.anomalies[0].explanation.find("one of these updates is lost") != std::string::npos;
      unrepeatable += r.verdict == Verdict::Fail && !r.anomalies.empty() &&
                      r.anomalies[0].explanation.find("No transaction is a candidate of both") != std::string::npos;
      if (r.verdict != want && ++disagreements <= 5)
        ADD_FAILURE() << level_name(l) << ": checker says " << verdict_name(r.verdict) << ", reference says "
                      << verdict_name(want) << "\n" << json;
    }
  }
  std::printf("  %d read-modify-write histories; failures by counting %d, by reads that cannot repeat %d\n",
              kHistories, counted, unrepeatable);
  for (size_t li = 0; li < kStrong.size(); ++li)
    std::printf("    %-4s pass %5d  fail %5d\n", level_name(kStrong[li]), pass[li], fail[li]);
  EXPECT_EQ(disagreements, 0);
  EXPECT_GT(counted, scaled_threshold(1500 / 50));
  EXPECT_GT(unrepeatable, scaled_threshold(1500 / 50));
  for (size_t li = 0; li < kStrong.size(); ++li) {
    EXPECT_GT(pass[li], scaled_threshold(1500 / 50)) << level_name(kStrong[li]);
    EXPECT_GT(fail[li], scaled_threshold(1500 / 50)) << level_name(kStrong[li]);
  }
}

// The concurrent schedule search (checkers/choice/concurrent_schedule.h) against the reference: a
// schedule it finds under the snapshot-isolation model gives a choice of reads-from under which
// SI holds (the reference agrees that SI passes), and one under the read-committed model one
// under which RC holds; the choice is one of each read's candidates. When it tries every state
// without finding an SI schedule (no backjump skipped any), SI fails: complete on histories this
// small, half of them without timestamps.
TEST(Ambiguous, ConcurrentScheduleSearchAgreesWithReference) {
  const int kHistories = scaled(4000);
  Rng rng(5151);
  int wrong = 0;
  std::array<int, 2> found{}, exhausted{};
  for (int i = 0; i < kHistories; ++i) {
    const GenParams p = ambiguous_params(rng, 8300000 + i);
    Expected<History> eh = generate_history(p);
    ASSERT_TRUE(eh.ok());
    const History& h = *eh;
    for (const ScheduleModel model : {ScheduleModel::SnapshotIsolation, ScheduleModel::ReadCommitted}) {
      const bool si = model == ScheduleModel::SnapshotIsolation;
      const Level l = si ? Level::SI : Level::RC;
      const ConcurrentSchedule s = find_concurrent_schedule(h, model, {}, 1u << 20);
      if (!s.found && !s.exhausted) continue;  // (a transaction of unknown status, or a read of its own key that misses its write)
      const Verdict want = reference_check(h, l);
      if (want == Verdict::Unknown) continue;
      found[si] += s.found;
      exhausted[si] += s.exhausted;
      std::string error;
      if (s.found) {
        History chosen = h;
        for (uint32_t a = 0; a < h.ambiguous.size() && error.empty(); ++a) {
          const uint32_t op = h.ambiguous.op[a];
          if (h.txns[h.op_txn[op]].status != TxnStatus::Committed) continue;
          const std::span<const uint32_t> c = h.ambiguous.candidates_at(a);
          if (std::find(c.begin(), c.end(), s.choice[a]) == c.end()) error = "a choice that is no candidate";
          chosen.read_from[op] = s.choice[a];
        }
        if (error.empty() && want != Verdict::Pass) error = "a schedule where the reference fails";
        if (error.empty() && s.commits.size() != static_cast<size_t>(std::count_if(h.txns.begin() + 1, h.txns.end(), [](const Txn& t) {
                               return t.status == TxnStatus::Committed;
                             })))
          error = "not every committed transaction committed";
        if (error.empty()) {
          chosen.ambiguous = AmbiguousReads{};
          compute_effective_status(chosen);
          if (leaf_checker(l)(chosen, {}).verdict != Verdict::Pass) error = "its choice fails the level";
        }
      } else if (si && want != Verdict::Fail) {
        error = "no schedule where the reference passes";
      }
      if (!error.empty() && ++wrong <= 5)
        ADD_FAILURE() << level_name(l) << ": " << error << " (seed " << p.seed << ")\n" << write_isoscope_json(h);
    }
  }
  std::printf("  SI schedules found %d, searches exhausted %d; RC schedules found %d, exhausted %d\n", found[1],
              exhausted[1], found[0], exhausted[0]);
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(found[1], scaled_threshold(4000 / 10));
  EXPECT_GT(found[0], scaled_threshold(4000 / 10));
  EXPECT_GT(exhausted[1], scaled_threshold(4000 / 20));
}
