// Every corpus manifest expectation for PC, SI, SER (and SSER where given) holds for the strong
// checkers, including the Cobra and PolySI violations; witnesses are valid (commit orders
// satisfy the level, cycles close). Prints each entry's verdicts, times and anomaly names.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <string>

#include "model/anomaly_kinds.h"
#include "checkers/check.h"
#include "checkers/strong/strong.h"
#include "formats/formats.h"
#include "strong_witness.h"
#include "test_util.h"

using namespace isoscope;

namespace {

constexpr Level kStrongLevels[] = {Level::PC, Level::SI, Level::SER, Level::SSER};

class StrongCorpus : public testing::TestWithParam<CorpusEntry> {};

TEST_P(StrongCorpus, ManifestExpectationsHold) {
  SKIP_WITHOUT_CORPUS();
  const CorpusEntry& e = GetParam();
  if (!find_format(e.format)) GTEST_SKIP() << "format " << e.format << " is not registered yet";
  Expected<History> h = read_path(e.path, e.format);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  std::string line = e.rel + ":";
  for (Level l : kStrongLevels) {
    CheckBudget budget;
    budget.deadline_ms = now_ms() + 20000;  // far above the benchmarks; a hang would fail
    const double t0 = now_ms();
    StrongReport r = check_strong(*h, l, budget);
    const double ms = now_ms() - t0;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1fms", ms);
    line += std::string(" ") + level_name(l) + "=" + verdict_name(r.result.verdict) + "(" + buf +
            (r.result.anomalies.empty() ? "" : "," + name_of(r.result.anomalies[0].kind)) + ")";
    EXPECT_NE(r.result.verdict, Verdict::Unknown) << level_name(l) << ": " << r.result.reason;
    EXPECT_EQ(verify_strong_report(*h, l, r, false), "") << level_name(l);
    auto it = e.expect.find(level_name(l));
    if (it == e.expect.end()) continue;
    EXPECT_EQ(verdict_name(r.result.verdict), it->second)
        << e.rel << " " << level_name(l)
        << (r.result.anomalies.empty()
                ? std::string()
                : ": " + name_of(r.result.anomalies[0].kind) + ": " + r.result.anomalies[0].explanation);
  }
  std::printf("  %s\n", line.c_str());
}

std::vector<CorpusEntry> strong_entries() {
  std::vector<CorpusEntry> out;
  for (CorpusEntry& e : corpus_entries()) {
    bool any = false;
    for (Level l : kStrongLevels) any |= e.expect.count(level_name(l)) > 0;
    if (any) out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

// Without the corpus there are no entries: the suite is then empty, not an error.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(StrongCorpus);
INSTANTIATE_TEST_SUITE_P(Corpus, StrongCorpus, testing::ValuesIn(strong_entries()), CorpusEntryName());

TEST(StrongCorpusManifest, HasEntries) {
  SKIP_WITHOUT_CORPUS();
  EXPECT_GE(strong_entries().size(), 40u);
}

TEST(StrongCorpusNames, TextbookAnomaliesAreNamed) {
  SKIP_WITHOUT_CORPUS();
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
    Expected<History> h = read_path(corpus_dir() + "/" + c.file, "isoscope");
    ASSERT_TRUE(h.ok()) << c.file;
    StrongReport r = check_strong(*h, c.level, CheckBudget{});
    ASSERT_EQ(r.result.verdict, Verdict::Fail) << c.file;
    ASSERT_FALSE(r.result.anomalies.empty());
    EXPECT_EQ(name_of(r.result.anomalies[0].kind), std::string(c.kind))
        << c.file << ": " << r.result.anomalies[0].explanation;
  }
}

// Every textbook history named after an anomaly reports that anomaly, by the vocabulary's name,
// at the weakest level it fails ("dbcop-" prefixes and plurals dropped; a dirty read is an
// aborted read; the stale read is the real-time one).
TEST(StrongCorpusNames, EveryTextbookAnomalyByItsName) {
  SKIP_WITHOUT_CORPUS();
  const std::string dir = corpus_dir() + "/textbook";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no corpus at " << dir;
  int named = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string stem = entry.path().stem().string();
    if (stem.rfind("dbcop-", 0) == 0) stem = stem.substr(6);
    if (stem == "dirty-read") stem = "aborted-read";
    if (stem == "stale-read-realtime") stem = "stale-read";
    if (stem.size() > 1 && stem.back() == 's') stem.pop_back();
    std::string kind;
    for (size_t i = 0; i < stem.size(); ++i)
      if (stem[i] != '-') kind += (i == 0 || stem[i - 1] == '-') ? static_cast<char>(std::toupper(stem[i])) : stem[i];
    if (!find_anomaly_kind(kind)) continue;  // serial.json, dbcop-rc-cycle.json, ...
    Expected<History> h = read_path(entry.path().string(), "isoscope");
    ASSERT_TRUE(h.ok()) << entry.path();
    CheckOptions o;
    const CheckReport r = check_history(*h, o);
    const LevelResult* weakest = nullptr;
    Level at = Level::RC;
    for (int i = 0; i < kNumLevels && !weakest; ++i)
      if (r.requested[i] && r.results[i].verdict == Verdict::Fail) weakest = &r.results[i], at = static_cast<Level>(i);
    ASSERT_NE(weakest, nullptr) << entry.path();
    bool found = false;
    for (const Anomaly& a : weakest->anomalies) found = found || name_of(a.kind) == kind;
    EXPECT_TRUE(found) << entry.path().filename() << " at " << level_name(at) << ": "
                       << (weakest->anomalies.empty() ? "no anomaly" : name_of(weakest->anomalies[0].kind) + ": " + weakest->anomalies[0].explanation);
    ++named;
  }
  EXPECT_GE(named, 15);
}
