// The words of witnesses (issue 23): a list is extended, not overwritten.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "checkers/check.h"
#include "formats/formats.h"

using namespace isoscope;

TEST(Words, ListAppendReadsAreNotOverwritten) {
  const std::string edn =
      "{:type :ok, :f :txn, :value [[:r :x []] [:append :y 1]], :process 0}\n"
      "{:type :ok, :f :txn, :value [[:r :y []] [:append :x 1]], :process 1}\n";
  std::vector<InputFile> in{{"la.edn", edn}};
  Expected<History> h = read_history(in);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  const LevelResult r = checker_for(Level::SER)(*h, CheckBudget{});
  ASSERT_EQ(r.verdict, Verdict::Fail);
  const std::string& why = r.anomalies.at(0).explanation;
  EXPECT_NE(why.find("extends (its append is not in that list)"), std::string::npos) << why;
  EXPECT_EQ(why.find("overwrite"), std::string::npos) << why;
}
