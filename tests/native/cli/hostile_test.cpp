// The command line never dies on hostile input (issue: hostile input and resource limits; issue
// 22, classes 14 and 15): non-regular paths, links to nothing or in a circle, endless input,
// numbers too large for 64 bits, invalid UTF-8, control bytes in names, a folder's damaged
// first log and its pipes, sockets and devices.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_util.h"

namespace {
namespace fs = std::filesystem;

}  // namespace

TEST(CliHostile, RefusesDevicesAndPipes) {
  CommandResult r = run_cli("check /dev/zero");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "/dev/zero: not a regular file")) << r.err;
  const fs::path fifo = fresh_dir("fifo") / "pipe";
  ASSERT_EQ(std::system(("mkfifo " + shell_quote(fifo.string())).c_str()), 0);
  r = run_cli("check " + shell_quote(fifo.string()));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "not a regular file")) << r.err;
}

TEST(CliHostile, LinksToNothingOrInACircleAreErrors) {
  const fs::path d = fresh_dir("links");
  std::ofstream(d / "T1.log") << "";
  fs::create_symlink(d / "missing.log", d / "T2.log");
  CommandResult r = run_cli("check " + shell_quote(d.string()));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "T2.log: a symbolic link to nothing")) << r.err;
  fs::remove(d / "T2.log");
  fs::create_symlink(d / "b", d / "a");
  fs::create_symlink(d / "a", d / "b");
  r = run_cli("check " + shell_quote(d.string()));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "a symbolic link to nothing (or a loop of links)")) << r.err;
}

TEST(CliHostile, EndlessInputIsCapped) {
  CommandResult r = run_cli("check --max-input-bytes 1000000 - < /dev/zero");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "larger than 1000000 bytes; pass --max-input-bytes")) << r.err;
}

// Output JSON is valid UTF-8 whatever the input holds (the JSON readers refuse invalid UTF-8,
// the EDN and text readers keep the bytes): invalid bytes become U+FFFD.
TEST(CliHostile, OutputJsonIsValidUtf8) {
  const std::string text = "{:type :ok, :value [[:r :caf\xc3\xa9-\xff\xfe-\xed\xa0\x80 7]]}\n";
  const CommandResult r = run_cli("check --json --level RC " + shell_quote(temp_file("utf8.edn", text)));
  EXPECT_EQ(r.status, 1) << r.err;  // the read is thin air
  EXPECT_TRUE(contains(r.out, "caf\xc3\xa9-\\ufffd\\ufffd-\\ufffd\\ufffd\\ufffd")) << r.out;
  for (size_t i = 0; i < r.out.size(); ++i) EXPECT_NE(static_cast<unsigned char>(r.out[i]), 0xFF);
}

// A number too large for 64 bits says so, in every text format, with its place.
TEST(CliHostile, OutOfRangeNumbersSaySo) {
  const std::string big = "99999999999999999999";
  const std::pair<const char*, std::string> inputs[] = {
      {"plume", "r(0," + big + ",0,1)\n"},
      {"awdit-test", "r 0 " + big + "\n-----\n=====\n"},
      {"dbcop-text", "[x==" + big + "]\n"},
      {"elle", "{:type :ok, :f :txn, :value [[:r :x " + big + "]], :process 0}\n"},
      {"isoscope", "{\"sessions\": [[ [[\"r\",\"x\"," + big + "]] ]]}"},
  };
  for (const auto& [format, text] : inputs) {
    const std::string file = (fs::temp_directory_path() / ("isoscope-big-" + std::string(format))).string();
    std::ofstream(file) << text;
    const CommandResult r = run_cli(std::string("check --format ") + format + " " + file);
    EXPECT_EQ(r.status, 2) << format;
    EXPECT_TRUE(contains(r.err, "line 1")) << format << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "does not fit in 64 bits") || contains(r.err, "not an integer of 64 bits")) << format << ": " << r.err;
  }
}

// Names holding control bytes (a zip entry's NUL, a terminal escape in a file name) are printed
// escaped, never raw and never cut short.
TEST(CliHostile, ControlBytesInNamesArePrintedEscaped) {
  isoscope::InputError e;
  e.file = std::string("run.zip, entry a\0b\x1b[31m.log", 27);
  e.message = "expected a history";
  EXPECT_EQ(e.to_string(), "run.zip, entry a\\x00b\\x1b[31m.log: expected a history");
  const std::string file = (fs::temp_directory_path() / "isoscope-\x1b[31mred.json").string();
  std::ofstream(file) << "not a history";
  const CommandResult r = run_cli("check " + shell_quote(file));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "isoscope-\\x1b[31mred.json")) << r.err;
  EXPECT_FALSE(contains(r.err, "\x1b")) << r.err;
}

// Class 14: a folder of .log files is Cobra's: a damaged first log is reported as Cobra's
// error in that log, not as another reader's that got "furthest".
TEST(CliHostile, FolderErrorsComeFromTheReaderItsLayoutNames) {
  const fs::path src = fs::path(ISOSCOPE_FIXTURES) / "formats" / "cobra";
  const fs::path d = fresh_dir("cobra");
  for (const char* n : {"T1.log", "T2.log", "T3.log"}) fs::copy_file(src / n, d / n);
  std::string first = slurp(d / "T1.log");
  first[0] = 'X';  // not a record tag
  std::ofstream(d / "T1.log", std::ios::binary | std::ios::trunc) << first;
  auto expect_cobra_error = [&](const std::string& what) {
    CommandResult r = run_cli("check " + shell_quote(d.string()));
    EXPECT_EQ(r.status, 2) << what;
    EXPECT_TRUE(contains(r.err, "T1.log: byte 0")) << what << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "Cobra logs")) << what << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "found 'X'")) << what << ": " << r.err;
    EXPECT_FALSE(contains(r.err, "got furthest")) << what << ": " << r.err;
  };
  expect_cobra_error("three logs");
  // A folder of one log (with a .DS_Store): the text readers see one file and reach line 1.
  fs::remove(d / "T2.log");
  fs::remove(d / "T3.log");
  std::ofstream(d / ".DS_Store") << "x";
  expect_cobra_error("one log");

  // A dbcop folder: history.bincode names the reader, and its error names the file.
  const fs::path b = fresh_dir("bincode");
  std::string bincode = slurp(fs::path(ISOSCOPE_FIXTURES) / "formats" / "dbcop-bincode" / "history.bincode");
  bincode.resize(bincode.size() / 2);
  std::ofstream(b / "history.bincode", std::ios::binary) << bincode;
  std::ofstream(b / "README.txt") << "a dbcop run\n";
  CommandResult r = run_cli("check " + shell_quote(b.string()));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "history.bincode: byte ")) << r.err;
  EXPECT_FALSE(contains(r.err, "got furthest")) << r.err;
}

// Class 15: pipes, sockets and devices (also behind a link named like a log) in a folder are
// refused by name, at once, never opened.
TEST(CliHostile, SpecialFilesInFoldersAreRefusedByName) {
  const fs::path src = fs::path(ISOSCOPE_FIXTURES) / "formats" / "cobra";
  auto folder = [&](const std::string& name) {
    const fs::path d = fresh_dir(name);
    for (const char* n : {"T1.log", "T2.log", "T3.log"}) fs::copy_file(src / n, d / n);
    return d;
  };
  fs::path d = folder("fifo");
  ASSERT_EQ(std::system(("mkfifo " + shell_quote((d / "T4.log").string())).c_str()), 0);
  CommandResult r = run_cli("check " + shell_quote(d.string()) + " < /dev/null");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "T4.log: a named pipe")) << r.err;

  d = folder("zero");
  fs::create_symlink("/dev/zero", d / "T4.log");
  r = run_cli("check " + shell_quote(d.string()));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "T4.log: a device behind a symbolic link")) << r.err;

  d = folder("socket");
  const std::string sock = (d / "T4.log").string();
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(sock.size(), sizeof addr.sun_path);
  std::copy(sock.begin(), sock.end(), addr.sun_path);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  r = run_cli("check " + shell_quote(d.string()));
  ::close(fd);
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "T4.log: a socket")) << r.err;
}
