// `isoscope run` among other programs (issue 35): the files it writes are never written through a
// link someone planted at a name it would use (class 7). The whole command, and its messages
// that never hold a password (class 8): cli/commands_test.cpp (CliRun).
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "runner/runner.h"
#include "test_util.h"

namespace fs = std::filesystem;
using namespace isoscope::runner;

namespace {

std::string slurp_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A fresh folder of the test's own.
}  // namespace

// The history's temporary file: a link planted at PATH.tmp<pid> (to an existing file, or
// dangling, where the run would create the file it points to) is not followed; the history
// still lands at PATH.
TEST(RunnerFiles, HistoryIsNotWrittenThroughPlantedLinks) {
  const fs::path d = fresh_dir("history");
  const fs::path victim = d / "victim.txt", elsewhere = d / "elsewhere.txt", out = d / "h.json";
  { std::ofstream(victim) << "precious"; }
  const std::string pid = std::to_string(::getpid());
  // Every name of the form the stream could use for its temporary file in this process.
  fs::create_symlink(victim, out.string() + ".tmp" + pid);
  fs::create_symlink(elsewhere, out.string() + ".tmp");
  HistoryStream stream;
  std::string error;
  ASSERT_TRUE(stream.open(out.string(), 2, false, "{\"tool\": \"test\"}", error)) << error;
  RecordedSession s;
  s.ops.push_back({RecordedOp::Write, 0, 1, 0, 0});
  s.txns.push_back({0, 1, isoscope::TxnStatus::Committed, 1, 2});
  stream.add(0, s, s.txns[0]);
  ASSERT_TRUE(stream.flush(error)) << error;
  ASSERT_TRUE(stream.finish("{\"tool\": \"test\", \"done\": true}", error)) << error;
  EXPECT_EQ(slurp_file(victim), "precious");
  EXPECT_FALSE(fs::exists(elsewhere));
  EXPECT_TRUE(fs::is_symlink(out.string() + ".tmp" + pid)) << "a link that is not the run's is left alone";
  const std::string h = slurp_file(out);
  EXPECT_NE(h.find("\"done\": true"), std::string::npos) << h;
  EXPECT_FALSE(fs::is_symlink(out));
  // A file created the usual way's permissions (not mkstemp's 0600).
  const mode_t mask = ::umask(022);
  ::umask(mask);
  EXPECT_EQ(fs::status(out).permissions() & fs::perms::mask, static_cast<fs::perms>(0666 & ~mask));
  // No temporary file is left behind.
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(d)) files += e.path().filename().string().find(".tmp") == std::string::npos ? 0 : 1;
  EXPECT_EQ(files, 2u) << "only the two planted links hold .tmp";
}

// Two runs with one --out: each reads back (and checks) the history it wrote, never the other's,
// and knows when the path no longer holds it.
TEST(RunnerFiles, EachRunReadsBackItsOwnHistory) {
  const fs::path d = fresh_dir("same-out"), out = d / "h.json";
  HistoryStream a, b;
  std::string error;
  ASSERT_TRUE(a.open(out.string(), 1, false, "{\"run\": \"a\"}", error)) << error;
  ASSERT_TRUE(b.open(out.string(), 1, false, "{\"run\": \"b\"}", error)) << error;
  ASSERT_TRUE(a.finish("{\"run\": \"a\", \"done\": true}", error)) << error;
  std::string bytes;
  bool replaced = true;
  ASSERT_TRUE(a.read_back(bytes, replaced, error)) << error;
  EXPECT_FALSE(replaced);
  EXPECT_NE(bytes.find("\"run\": \"a\", \"done\": true"), std::string::npos) << bytes;
  ASSERT_TRUE(b.finish("{\"run\": \"b\", \"done\": true}", error)) << error;
  ASSERT_TRUE(a.read_back(bytes, replaced, error)) << error;
  EXPECT_TRUE(replaced);
  EXPECT_NE(bytes.find("\"run\": \"a\", \"done\": true"), std::string::npos) << bytes;
  ASSERT_TRUE(b.read_back(bytes, replaced, error)) << error;
  EXPECT_FALSE(replaced);
  EXPECT_NE(bytes.find("\"run\": \"b\""), std::string::npos) << bytes;
  EXPECT_EQ(slurp_file(out), bytes);
}
