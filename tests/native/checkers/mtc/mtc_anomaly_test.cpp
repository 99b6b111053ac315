// The 14 anomalies of MTC Table I / Fig. 5 written as mini-transaction histories: each is found
// by the MT checkers under its Table I name, with the reference's verdicts; the corpus's MT
// histories get their manifest verdicts; LIN through check_history; MT detection.
#include <gtest/gtest.h>

#include <string>

#include "checkers/check.h"
#include "checkers/mtc/mtc.h"
#include "formats/formats.h"
#include "reference.h"
#include "test_util.h"

using namespace isoscope;

namespace {

std::string doc(const std::string& sessions) {
  return R"({"format": "isoscope/1", "initial": 0, "sessions": )" + sessions + "}";
}

struct Case {
  const char* name;       // Table I name, and the kind the MT checkers report
  const char* sessions;   // isoscope sessions JSON
  bool si_fails;          // SER always fails; SI too unless a write skew
};

// Fig. 5 (a)-(n) as MTs (initial value 0).
const Case kCases[] = {
    {"ThinAirRead", R"([[{"ops": [["r","x",5]]}]])", true},
    {"AbortedRead",
     R"([[{"ops": [["r","x",0],["w","x",1]], "status": "aborted"}], [{"ops": [["r","x",1]]}]])", true},
    {"FutureRead", R"([[{"ops": [["r","x",1],["w","x",1]]}]])", true},
    {"NotMyLastWrite", R"([[{"ops": [["r","x",0],["w","x",1],["w","x",2],["r","x",1]]}]])", true},
    {"NotMyOwnWrite",
     R"([[{"ops": [["r","x",0],["w","x",1]]}], [{"ops": [["r","x",0],["w","x",2],["r","x",1]]}]])", true},
    {"IntermediateRead",
     R"([[{"ops": [["r","x",0],["w","x",1],["w","x",2]]}], [{"ops": [["r","x",1]]}]])", true},
    {"NonRepeatableRead",
     R"([[{"ops": [["r","x",0],["w","x",1]]}], [{"ops": [["r","x",0],["r","x",1]]}]])", true},
    {"SessionGuaranteeViolation", R"([[{"ops": [["r","x",0],["w","x",1]]}, {"ops": [["r","x",0]]}]])", true},
    {"NonMonotonicRead",
     R"([[{"ops": [["r","x",0],["w","x",1]]}], [{"ops": [["r","x",1],["w","x",2],["r","y",0],["w","y",2]]}],
         [{"ops": [["r","y",2],["r","x",1]]}]])", true},
    {"FracturedRead",
     R"([[{"ops": [["r","x",0],["w","x",1],["r","y",0],["w","y",1]]}], [{"ops": [["r","y",0],["r","x",1]]}]])", true},
    {"CausalityViolation",
     R"([[{"ops": [["r","x",0],["w","x",1]]}], [{"ops": [["r","x",1],["r","y",0],["w","y",1]]}],
         [{"ops": [["r","y",1],["r","x",0]]}]])", true},
    {"LongFork",
     R"([[{"ops": [["r","x",0],["w","x",1]]}], [{"ops": [["r","y",0],["w","y",1]]}],
         [{"ops": [["r","x",1],["r","y",0]]}], [{"ops": [["r","x",0],["r","y",1]]}]])", true},
    {"LostUpdate", R"([[{"ops": [["r","x",0],["w","x",1]]}], [{"ops": [["r","x",0],["w","x",2]]}]])", true},
    {"WriteSkew",
     R"([[{"ops": [["r","x",0],["r","y",0],["w","x",1]]}], [{"ops": [["r","x",0],["r","y",0],["w","y",1]]}]])", false},
};

}  // namespace

TEST(MtcAnomalies, EveryTableIAnomalyIsFoundByName) {
  CheckBudget budget;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    History h = parse_json(doc(c.sessions));
    ASSERT_TRUE(is_mini_transaction_history(h));
    EXPECT_EQ(reference_check(h, Level::SER), Verdict::Fail);
    EXPECT_EQ(reference_check(h, Level::SI), c.si_fails ? Verdict::Fail : Verdict::Pass);
    const LevelResult ser = check_ser_mt(h, budget);
    ASSERT_EQ(ser.verdict, Verdict::Fail);
    ASSERT_FALSE(ser.anomalies.empty());
    EXPECT_EQ(name_of(ser.anomalies[0].kind), c.name) << ser.anomalies[0].explanation;
    EXPECT_FALSE(ser.anomalies[0].explanation.empty());
    const LevelResult si = check_si_mt(h, budget);
    EXPECT_EQ(si.verdict, c.si_fails ? Verdict::Fail : Verdict::Pass);
    if (c.si_fails) {
      ASSERT_FALSE(si.anomalies.empty());
      EXPECT_EQ(name_of(si.anomalies[0].kind), c.name) << si.anomalies[0].explanation;
    }
  }
}

TEST(MtcAnomalies, RealTimeViolationFailsOnlySser) {
  History h = parse_json(doc(R"([[{"ops": [["r","x",0],["w","x",1]], "start": 0, "end": 1}],
                            [{"ops": [["r","x",0]], "start": 2, "end": 3}]])"));
  ASSERT_TRUE(is_mini_transaction_history(h));
  EXPECT_EQ(check_ser_mt(h, {}).verdict, Verdict::Pass);
  EXPECT_EQ(check_si_mt(h, {}).verdict, Verdict::Pass);
  const LevelResult r = check_sser_mt(h, {});
  ASSERT_EQ(r.verdict, Verdict::Fail);
  // The real-time violation of two transactions: the second read misses a finished write.
  EXPECT_EQ(name_of(r.anomalies[0].kind), "StaleRead");
  ASSERT_EQ(r.anomalies[0].edges.size(), 2u);
  EXPECT_EQ(reference_check(h, Level::SSER), Verdict::Fail);
  // Without timestamps SSER does not apply.
  History u = parse_json(doc(R"([[{"ops": [["r","x",0],["w","x",1]]}]])"));
  EXPECT_EQ(check_sser_mt(u, {}).verdict, Verdict::NotApplicable);
}

TEST(MtcAnomalies, DetectsMiniTransactionHistories) {
  EXPECT_TRUE(is_mini_transaction_history(parse_json(doc(R"([[{"ops": [["r","x",0]]}]])"))));
  EXPECT_FALSE(is_mini_transaction_history(parse_json(doc(R"([[{"ops": [["w","x",1]]}]])"))));  // blind write
  EXPECT_FALSE(is_mini_transaction_history(parse_json(doc(R"([[{"ops": [["r","x",0],["w","y",1]]}]])"))));
  EXPECT_FALSE(is_mini_transaction_history(
      parse_json(doc(R"([[{"ops": [["r","x",0],["r","y",0],["r","z",0]]}]])"))));  // three reads
  EXPECT_FALSE(is_mini_transaction_history(parse_json(
      doc(R"([[{"ops": [["r","x",0],["w","x",1],["w","x",2],["w","x",3]]}]])"))));  // three writes
  EXPECT_TRUE(is_mini_transaction_history(parse_json(
      doc(R"([[{"ops": [["r","x",0],["w","x",1],["r","y",0],["w","y",2]]}]])"))));
  // Not MT: the MT checkers refuse rather than guess.
  History blind = parse_json(doc(R"([[{"ops": [["w","x",1]]}]])"));
  EXPECT_EQ(check_ser_mt(blind, {}).verdict, Verdict::Unknown);
}

TEST(MtcAnomalies, CorpusMiniTransactionHistoriesGetManifestVerdicts) {
  SKIP_WITHOUT_CORPUS();
  int checked = 0;
  for (const CorpusEntry& e : corpus_entries()) {
    Expected<History> eh = read_path(e.path, e.format);
    if (!eh.ok() || !is_mini_transaction_history(*eh)) continue;
    const History& h = *eh;
    for (auto [level, fn] : {std::pair{Level::SI, &check_si_mt}, std::pair{Level::SER, &check_ser_mt},
                             std::pair{Level::SSER, &check_sser_mt}}) {
      auto it = e.expect.find(level_name(level));
      if (it == e.expect.end()) continue;
      const LevelResult r = fn(h, {});
      EXPECT_EQ(verdict_name(r.verdict), it->second) << e.rel << " " << level_name(level);
      ++checked;
    }
  }
  std::printf("  corpus MT histories: %d verdicts checked\n", checked);
  EXPECT_GT(checked, 0);
}

TEST(MtcAnomalies, LinThroughCheckHistory) {
  // MTC Fig. 4: (a) linearizable, (b) O1 = R&W(x,0,1) starts after O2 = R&W(x,1,2) finishes.
  History ok = parse_json(doc(R"([[{"ops": [["r","x",0],["w","x",1]], "start": 0, "end": 4}],
                             [{"ops": [["r","x",1],["w","x",2]], "start": 1, "end": 5}],
                             [{"ops": [["r","x",2],["w","x",3]], "start": 2, "end": 6}]])"));
  History bad = parse_json(doc(R"([[{"ops": [["r","x",0],["w","x",1]], "start": 3, "end": 4}],
                              [{"ops": [["r","x",1],["w","x",2]], "start": 0, "end": 2}]])"));
  CheckOptions opts;
  opts.levels = {Level::LIN};
  EXPECT_EQ(check_history(ok, opts).results[static_cast<int>(Level::LIN)].verdict, Verdict::Pass);
  const CheckReport rep = check_history(bad, opts);
  const LevelResult& rb = rep.results[static_cast<int>(Level::LIN)];
  ASSERT_EQ(rb.verdict, Verdict::Fail);
  EXPECT_EQ(name_of(rb.anomalies[0].kind), "RealTimeViolation");
  // Inserts: two successful inserts of one key diverge.
  History ins = parse_json(doc(R"([[{"ops": [["w","x",1]], "start": 0, "end": 1}],
                              [{"ops": [["w","x",2]], "start": 2, "end": 3}]])"));
  const LevelResult ri = check_lin(ins, {});
  ASSERT_EQ(ri.verdict, Verdict::Fail);
  EXPECT_EQ(name_of(ri.anomalies[0].kind), "LostUpdate");
  // An insert then compare-and-sets: linearizable.
  History chain = parse_json(doc(R"([[{"ops": [["w","x",1]], "start": 0, "end": 1},
                                  {"ops": [["r","x",1],["w","x",2]], "start": 2, "end": 3}],
                                 [{"ops": [["r","x",1]], "start": 0, "end": 5}]])"));
  EXPECT_EQ(check_lin(chain, {}).verdict, Verdict::Pass);
  // Not lightweight (two keys in one transaction): n/a.
  History two = parse_json(doc(R"([[{"ops": [["r","x",0],["w","y",1]], "start": 0, "end": 1}]])"));
  std::string reason;
  EXPECT_FALSE(level_applies(two, Level::LIN, reason));
  EXPECT_EQ(check_lin(two, {}).verdict, Verdict::NotApplicable);
}
