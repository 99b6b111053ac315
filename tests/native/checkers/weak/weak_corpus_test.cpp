// Every corpus manifest expectation for RC, RA and CC holds for the weak checkers, on the
// entries in the `isoscope` and `awdit-test` formats; witnesses of failures are valid.
#include <gtest/gtest.h>

#include <string>

#include "checkers/weak/weak.h"
#include "formats/formats.h"
#include "test_util.h"
#include "weak_witness.h"

using namespace isoscope;

namespace {

struct WeakLevel {
  const char* name;
  Level level;
  LevelResult (*check)(const History&, const CheckBudget&);
};
constexpr WeakLevel kWeakLevels[] = {
    {"RC", Level::RC, check_rc}, {"RA", Level::RA, check_ra}, {"CC", Level::CC, check_cc}};

class WeakCorpus : public testing::TestWithParam<CorpusEntry> {};

TEST_P(WeakCorpus, ManifestExpectationsHold) {
  SKIP_WITHOUT_CORPUS();
  const CorpusEntry& e = GetParam();
  if (!find_format(e.format)) GTEST_SKIP() << "format " << e.format << " is not registered yet";
  Expected<History> h = read_path(e.path, e.format);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  CheckBudget budget;
  for (const WeakLevel& wl : kWeakLevels) {
    auto it = e.expect.find(wl.name);
    LevelResult r = wl.check(*h, budget);
    EXPECT_EQ(verify_weak_witnesses(*h, wl.level, r), "") << wl.name;
    if (r.verdict == Verdict::Fail) EXPECT_FALSE(r.anomalies.empty()) << wl.name;
    if (it == e.expect.end()) continue;
    EXPECT_EQ(verdict_name(r.verdict), it->second)
        << e.rel << " " << wl.name
        << (r.anomalies.empty() ? std::string()
                                : ": " + name_of(r.anomalies[0].kind) + ": " + r.anomalies[0].explanation);
  }
  // RR sits between RC and RA.
  LevelResult rr = check_rr(*h, budget);
  auto rc = e.expect.find("RC"), ra = e.expect.find("RA");
  if (rc != e.expect.end() && rc->second == "fail") EXPECT_EQ(rr.verdict, Verdict::Fail);
  if (ra != e.expect.end() && ra->second == "pass") EXPECT_EQ(rr.verdict, Verdict::Pass);
}

std::vector<CorpusEntry> weak_entries() {
  std::vector<CorpusEntry> out;
  for (CorpusEntry& e : corpus_entries())
    if (e.format == "isoscope" || e.format == "awdit-test") out.push_back(std::move(e));
  return out;
}

}  // namespace

// Without the corpus there are no entries: the suite is then empty, not an error.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(WeakCorpus);
INSTANTIATE_TEST_SUITE_P(Corpus, WeakCorpus, testing::ValuesIn(weak_entries()), CorpusEntryName());

TEST(WeakCorpusManifest, HasEntries) {
  SKIP_WITHOUT_CORPUS();
  EXPECT_GE(weak_entries().size(), 40u);
}
