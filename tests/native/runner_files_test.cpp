// `isoscope run` among other programs (issue 35): the files it writes are never written through a
// link someone planted at a name it would use (classes 7), and its messages never hold a password
// (class 8).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

// The whole command: `isoscope run` with no target (a fresh SQLite file in $TMPDIR) and --out,
// with links planted at the names a process of its pid would use, before it starts: the
// SQLite file ($TMPDIR/isoscope-run-<pid>.sqlite and its -wal, -shm, -journal) and the
// history's temporary file (PATH.tmp<pid>). No file they point to is written or made.
TEST(RunnerFiles, RunWritesNothingThroughPlantedLinks) {
  const fs::path d = fresh_dir("run"), tmp = d / "tmp";
  fs::create_directories(tmp);
  // An empty file (SQLite makes a database of it) and a file with text.
  const fs::path victim = d / "victim.txt", empty = d / "empty.txt", out = d / "h.json";
  { std::ofstream(victim) << "precious"; }
  { std::ofstream{empty}; }
  int go[2];
  ASSERT_EQ(::pipe(go), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(go[1]);
    char c;
    if (::read(go[0], &c, 1) != 1) ::_exit(126);
    ::setenv("TMPDIR", tmp.c_str(), 1);
    const int devnull = ::open("/dev/null", O_WRONLY);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    ::execl(ISOSCOPE_CLI, "isoscope", "run", "--sessions", "2", "--txns", "5", "--out", out.c_str(), nullptr);
    ::_exit(127);
  }
  ::close(go[0]);
  const std::string pid = std::to_string(child);
  const std::string sqlite = (tmp / ("isoscope-run-" + pid + ".sqlite")).string();
  fs::create_symlink(empty, sqlite);
  for (const char* suffix : {"-wal", "-shm", "-journal"})
    fs::create_symlink(d / ("made" + std::string(suffix)), sqlite + suffix);
  fs::create_symlink(victim, out.string() + ".tmp" + pid);
  ASSERT_EQ(::write(go[1], "x", 1), 1);
  ::close(go[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(slurp_file(victim), "precious");
  EXPECT_EQ(fs::file_size(empty), 0u);
  for (const char* suffix : {"-wal", "-shm", "-journal"}) EXPECT_FALSE(fs::exists(d / ("made" + std::string(suffix)))) << suffix;
  EXPECT_NE(slurp_file(out).find("\"committed\": 10"), std::string::npos);
  // The run's own SQLite folder is gone; the planted links are left as they were.
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(tmp)) entries += fs::is_symlink(e.path()) ? 0 : 1;
  EXPECT_EQ(entries, 0u);
}

// The command line's messages never quote a password: a mistyped scheme, a target given twice,
// a bad port or parameter, an unreachable server.
TEST(RunnerFiles, MessagesNeverPrintThePassword) {
  for (const char* args : {"postgressql://alice:Sup3rS3cret@127.0.0.1:1/x",
                           "mysq://alice:Sup3rS3cret@127.0.0.1/x",
                           "postgresql://alice:Sup3rS3cret@127.0.0.1:1/x mariadb://bob:Sup3rS3cret@127.0.0.1:1/x",
                           "sqlite:/tmp/x.db postgresql://alice:Sup3rS3cret@127.0.0.1:1/x",
                           "postgresql://alice:Sup3rS3cret@127.0.0.1:1x/x", "'mariadb://alice:Sup3rS3cret@127.0.0.1:1/x?a;b=1'",
                           "postgresql://alice:Sup3rS3cret@127.0.0.1:1/x --bogus",
                           "--postgresql://alice:Sup3rS3cret@127.0.0.1:1/x",
                           "postgresql://alice:Sup3rS3cret@127.0.0.1:1/x --isolation nope",
                           "postgresql://alice:Sup3rS3cret@127.0.0.1:1/x", "mariadb://alice:Sup3rS3cret@127.0.0.1:1/x"}) {
    const CommandResult r = run_cli(std::string("run ") + args + " --txns 1");
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_FALSE(r.err.empty()) << args;
    EXPECT_EQ(r.err.find("Sup3r"), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(r.err.find("S3cret"), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(r.out.find("S3cret"), std::string::npos) << args << "\n" << r.out;
  }
  // --help says where the password should go, and why not in the URL.
  const CommandResult help = run_cli("run --help");
  EXPECT_NE(help.out.find("PGPASSWORD"), std::string::npos);
  EXPECT_NE(help.out.find("MYSQL_PWD"), std::string::npos);
  EXPECT_NE(help.out.find("--password-file"), std::string::npos);
  EXPECT_NE(help.out.find("ps"), std::string::npos);
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
