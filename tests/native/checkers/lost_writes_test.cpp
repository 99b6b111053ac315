// Lost writes (issue 39): a committed write that a crash lost, named as such in SSER's and
// LIN's report, from the faults a history records (docs/formats.md, "Faults").
#include <gtest/gtest.h>

#include <string>

#include "checkers/check.h"
#include "checkers/lost_writes.h"
#include "formats/formats.h"
#include "formats/writers.h"
#include "model/anomaly_kinds.h"
#include "test_util.h"

using namespace isoscope;

namespace {

Expected<History> read_faulty(const std::string& text) {
  InputFile f{"h.json", text};
  return read_history(std::span<const InputFile>(&f, 1), "isoscope");
}

// T1 writes x = 1 in [0, 10]; T2 writes x = 2 in [20, 30]; T3 reads x = 1 in [60, 70]; faults
// as given.
std::string stale_history(const std::string& faults) {
  return "{\"initial\": 0, " + faults +
         "\"sessions\": [[{\"ops\": [[\"w\", \"x\", 1]], \"start\": 0, \"end\": 10}],"
         " [{\"ops\": [[\"w\", \"x\", 2]], \"start\": 20, \"end\": 30}],"
         " [{\"ops\": [[\"r\", \"x\", 1]], \"start\": 60, \"end\": 70}]]}";
}

const LevelResult& sser_of(const History& h, CheckReport& report) {
  CheckOptions opts;
  opts.levels = {Level::SER, Level::SSER};
  report = check_history(h, opts);
  return report.results[static_cast<size_t>(Level::SSER)];
}

}  // namespace

TEST(LostWrites, ACrashBetweenTheAcknowledgementAndTheReadNamesTheWrite) {
  Expected<History> h = read_faulty(stale_history("\"faults\": [{\"kind\": \"crash\", \"node\": \"n1\", \"start\": 40, \"end\": 50}], "));
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  ASSERT_EQ(h->faults.size(), 1u);
  CheckReport report;
  const LevelResult& sser = sser_of(*h, report);
  EXPECT_EQ(report.results[static_cast<size_t>(Level::SER)].verdict, Verdict::Pass);
  ASSERT_EQ(sser.verdict, Verdict::Fail);
  ASSERT_FALSE(sser.anomalies.empty());
  const Anomaly& a = sser.anomalies[0];
  EXPECT_EQ(a.kind, AnomalyKind::LostWrite);
  EXPECT_EQ(a.txns[0], 2u);  // the lost write, then the read that missed it
  EXPECT_EQ(a.txns[1], 3u);
  EXPECT_NE(a.explanation.find("w(x, 2)"), std::string::npos) << a.explanation;
  EXPECT_NE(a.explanation.find("crash of n1 at 40"), std::string::npos) << a.explanation;
  EXPECT_NE(a.explanation.find("r(x, 1)"), std::string::npos) << a.explanation;
  ASSERT_FALSE(sser.kinds.empty());
  EXPECT_EQ(sser.kinds[0].kind, AnomalyKind::LostWrite);
  EXPECT_EQ(sser.kinds[0].count, 1u);
}

TEST(LostWrites, NoCrashBetweenIsAStaleReadNotALostWrite) {
  for (const std::string faults : {std::string(""), std::string("\"faults\": [{\"kind\": \"pause\", \"start\": 40, \"end\": 50}], "),
                                   // before the write was acknowledged: the write may have failed with it
                                   std::string("\"faults\": [{\"kind\": \"crash\", \"start\": 25, \"end\": 50}], "),
                                   // after the read began
                                   std::string("\"faults\": [{\"kind\": \"crash\", \"start\": 65, \"end\": 80}], ")}) {
    Expected<History> h = read_faulty(stale_history(faults));
    ASSERT_TRUE(h.ok()) << h.error().to_string();
    CheckReport report;
    const LevelResult& sser = sser_of(*h, report);
    ASSERT_EQ(sser.verdict, Verdict::Fail) << faults;
    for (const Anomaly& a : sser.anomalies) EXPECT_NE(a.kind, AnomalyKind::LostWrite) << faults;
  }
}

TEST(LostWrites, ConcurrentWritersAreNotLost) {
  // T1 [0, 25] and T2 [20, 30] overlap: an order may put T2 first, so reading T1's x = 1 after
  // the crash loses nothing for sure (SSER passes: T2, T1, T3).
  const std::string text =
      "{\"initial\": 0, \"faults\": [{\"kind\": \"crash\", \"start\": 40, \"end\": 50}], \"sessions\": ["
      "[{\"ops\": [[\"w\", \"x\", 1]], \"start\": 0, \"end\": 25}], [{\"ops\": [[\"w\", \"x\", 2]], \"start\": 20, \"end\": 30}],"
      " [{\"ops\": [[\"r\", \"x\", 1]], \"start\": 60, \"end\": 70}]]}";
  Expected<History> h = read_faulty(text);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  size_t total = 0;
  EXPECT_TRUE(lost_writes(*h, 10, total).empty());
  EXPECT_EQ(total, 0u);
  CheckReport report;
  EXPECT_EQ(sser_of(*h, report).verdict, Verdict::Pass);
}

TEST(LostWrites, AListWithoutAnAcknowledgedElement) {
  const std::string text =
      "{\"initial\": null, \"faults\": [{\"kind\": \"crash\", \"node\": \"redis\", \"start\": 40, \"end\": 50}], \"sessions\": ["
      "[{\"ops\": [[\"append\", \"x\", 1]], \"start\": 0, \"end\": 10}, {\"ops\": [[\"append\", \"x\", 2]], \"start\": 20, \"end\": 30}],"
      " [{\"ops\": [[\"r\", \"x\", [1]]], \"start\": 60, \"end\": 70}]]}";
  Expected<History> h = read_faulty(text);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  CheckReport report;
  const LevelResult& sser = sser_of(*h, report);
  ASSERT_EQ(sser.verdict, Verdict::Fail);
  ASSERT_FALSE(sser.anomalies.empty());
  EXPECT_EQ(sser.anomalies[0].kind, AnomalyKind::LostWrite);
  EXPECT_NE(sser.anomalies[0].explanation.find("without the element 2"), std::string::npos) << sser.anomalies[0].explanation;
}

TEST(LostWrites, FaultsSurviveConversionAndBadFaultsAreNamed) {
  Expected<History> h = read_faulty(stale_history("\"faults\": [{\"kind\": \"crash\", \"node\": \"n1\", \"start\": 40, \"end\": 50, \"note\": \"slow\"}], "));
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  Expected<History> back = read_faulty(write_isoscope_json(*h));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  ASSERT_EQ(back->faults.size(), 1u);
  EXPECT_EQ(back->faults[0].kind, "crash");
  EXPECT_EQ(back->faults[0].node, "n1");
  EXPECT_EQ(back->faults[0].note, "slow");
  EXPECT_EQ(back->faults[0].start.text(), "40");
  EXPECT_EQ(back->faults[0].end.text(), "50");
  const auto error_of = [](const std::string& faults) {
    Expected<History> e = read_faulty(stale_history(faults));
    return e.ok() ? std::string() : e.error().to_string();
  };
  EXPECT_NE(error_of("\"faults\": [{\"kind\": \"crash\", \"start\": 50, \"end\": 40}], ").find("no earlier than its \"start\""), std::string::npos);
  EXPECT_NE(error_of("\"faults\": [{\"start\": 50, \"end\": 60}], ").find("\"kind\""), std::string::npos);
  EXPECT_NE(error_of("\"faults\": [{\"kind\": \"crash\", \"start\": 50}], ").find("\"end\""), std::string::npos);
  EXPECT_NE(error_of("\"faults\": {\"kind\": \"crash\"}, ").find("faults"), std::string::npos);
}

TEST(LostWrites, AWriteOfUnknownOutcomeWasNeverAcknowledged) {
  // T2's commit got no answer (unknown) though T4 read its write before the crash: its end is
  // when the client gave up, not an acknowledgement, so T3's older read is no lost write.
  const std::string text =
      "{\"initial\": 0, \"faults\": [{\"kind\": \"crash\", \"start\": 40, \"end\": 50}], \"sessions\": ["
      "[{\"ops\": [[\"w\", \"x\", 1]], \"start\": 0, \"end\": 10}],"
      " [{\"ops\": [[\"w\", \"x\", 2]], \"start\": 20, \"end\": 30, \"status\": \"unknown\"}],"
      " [{\"ops\": [[\"r\", \"x\", 1]], \"start\": 60, \"end\": 70}], [{\"ops\": [[\"r\", \"x\", 2]], \"start\": 32, \"end\": 35}]]}";
  Expected<History> h = read_faulty(text);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  size_t total = 0;
  EXPECT_TRUE(lost_writes(*h, 10, total).empty());
  EXPECT_EQ(total, 0u);
}
