// generate and run read their shared workload options with one parser (cli/workload_options.h):
// the same value gets the same answer from both, and run's own limits (a connection per session,
// a row per key) are said as run's.
#include <gtest/gtest.h>

#include <string>

#include "test_util.h"

namespace isoscope {
namespace {

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }
size_t occurrences(const std::string& s, const std::string& part) {
  size_t n = 0;
  for (size_t p = s.find(part); p != std::string::npos; p = s.find(part, p + part.size())) ++n;
  return n;
}

TEST(WorkloadOptions, GenerateAndRunRefuseABadValueInTheSameWords) {
  for (const char* bad : {"--sessions 0", "--sessions 2.5", "--txns -1", "--ops 0", "--ops 2.5", "--ops 5-3",
                          "--ops 3-", "--keys 0", "--keys 1e10", "--dist pareto", "--read-ratio 1.5", "--read-ratio nan",
                          "--mix 0.5,0.5,0.5", "--mix 0.2,0.2,0.2junk", "--seed -1", "--seed 1.5", "--seed 18446744073709551616",
                          "--sessions"}) {
    const CommandResult g = run_cli(std::string("generate --engine si ") + bad + " -");
    const CommandResult r = run_cli(std::string("run sqlite::memory: ") + bad);
    EXPECT_EQ(g.status, 2) << bad;
    EXPECT_EQ(r.status, 2) << bad;
    // "isoscope: MESSAGE" and "isoscope run: MESSAGE": the same message.
    const std::string gm = first_line(g.err), rm = first_line(r.err);
    ASSERT_TRUE(contains(gm, "isoscope: ")) << gm;
    ASSERT_TRUE(contains(rm, "isoscope run: ")) << rm;
    EXPECT_EQ(gm.substr(gm.find(": ") + 2), rm.substr(rm.find(": ") + 2)) << bad;
  }
}

TEST(WorkloadOptions, AcceptedValuesReachTheGenerator) {
  // The largest seed, and an ops range: read, and the history has what they ask for.
  const CommandResult g = run_cli("generate --seed 18446744073709551615 --sessions 3 --txns 5 --ops 2-2 --keys 4 -");
  ASSERT_EQ(g.status, 0) << g.err;
  EXPECT_EQ(occurrences(g.out, "\"ops\""), 15u) << g.out;
  // Each transaction has two operations: as many "[" after "ops" as that, counted per line.
  size_t pos = 0, txns = 0;
  while ((pos = g.out.find("\"ops\": [", pos)) != std::string::npos) {
    const size_t end = g.out.find("]]", pos);
    std::string ops = g.out.substr(pos + 8, end - pos - 8);
    EXPECT_EQ(occurrences(ops, "["), 2u) << ops;
    pos = end;
    ++txns;
  }
  EXPECT_EQ(txns, 15u);
}

TEST(WorkloadOptions, RunSaysItsOwnLimits) {
  CommandResult r = run_cli("run sqlite::memory: --sessions 1001");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--sessions: a run opens a connection per session, at most 1000")) << r.err;
  r = run_cli("run sqlite::memory: --keys 10000001");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--keys: a run inserts a row per key before it starts, at most 10000000")) << r.err;
  // generate has no such limits.
  r = run_cli("generate --sessions 1001 --txns 0 -");
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(WorkloadOptions, GenerateRefusesAMixItWouldIgnore) {
  const CommandResult r = run_cli("generate --mix cobra -");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--mix chooses the transaction shapes of --engine histories")) << r.err;
}

}  // namespace
}  // namespace isoscope
