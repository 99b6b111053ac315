// Messages and output for people (issue 22): control bytes from the input never reach a
// terminal raw, a failed write of any output is an error, and errors carry their reasons.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_util.h"

namespace {
namespace fs = std::filesystem;

// Bytes a terminal acts on: ESC (CSI, OSC), BEL, CR, a raw C1 CSI, and C1 CSI in UTF-8.
bool has_terminal_controls(const std::string& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0x1B || c == 0x07 || c == '\r' || c == 0x9B || c == 0x9D) return true;
    if (c == 0xC2 && i + 1 < s.size() && (static_cast<unsigned char>(s[i + 1]) & 0xE0) == 0x80) return true;
  }
  return false;
}

}  // namespace

// Keys, values and transaction ids with escape sequences, in a failing history: the text
// report and the messages quote them escaped; the JSON report keeps them exact (escaped as JSON).
TEST(CliMessages, EscapeSequencesFromTheInputNeverReachTheTerminal) {
  const std::string key = "k\\u001b[2J\\u001b]0;owned\\u0007\\u009b31m";
  const std::string id = "t\\u001b[H\\r";
  const std::string json = std::string("{\"initial\": 0, \"sessions\": [[{\"id\": \"") + id +
                           "\", \"ops\": [[\"r\", \"" + key + "\", 1]]}], [{\"id\": \"w\\u001b[8m\", \"ops\": [[\"w\", \"" +
                           key + "\", 1], [\"r\", \"" + key + "\", 2]]}]]}";
  const std::string file = temp_file("isoscope-esc-\x1b[5m.json", json);
  CommandResult r = run_cli("check " + shell_quote(file));
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.out, "k\\x1b[2J\\x1b]0;owned\\x07\\xc2\\x9b31m")) << r.out;
  EXPECT_FALSE(has_terminal_controls(r.out)) << r.out;
  EXPECT_FALSE(has_terminal_controls(r.err)) << r.err;
  // JSON output is for programs: exact, with JSON's own escapes.
  r = run_cli("check --json " + shell_quote(file));
  EXPECT_FALSE(has_terminal_controls(r.out));
  EXPECT_TRUE(contains(r.out, "\\u001b[2J")) << r.out;
  // A duplicate write refused by --unique-values: the message quotes the key and the ids.
  const std::string dup = std::string("{\"sessions\": [[{\"id\": \"") + id + "\", \"ops\": [[\"w\", \"" + key +
                          "\", 1]]}], [[[\"w\", \"" + key + "\", 1]]]]}";
  r = run_cli("check --unique-values " + shell_quote(temp_file("isoscope-esc-dup.json", dup)));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "written with value 1 twice")) << r.err;
  EXPECT_FALSE(has_terminal_controls(r.err)) << r.err;
  // A path given on the command line, in the report's first line.
  EXPECT_FALSE(has_terminal_controls(run_cli("check " + shell_quote(file)).out));
}

// Every command's output, written to a full device: a message and a non-zero status.
TEST(CliMessages, AFailedWriteToStandardOutputIsAnError) {
  const std::string h = temp_file("isoscope-full.json", "{\"sessions\": [[[[\"w\", 1, 1]]], [[[\"r\", 1, 1]]]]}");
  for (const std::string cmd : {"check " + h, "check --json " + h, "convert --to isoscope " + h + " -",
                                "convert --to plume " + h + " -", std::string("generate -"), std::string("anomalies"),
                                std::string("anomalies --json"), std::string("formats"), std::string("formats --json"),
                                std::string("--version"), std::string("--help"), std::string("check --help")}) {
    const CommandResult r = run_cli(cmd + " > /dev/full");
    EXPECT_EQ(r.status, 2) << cmd;
    EXPECT_TRUE(contains(r.err, "cannot write")) << cmd << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "No space left on device")) << cmd << ": " << r.err;
  }
  const CommandResult r = run_cli("convert --to isoscope " + h + " /dev/full");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "/dev/full: cannot write: No space left on device")) << r.err;
}

// A file that cannot be read says why, in the system's words.
TEST(CliMessages, AnUnreadableFileSaysWhy) {
  // Write-only for its owner: fopen fails (EACCES) for a user, a read fails (EINVAL) for root.
  const CommandResult r = run_cli("check /proc/self/clear_refs");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "clear_refs: cannot read the file: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "Permission denied") || contains(r.err, "Invalid argument")) << r.err;
}

TEST(CliMessages, MalformedJsonExitsTwoWithOffset) {
  std::string path = temp_file("malformed.json", "{\"sessions\": [[ [[\"r\",\"x\",0]] ]\n");
  CommandResult r = run_cli("check --json " + shell_quote(path));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("malformed.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("byte"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expected"), std::string::npos) << r.err;
}

// Detection that explains: an unrecognised input gets the located error of the reader that got
// furthest; white space alone says so; a byte-order mark is detected as the reader accepts it.
TEST(CliMessages, DetectionExplainsWhatItCouldNotRead) {
  CommandResult r = run_cli("check " + shell_quote(temp_file("bad.txt", "r(1,1,0,0)\nw(1,2,0,1)\nr(1,x,0,2)\n")));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "line 3")) << r.err;
  EXPECT_TRUE(contains(r.err, "read as plume")) << r.err;
  EXPECT_TRUE(contains(r.err, "expected an integer")) << r.err;
  r = run_cli("check " + shell_quote(temp_file("blank.json", " \n\t\n")));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "only white space")) << r.err;
  r = run_cli("check " + shell_quote(temp_file("bom.json", "\xef\xbb\xbf{\"format\": \"isoscope/1\", \"sessions\": [[[[\"w\", \"x\", 1]]]]}")));
  EXPECT_EQ(r.status, 0) << r.err;
}
