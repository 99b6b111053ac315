// Every entry of ../shared/corpus/manifest.json, in its own format: detected as that format,
// and checked through the full orchestration (check_history, lattice included) to the verdict
// the manifest states for every level, except the documented disputes of
// tests/corpus-disputed.json, where the verdict the definitions give is asserted instead.
#include <gtest/gtest.h>

#include "checkers/check.h"
#include "simdjson.h"
#include "test_util.h"

using namespace isoscope;

namespace {

struct Dispute {
  std::string path, level, verdict;
};

std::vector<Dispute> disputes() {
  std::vector<Dispute> out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.load(ISOSCOPE_DISPUTED).get(doc)) return out;
  simdjson::dom::array entries;
  if (doc["entries"].get_array().get(entries)) return out;
  for (simdjson::dom::element e : entries) {
    std::string_view p, l, v;
    if (e["path"].get_string().get(p) || e["level"].get_string().get(l) || e["verdict"].get_string().get(v)) continue;
    out.push_back({std::string(p), std::string(l), std::string(v)});
  }
  return out;
}

}  // namespace

TEST(Corpus, EveryManifestVerdictHoldsThroughTheFullCheck) {
  const std::vector<Dispute> disputed = disputes();
  ASSERT_EQ(disputed.size(), 2u) << "tests/corpus-disputed.json did not load";
  size_t verdicts = 0, used_disputes = 0;
  for (const CorpusEntry& e : corpus_entries()) {
    Expected<History> h = read_path(e.path);
    ASSERT_TRUE(h.ok()) << e.rel << ": " << h.error().to_string();
    EXPECT_EQ(h->format, e.format) << e.rel;
    CheckReport report = check_history(*h, {});
    for (const auto& [level_name_str, expected] : e.expect) {
      Level l;
      ASSERT_TRUE(parse_level(level_name_str, l)) << level_name_str;
      std::string want = expected;
      for (const Dispute& d : disputed)
        if (d.path == e.rel && d.level == level_name_str) {
          want = d.verdict;
          ++used_disputes;
        }
      EXPECT_EQ(verdict_name(report.results[static_cast<int>(l)].verdict), want) << e.rel << " " << level_name_str;
      ++verdicts;
    }
  }
  EXPECT_EQ(used_disputes, disputed.size());
  EXPECT_GT(verdicts, 200u);
}
