// The repository's own fixtures (tests/fixtures/formats, written by make-fixtures.mjs): the same
// lost update in every format the core reads, so a clone without ../shared/corpus still tests
// every reader, detection and the verdicts the definitions give.
#include <gtest/gtest.h>

#include <set>

#include "checkers/check.h"
#include "simdjson.h"
#include "test_util.h"

using namespace isoscope;

TEST(Fixtures, EveryFormatReadsTheLostUpdateWithItsVerdicts) {
  const std::string dir = std::string(ISOSCOPE_FIXTURES) + "/formats";
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.load(dir + "/expected.json").get(doc), simdjson::SUCCESS);
  simdjson::dom::object files, verdicts;
  ASSERT_EQ(doc["files"].get_object().get(files), simdjson::SUCCESS);
  ASSERT_EQ(doc["verdicts"].get_object().get(verdicts), simdjson::SUCCESS);
  std::set<std::string> formats;
  for (auto [file, format_value] : files) {
    std::string_view format_name;
    ASSERT_EQ(format_value.get_string().get(format_name), simdjson::SUCCESS);
    const std::string format(format_name);
    formats.insert(format);
    Expected<History> h = read_path(dir + "/" + std::string(file));  // by detection
    ASSERT_TRUE(h.ok()) << file << ": " << h.error().to_string();
    EXPECT_EQ(h->format, format) << file;
    EXPECT_EQ(h->num_txns(), static_cast<size_t>(format == "awdit-test" ? 4 : 3)) << file;  // awdit: + the initial writes
    const CheckReport report = check_history(*h, {});
    for (auto [level, verdict_value] : verdicts) {
      Level l;
      std::string_view verdict;
      ASSERT_TRUE(parse_level(level, l));
      ASSERT_EQ(verdict_value.get_string().get(verdict), simdjson::SUCCESS);
      EXPECT_EQ(verdict_name(report.results[static_cast<int>(l)].verdict), verdict) << file << " " << level;
    }
  }
  // One fixture per format the core reads.
  std::set<std::string> known;
  // Object-history formats hold no transactions, so no lost update: tests/fixtures/jepsen has
  // theirs (object_lin_test.cpp).
  for (const FormatInfo& f : all_formats())
    if (std::string(f.name) != "jepsen" && std::string(f.name) != "jepsen-log") known.insert(f.name);
  EXPECT_EQ(formats, known);
}
