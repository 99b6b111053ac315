// Every entry of ../shared/corpus/manifest.json, in its own format: detected as that format,
// and checked through the full orchestration (check_history, lattice included) to the verdict
// the manifest states for every level.
#include <gtest/gtest.h>

#include "checkers/check.h"
#include "test_util.h"

using namespace isoscope;

TEST(Corpus, EveryManifestVerdictHoldsThroughTheFullCheck) {
  SKIP_WITHOUT_CORPUS();
  size_t verdicts = 0;
  for (const CorpusEntry& e : corpus_entries()) {
    Expected<History> h = read_path(e.path);
    ASSERT_TRUE(h.ok()) << e.rel << ": " << h.error().to_string();
    EXPECT_EQ(h->format, e.format) << e.rel;
    CheckReport report = check_history(*h, {});
    for (const auto& [level_name_str, expected] : e.expect) {
      Level l;
      ASSERT_TRUE(parse_level(level_name_str, l)) << level_name_str;
      EXPECT_EQ(verdict_name(report.results[static_cast<int>(l)].verdict), expected) << e.rel << " " << level_name_str;
      ++verdicts;
    }
  }
  EXPECT_GT(verdicts, 200u);
}
