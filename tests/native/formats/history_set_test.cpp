// Sets of histories (formats/history_set.h): folders of runs, several history files (`isoscope
// check DIR` on them: cli/commands_test.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "formats/history_set.h"
#include "test_util.h"

namespace fs = std::filesystem;
using namespace isoscope;

namespace {

struct Files {
  std::vector<std::string> names, bytes;
  void add(std::string name, std::string content) { names.push_back(std::move(name)), bytes.push_back(std::move(content)); }
  std::vector<HistoryPart> split() const {
    std::vector<InputFile> files;
    for (size_t i = 0; i < names.size(); ++i) files.push_back({names[i], bytes[i]});
    return split_histories(files);
  }
};

const fs::path kFormatFixtures = fs::path(ISOSCOPE_FIXTURES) / "formats";

}  // namespace

TEST(HistorySet, DbcopRunFoldersAreOneHistoryEach) {
  Files f;
  const std::string bincode = slurp(kFormatFixtures / "dbcop-bincode" / "history.bincode");
  for (int i = 0; i < 12; ++i) {
    char dir[32];
    std::snprintf(dir, sizeof dir, "runs/hist-%05d", i);
    f.add(std::string(dir) + "/history.bincode", bincode);
    f.add(std::string(dir) + "/notes.txt", "run notes\n");
  }
  const std::vector<HistoryPart> parts = f.split();
  ASSERT_EQ(parts.size(), 12u);
  EXPECT_EQ(parts[0].name, "hist-00000");
  EXPECT_EQ(parts[11].name, "hist-00011");
  EXPECT_EQ(parts[3].files.size(), 2u);  // the folder's every file
}

TEST(HistorySet, TwoEdnFilesAndJepsenTestFolders) {
  const std::string edn = slurp(kFormatFixtures / "lost-update.edn");
  Files two;
  two.add("a.edn", edn);
  two.add("b.edn", edn);
  ASSERT_EQ(two.split().size(), 2u);
  Files store;
  store.add("store/bank/20240101T000000/history.edn", edn);
  store.add("store/bank/20240101T000000/results.edn", "{:valid? true}\n");
  store.add("store/bank/20240102T000000/history.edn", edn);
  const std::vector<HistoryPart> parts = store.split();
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].name, "20240101T000000");
  EXPECT_EQ(parts[0].files.size(), 1u);
}

TEST(HistorySet, CobraRunsAndOneHistory) {
  Files runs, one;
  for (const char* run : {"run1", "run2", "run3"})
    for (const char* log : {"T1.log", "T2.log", "T3.log"}) runs.add(std::string(run) + "/" + log, slurp(kFormatFixtures / "cobra" / log));
  for (const char* log : {"T1.log", "T2.log", "T3.log"}) one.add(std::string("logs/") + log, slurp(kFormatFixtures / "cobra" / log));
  one.add("logs/README.md", "# run 7\n");
  const std::vector<HistoryPart> parts = runs.split();
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1].name, "run2");
  EXPECT_EQ(parts[1].files.size(), 3u);
  EXPECT_TRUE(one.split().empty());  // one folder of logs is one history
  Files mixed;  // different formats: read_history's error names each, no set
  mixed.add("a.json", slurp(kFormatFixtures / "lost-update.json"));
  mixed.add("b.txt", slurp(kFormatFixtures / "lost-update.plume.txt"));
  EXPECT_TRUE(mixed.split().empty());
}
