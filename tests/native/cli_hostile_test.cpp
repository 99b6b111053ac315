// The command line never dies on hostile input or usage (issue: hostile input and resource
// limits): non-regular paths, links to nothing or in a circle, endless input, malformed numbers,
// an empty level list; every subcommand has --help, and there is --version.
#include <gtest/gtest.h>

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

TEST(CliHostile, NumbersAndLevelsAreValidated) {
  for (const char* bad : {"inf", "1e300", "1.5", "-1", "nan", "7x", ""}) {
    const CommandResult r = run_cli(std::string("check --max-anomalies '") + bad + "' x.json");
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_TRUE(contains(r.err, "--max-anomalies needs a whole number")) << bad << ": " << r.err;
  }
  CommandResult r = run_cli("check --level '' x.json");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--level: an empty level name; the levels are RC, RR")) << r.err;
  r = run_cli("check --level SER,XYZ x.json");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--level: unknown level 'XYZ'; the levels are")) << r.err;
  r = run_cli("generate --sessions 2.5 -");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "--sessions needs a whole number")) << r.err;
  // generate and run read --mix alike: trailing junk is an error
  for (const char* cmd : {"generate --engine si --mix 0.2,0.2,0.2junk -", "run sqlite::memory: --mix 0.2,0.2,0.2junk"}) {
    r = run_cli(cmd);
    EXPECT_EQ(r.status, 2) << cmd;
    EXPECT_TRUE(contains(r.err, "--mix needs cobra, polysi, random or RO,WO,RMW")) << cmd << ": " << r.err;
  }
}

TEST(CliHostile, HelpOnEverySubcommandAndVersion) {
  for (const char* cmd : {"check", "convert", "generate", "anomalies"}) {
    const CommandResult r = run_cli(std::string(cmd) + " --help");
    EXPECT_EQ(r.status, 0) << cmd;
    EXPECT_TRUE(contains(r.out, "usage:")) << cmd;
  }
  const CommandResult v = run_cli("--version");
  EXPECT_EQ(v.status, 0);
  EXPECT_TRUE(contains(v.out, "isoscope 0.1.0")) << v.out;
}

// Detection that explains: an unrecognised input gets the located error of the reader that got
// furthest; white space alone says so; a byte-order mark is detected as the reader accepts it.
TEST(CliHostile, DetectionExplainsWhatItCouldNotRead) {
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

// Peers' files load as their tools load them: Elle histories with ; comments, without :f and
// without :process; operations of :nemesis are counted, never silently dropped.
TEST(CliHostile, ElleFilesLoadAsElleLoadsThem) {
  const fs::path dir = fs::path(ISOSCOPE_FIXTURES) / "elle";
  CommandResult r = run_cli("check --json --level RC " + shell_quote((dir / "no-f-no-process-comments.edn").string()));
  EXPECT_NE(r.status, 2) << r.err;
  EXPECT_TRUE(contains(r.out, "\"format\": \"elle\", \"sessions\": 2, \"transactions\": 2, \"operations\": 4")) << r.out;
  r = run_cli("check --json --level RC " + shell_quote((dir / "nemesis.edn").string()));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "\"dropped_events\": 2")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"dropped\": [{\"reason\": \"operations of processes that are not clients (:nemesis)\", \"count\": 2}]")) << r.out;
  r = run_cli("check --level RC " + shell_quote((dir / "nemesis.edn").string()));
  EXPECT_TRUE(contains(r.out, "left out: 2 operations of processes that are not clients (:nemesis)")) << r.out;
}

// Every reason a reader leaves something out is counted apart: Elle's unobserved reads.
TEST(CliHostile, UnobservedReadsAreCountedWithTheirReason) {
  const std::string file = (fs::temp_directory_path() / "isoscope-unobserved.edn").string();
  std::ofstream(file) << "{:type :invoke, :f :txn, :value [[:r :x nil] [:w :x 1]], :process 0, :index 0}\n"
                         "{:type :fail, :f :txn, :value [[:r :x nil] [:w :x 1]], :process 0, :index 1}\n"
                         "{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :index 2}\n"
                         "{:type :ok, :f :txn, :value [[:r :x nil]], :process 1, :index 3}\n";
  const CommandResult r = run_cli("check --json --level RC " + shell_quote(file));
  EXPECT_TRUE(contains(r.out, "\"dropped_events\": 1")) << r.out;
  EXPECT_TRUE(contains(r.out, "reads whose result was never observed")) << r.out;
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

// One writer per format: `generate --format plume` refuses what plume cannot express, as
// `convert --to plume` does, and a bad --format creates no file.
TEST(CliHostile, GenerateAndConvertShareThePlumeWriter) {
  CommandResult r = run_cli("generate --sessions 4 --txns 50 --unknown-ratio 0.5 --format plume -");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "plume cannot express a transaction of unknown outcome")) << r.err;
  const std::string out = (fs::temp_directory_path() / "isoscope-no-such-format.out").string();
  fs::remove(out);
  r = run_cli("generate --format csv " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_FALSE(fs::exists(out));
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

// A folder (or zip) whose files are histories of different formats is an error naming each,
// never one format read and the others silently ignored.
TEST(CliHostile, MixedFormatsNameEachFile) {
  const fs::path fixtures = fs::path(ISOSCOPE_FIXTURES) / "formats";
  const fs::path dir = fs::temp_directory_path() / "isoscope-mixed";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(fixtures / "lost-update.json", dir / "a.json");
  fs::copy_file(fixtures / "lost-update.plume.txt", dir / "b.txt");
  fs::copy_file(fixtures / "cobra" / "T1.log", dir / "T1.log");
  fs::copy_file(fixtures / "cobra" / "T2.log", dir / "T2.log");
  const CommandResult r = run_cli("check " + shell_quote(dir.string()));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "these files hold histories of different formats")) << r.err;
  EXPECT_TRUE(contains(r.err, "T1.log and 1 more are cobra")) << r.err;
  EXPECT_TRUE(contains(r.err, "a.json is isoscope")) << r.err;
  EXPECT_TRUE(contains(r.err, "b.txt is plume")) << r.err;
  // a Cobra folder with a README still reads as Cobra logs
  fs::remove(dir / "a.json");
  fs::remove(dir / "b.txt");
  std::ofstream(dir / "README.md") << "# the logs of run 7\n";
  EXPECT_NE(run_cli("check " + shell_quote(dir.string())).status, 2);
}
