// Jepsen's nemesis records as faults (issue 39): the spans the page draws behind the timeline.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/formats.h"
#include "formats/nemesis_faults.h"
#include "test_util.h"

using namespace isoscope;

namespace {

struct Rec {
  const char* f;
  int64_t t;
};
std::string spans_of(const std::vector<Rec>& recs) {
  NemesisFaults n;
  for (const Rec& r : recs) n.record(r.f, r.t >= 0, Time::integer(r.t));
  std::string out;
  for (const FaultSpan& f : n.finish()) {
    out += out.empty() ? "" : " ";
    out += f.kind + "[" + f.start.text() + "," + f.end.text() + "]";
    if (!f.note.empty()) out += "!";
  }
  return out;
}

}  // namespace

TEST(NemesisFaults, PairsOpeningsWithTheirClosings) {
  // Invocation and completion of each: the fault spans the first opening to the last closing.
  EXPECT_EQ(spans_of({{"start-partition", 1}, {"start-partition", 2}, {"stop-partition", 5}, {"stop-partition", 6}}), "partition[1,6]");
  // Jepsen's db nemesis: a kill, then a start of the server.
  EXPECT_EQ(spans_of({{"kill", 1}, {"kill", 2}, {"start", 7}, {"start", 8}}), "crash[1,8]");
  EXPECT_EQ(spans_of({{"pause", 1}, {"pause", 2}, {"resume", 4}, {"resume", 4}}), "pause[1,4]");
  // The default nemesis's :start / :stop, twice.
  EXPECT_EQ(spans_of({{"start", 1}, {"start", 3}, {"stop", 5}, {"stop", 6}, {"start", 9}, {"stop", 10}}), "nemesis[1,6] nemesis[9,10]");
  // Two kinds at once.
  EXPECT_EQ(spans_of({{"start-partition", 1}, {"start-clock", 2}, {"stop-partition", 5}, {"stop-clock", 7}}), "partition[1,5] clock[2,7]");
  // A one-off function: its invocation and completion.
  EXPECT_EQ(spans_of({{"bump-clock", 3}, {"bump-clock", 4}, {"bump-clock", 20}, {"bump-clock", 21}}), "bump-clock[3,4] bump-clock[20,21]");
  // Never stopped: until the last nemesis time, said so; untimed records place nothing.
  EXPECT_EQ(spans_of({{"start-partition", 1}, {"start-partition", 3}}), "partition[1,3]!");
  EXPECT_EQ(spans_of({{"start-partition", -1}, {"stop-partition", -1}}), "");
}

TEST(NemesisFaults, JepsenAndElleHistoriesCarryThem) {
  Expected<History> knossos = read_path(std::string(ISOSCOPE_FIXTURES) + "/jepsen/knossos-multi-register.edn");
  ASSERT_TRUE(knossos.ok()) << knossos.error().to_string();
  ASSERT_EQ(knossos->faults.size(), 1u);
  EXPECT_EQ(knossos->faults[0].kind, "nemesis");
  EXPECT_EQ(knossos->faults[0].start.text(), "26780143814");
  EXPECT_EQ(knossos->faults[0].end.text(), "57542441018");
  Expected<History> elle = read_path(std::string(ISOSCOPE_FIXTURES) + "/elle/nemesis.edn");
  ASSERT_TRUE(elle.ok()) << elle.error().to_string();
  ASSERT_EQ(elle->faults.size(), 1u);
  EXPECT_EQ(elle->faults[0].kind, "partition");
  EXPECT_EQ(elle->faults[0].start.text(), "2");
  EXPECT_EQ(elle->faults[0].end.text(), "4");
}
