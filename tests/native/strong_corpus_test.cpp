// Every corpus manifest expectation for PC, SI, SER (and SSER where given) holds for the strong
// checkers, including the Cobra and PolySI violations; witnesses are valid (commit orders
// satisfy the level, cycles close). Prints each entry's verdicts, times and anomaly names.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "checkers/strong/strong.h"
#include "formats/formats.h"
#include "strong_witness.h"
#include "test_util.h"

using namespace isoscope;

namespace {

constexpr Level kLevels[] = {Level::PC, Level::SI, Level::SER, Level::SSER};

class StrongCorpus : public testing::TestWithParam<CorpusEntry> {};

TEST_P(StrongCorpus, ManifestExpectationsHold) {
  const CorpusEntry& e = GetParam();
  if (!find_format(e.format)) GTEST_SKIP() << "format " << e.format << " is not registered yet";
  Expected<History> h = read_path(e.path, e.format);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  std::string line = e.rel + ":";
  for (Level l : kLevels) {
    CheckBudget budget;
    budget.deadline_ms = now_ms() + 20000;  // far above the benchmarks; a hang would fail
    const double t0 = now_ms();
    StrongReport r = check_strong(*h, l, budget);
    const double ms = now_ms() - t0;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1fms", ms);
    line += std::string(" ") + level_name(l) + "=" + verdict_name(r.result.verdict) + "(" + buf +
            (r.result.anomalies.empty() ? "" : "," + r.result.anomalies[0].kind) + ")";
    EXPECT_NE(r.result.verdict, Verdict::Unknown) << level_name(l) << ": " << r.result.reason;
    EXPECT_EQ(verify_strong_report(*h, l, r, false), "") << level_name(l);
    auto it = e.expect.find(level_name(l));
    if (it == e.expect.end()) continue;
    EXPECT_EQ(verdict_name(r.result.verdict), it->second)
        << e.rel << " " << level_name(l)
        << (r.result.anomalies.empty()
                ? std::string()
                : ": " + r.result.anomalies[0].kind + ": " + r.result.anomalies[0].explanation);
  }
  std::printf("  %s\n", line.c_str());
}

std::vector<CorpusEntry> strong_entries() {
  std::vector<CorpusEntry> out;
  for (CorpusEntry& e : corpus_entries()) {
    bool any = false;
    for (Level l : kLevels) any |= e.expect.count(level_name(l)) > 0;
    if (any) out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Corpus, StrongCorpus, testing::ValuesIn(strong_entries()), CorpusEntryName());

TEST(StrongCorpusManifest, HasEntries) { EXPECT_GE(strong_entries().size(), 40u); }

TEST(StrongCorpusNames, TextbookAnomaliesAreNamed) {
  // The textbook boundary cases get their textbook names.
  struct Case {
    const char* file;
    Level level;
    const char* kind;
  };
  const Case cases[] = {
      {"textbook/lost-update.json", Level::SI, "LostUpdate"},
      {"textbook/write-skew.json", Level::SER, "WriteSkew"},
      {"textbook/long-fork.json", Level::PC, "LongFork"},
      {"textbook/dbcop-lost-update.json", Level::SI, "LostUpdate"},
      {"textbook/dbcop-write-skew.json", Level::SER, "WriteSkew"},
      {"textbook/dbcop-long-fork.json", Level::PC, "LongFork"},
  };
  for (const Case& c : cases) {
    Expected<History> h = read_path(std::string(ISOSCOPE_CORPUS) + "/" + c.file, "isoscope");
    ASSERT_TRUE(h.ok()) << c.file;
    StrongReport r = check_strong(*h, c.level, CheckBudget{});
    ASSERT_EQ(r.result.verdict, Verdict::Fail) << c.file;
    ASSERT_FALSE(r.result.anomalies.empty());
    EXPECT_EQ(r.result.anomalies[0].kind, c.kind)
        << c.file << ": " << r.result.anomalies[0].explanation;
  }
}
