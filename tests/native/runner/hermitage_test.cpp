// Hermitage's cases (native/runner/hermitage_cases.cpp) against their definitions, with no
// database: each script replayed with the reads its anomaly gives fails the case's level and
// passes every weaker one (the level is the weakest the anomaly breaks), and replayed as a
// database that prevents the anomaly passes it. The values are written here by hand, from the
// anomalies' definitions; the live runs are tests/db/hermitage.test.mjs.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "checkers/check.h"
#include "formats/formats.h"
#include "runner/hermitage.h"

using namespace isoscope;
using namespace isoscope::runner;

namespace {

// An outcome of a script: what its reads return, in script order, and the step (index) a
// database refused (its transaction aborts there; the rest of it is skipped, and a refused or
// skipped read returns nothing), or -1. Table cases: the rows each select and each predicate
// write's read returned, in script order; which updates by id found their row.
using HermitageRows = std::vector<std::pair<int64_t, int64_t>>;
struct Outcome {
  std::vector<int64_t> reads;
  int refused_step = -1;
  std::vector<HermitageRows> selects = {};
};

std::string replay(const HermitageCase& c, const Outcome& o) {
  std::vector<HermitageStep> steps;
  std::string error;
  EXPECT_TRUE(parse_hermitage_script(c.script, steps, error)) << error;
  std::vector<std::vector<HermitageTxn>> sessions;
  std::map<int, bool> open;
  size_t next_read = 0, next_select = 0;
  auto rows = [&]() {
    EXPECT_LT(next_select, o.selects.size()) << c.script;
    return next_select < o.selects.size() ? o.selects[next_select++] : HermitageRows{};
  };
  int64_t clock = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const HermitageStep& s = steps[i];
    if (sessions.size() <= s.session) sessions.resize(s.session + 1);
    auto& txns = sessions[s.session];
    ++clock;
    if (s.kind == HermitageStep::Begin) {
      txns.push_back({});
      txns.back().start_ns = clock;
      open[s.session] = true;
      continue;
    }
    if (!open[s.session]) continue;  // refused earlier: skipped, no value
    HermitageTxn& t = txns.back();
    if (static_cast<int>(i) == o.refused_step) {
      t.status = TxnStatus::Aborted;
      t.end_ns = clock;
      open[s.session] = false;
      continue;
    }
    switch (s.kind) {
      case HermitageStep::Read:
      case HermitageStep::ReadForUpdate:
        EXPECT_LT(next_read, o.reads.size()) << c.script;
        t.ops.push_back({HermitageOp::Read, s.key, next_read < o.reads.size() ? o.reads[next_read] : 0, {}, {}});
        ++next_read;
        break;
      case HermitageStep::Write:
      case HermitageStep::Insert:
      case HermitageStep::Update: t.ops.push_back({HermitageOp::Write, s.key, s.value, {}, {}}); break;
      case HermitageStep::Select: t.ops.push_back({HermitageOp::Select, 0, std::nullopt, s.predicate, rows()}); break;
      case HermitageStep::UpdateWhere:
      case HermitageStep::DeleteWhere: record_predicate_write(s, rows(), t.ops); break;
      case HermitageStep::Commit:
      case HermitageStep::Abort:
        t.status = s.kind == HermitageStep::Commit ? TxnStatus::Committed : TxnStatus::Aborted;
        t.end_ns = clock;
        open[s.session] = false;
        break;
      case HermitageStep::Begin: break;
    }
  }
  EXPECT_EQ(next_read, o.reads.size()) << c.script;
  EXPECT_EQ(next_select, o.selects.size()) << c.script;
  return hermitage_history_json(c, sessions);
}

// The verdict of each transactional level on a history.
std::map<Level, Verdict> verdicts(const std::string& json) {
  InputFile f{"case.json", json};
  Expected<History> h = read_history(std::span<const InputFile>(&f, 1), "isoscope");
  EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().to_string()) << json;
  std::map<Level, Verdict> out;
  if (!h) return out;
  CheckOptions opts;
  opts.levels = {Level::RC, Level::RR, Level::RA, Level::CC, Level::PC, Level::SI, Level::SER};
  const CheckReport r = check_history(*h, opts);
  for (Level l : opts.levels) out[l] = r.results[static_cast<int>(l)].verdict;
  return out;
}

struct Expectation {
  const char* name;  // anomaly (variant)
  Outcome anomalous, prevented;
};

// By the scripts' read steps, in order.
const Expectation kExpected[] = {
    // T3 reads x from T2, y from T1, x from T2: the writes ordered both ways.
    {"G0", {{2, 1, 2}}, {{2, 2, 2}}},
    // T2 reads T1's x, which T1 then aborts; prevented: the initial value twice.
    {"G1a", {{1, 0}}, {{0, 0}}},
    // T2 reads T1's first x, which T1 overwrote before committing.
    {"G1b", {{1, 2}}, {{0, 2}}},
    // T1 reads T2's y and T2 reads T1's x.
    {"G1c", {{1, 1}}, {{0, 0}}},
    // T3 reads T2's x, then T1's y (T2 overwrites it), then T2's; prevented: T1's until T2 commits.
    {"OTV", {{2, 1, 2, 2, 2, 2}}, {{1, 1, 1, 1, 2, 2}}},
    // On Hermitage's table, (1, 10) and (2, 20): each select's rows.
    // T1's second select returns T2's row 3; prevented: nothing again.
    {"PMP (read-only)", {{}, -1, {{}, {{3, 30}}}}, {{}, -1, {{}, {}}}},
    // T1 adds 10 to both rows; T2 sees (2, 20), its delete matches nothing once T1 commits (its
    // rows were 10 and 20, now 20 and 30), and it then sees T1's (1, 20); prevented: T2's
    // delete refused (step 4).
    {"PMP (with writes)", {{}, -1, {{{1, 10}, {2, 20}}, {{2, 20}}, {}, {{1, 20}}}},
     {{}, 4, {{{1, 10}, {2, 20}}, {{2, 20}}}}},
    // Both read 0 and both commit their writes; prevented: T2's write refused (step 5).
    {"P4", {{0, 0}}, {{0, 0}, 5}},
    // T1 reads x before T2 and y after it; prevented: y from its snapshot.
    {"G-single (read-only)", {{0, 0, 0, 1}}, {{0, 0, 0, 0}}},
    // The same, y read to update it; prevented: that read refused (step 8).
    {"G-single (with writes)", {{0, 0, 0, 1}}, {{0, 0, 0}, 8}},
    // Both read x = y = 0 and both commit; prevented: T2's commit refused (step 9).
    {"G2-item", {{0, 0, 0, 0}}, {{0, 0, 0, 0}, 9}},
    // On Hermitage's table, (1, 10) and (2, 20): each select's rows.
    // Neither select finds a multiple of 3, both insert one and commit; prevented: T2's commit
    // refused (step 7).
    {"G2", {{}, -1, {{}, {}}}, {{}, 7, {{}, {}}}},
    // T1 sees (2, 20), T3 sees T2's (2, 25), T1 then overwrites row 1, which T3 read; prevented:
    // T1's update refused (step 8).
    {"G2 (two anti-dependencies)", {{}, -1, {{{1, 10}, {2, 20}}, {{1, 10}, {2, 25}}}},
     {{}, 8, {{{1, 10}, {2, 20}}, {{1, 10}, {2, 25}}}}},
};

}  // namespace

TEST(Hermitage, EveryCaseHasItsOutcomesWrittenHere) {
  ASSERT_EQ(hermitage_cases().size(), std::size(kExpected));
  for (size_t i = 0; i < hermitage_cases().size(); ++i) EXPECT_EQ(hermitage_case_name(hermitage_cases()[i]), kExpected[i].name);
}

TEST(Hermitage, TheAnomalyFailsTheCasesLevelFirst) {
  for (size_t i = 0; i < hermitage_cases().size(); ++i) {
    const HermitageCase& c = hermitage_cases()[i];
    const std::map<Level, Verdict> v = verdicts(replay(c, kExpected[i].anomalous));
    for (const auto& [level, verdict] : v) {
      // The transactional chain: a level weaker than the case's passes, the case's and every
      // stronger one fails.
      const bool weaker = static_cast<int>(level) < static_cast<int>(c.level);
      EXPECT_EQ(verdict, weaker ? Verdict::Pass : Verdict::Fail) << hermitage_case_name(c) << " at " << level_name(level);
    }
  }
}

TEST(Hermitage, ThePreventedOutcomePassesTheCasesLevel) {
  for (size_t i = 0; i < hermitage_cases().size(); ++i) {
    const HermitageCase& c = hermitage_cases()[i];
    const std::map<Level, Verdict> v = verdicts(replay(c, kExpected[i].prevented));
    ASSERT_TRUE(v.count(c.level)) << hermitage_case_name(c);
    EXPECT_EQ(v.at(c.level), Verdict::Pass) << hermitage_case_name(c);
  }
}

TEST(Hermitage, ScriptsAreReadStrictly) {
  std::vector<HermitageStep> steps;
  std::string error;
  EXPECT_TRUE(parse_hermitage_script("T1 begin; T1 write y 3; T1 read-for-update x; T1 commit", steps, error)) << error;
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[1].kind, HermitageStep::Write);
  EXPECT_EQ(steps[1].key, 1);
  EXPECT_EQ(steps[1].value, 3);
  for (const char* bad : {"T0 begin", "T1 read z", "T1 write x", "T1 write x 0", "T1 write x 1 2", "T1 jump", "X1 begin"}) {
    EXPECT_FALSE(parse_hermitage_script(bad, steps, error)) << bad;
    EXPECT_NE(error.find("step 1"), std::string::npos) << error;
  }
}
