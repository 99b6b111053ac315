// Hostile input, second round (issue 22, classes 4, 10, 13): nesting of every kind in every
// reader, tar look-alikes, hidden files in folders (classes 14 and 15, a folder's errors and its
// special files, are the command line's: cli/hostile_test.cpp). Each test fails on the code
// before its fix.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "formats/archive.h"
#include "formats/formats.h"
#include "test_util.h"

using namespace isoscope;

namespace {
namespace fs = std::filesystem;

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

const std::string kEdnOps =
    "{:type :invoke, :f :txn, :value [[:append :x 1]], :process 0, :time 1, :index 0}\n"
    "{:type :ok, :f :txn, :value [[:append :x 1]], :process 0, :time 2, :index 1}\n"
    "{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :time 3, :index 2}\n"
    "{:type :ok, :f :txn, :value [[:r :x [1]]], :process 1, :time 4, :index 3}\n";

// Every construct that nests, or that a recursive reader might follow one level per repetition.
const std::vector<std::string> kConstructs = {
    "[", "{", "(", "#{", "#_ ", "#_ 1 ", "#_ [] ", "#inst ", "#inst \"2020\" ", "#tag ", "#jepsen.history.Op",
    "^:m ", "^", "{\"a\": ", "[[", "\"", ";", "//", "#", "]", "r(", "---\n", "[x:=1 ", "{\"sessions\": [",
};

}  // namespace

// Class 4: a very long run of any one construct gives a located error or a correct parse, in
// every reader (and by detection), never a crash: nesting counts toward a depth limit or the
// reader loops.
TEST(HostileInput, EveryReaderSurvivesLongRunsOfOneConstruct) {
  for (const std::string& c : kConstructs) {
    const std::string input = repeat(c, 200000 / c.size() + 1);
    std::vector<std::string> formats = {""};
    for (const FormatInfo& f : all_formats()) formats.push_back(f.name);
    for (const std::string& format : formats) {
      Expected<History> h = read_one(format == "cobra" ? "T1.log" : "h.txt", input, format);
      if (h.ok()) continue;
      EXPECT_FALSE(h.error().message.empty()) << "'" << c << "' as " << format;
    }
    // The same run inside an Elle operation's value.
    Expected<History> h = read_one("h.edn", "{:type :ok, :f :txn, :process 0, :value " + input, "elle");
    ASSERT_FALSE(h.ok());
    EXPECT_GE(h.error().line, 1) << "'" << c << "': " << h.error().to_string();
  }
}

// Class 4: discards are white space, however many there are; so are tags; a discard of a
// discard nests and meets the depth limit with a location.
TEST(HostileInput, EdnDiscardsAndTagsOfAnyLength) {
  for (const std::string& run : {repeat("#_ 1 ", 40000), repeat("#_[:x] ", 40000), repeat("#_ {:a 1 #_ :b :c 2} ", 20000)}) {
    Expected<History> h = read_one("h.edn", run + kEdnOps, "elle");
    ASSERT_TRUE(h.ok()) << h.error().to_string();
    EXPECT_EQ(h->format, "elle");
    EXPECT_EQ(h->num_txns(), 2u);
    h = read_one("h.edn", "[" + run + kEdnOps + run + "]" + run, "elle");  // inside and after the vector
    ASSERT_TRUE(h.ok()) << h.error().to_string();
    EXPECT_EQ(h->num_txns(), 2u);
  }
  // Tags (#inst, #uuid, any #tag) in a run before a value; discards inside values.
  Expected<History> h = read_one(
      "h.edn",
      repeat("#a.b/c ", 50000) + "{:type :ok, :f :txn, :value [#_ 7 [:append :x 1 #_ 9] #_ [:bogus]], "
                                 ":process 0, :time #inst #uuid 5 #_ 1}\n",
      "elle");
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->num_txns(), 1u);
  EXPECT_EQ(h->op_text(static_cast<uint32_t>(h->num_ops() - 1)), "append(x, 1)");  // the discarded [:bogus] is no op
  for (const std::string& deep : {repeat("#_ ", 50000) + "1", repeat("#{", 50000), repeat("{:a ", 50000)}) {
    h = read_one("h.edn", deep, "elle");
    ASSERT_FALSE(h.ok());
    EXPECT_TRUE(contains(h.error().message, "nest too deeply")) << h.error().to_string();
    EXPECT_EQ(h.error().line, 1);
  }
  // The command line that crashed (SIGSEGV) on 40,000 discards. Detection looks at the first
  // 4 KB only; the diagnosis then finds that the Elle reader reads it.
  const std::string discards = temp_file("discards.edn", repeat("#_ 1 ", 40000) + kEdnOps);
  CommandResult r = run_cli("check --level RC " + shell_quote(discards));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--format elle")) << r.err;
  r = run_cli("check --level RC --format elle " + shell_quote(discards));
  EXPECT_EQ(r.status, 0) << r.err;
  r = run_cli("check " + shell_quote(temp_file("nested-discards.edn", repeat("#_ ", 40000) + kEdnOps)));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "nest too deeply")) << r.err;
}

// Class 10: "ustar" at byte 257 makes a tar only with a valid header checksum, and a format the
// user names wins over a tar header.
TEST(HostileInput, UstarAt257IsATarOnlyWithItsChecksum) {
  std::string json = "{\"format\": \"isoscope/1\", \"sessions\": [[[[\"w\", \"x\", 1]]]], \"pad\": \"";
  json += std::string(257 - json.size(), 'a') + "ustar" + std::string(300, 'b') + "\"}";
  ASSERT_EQ(json.substr(257, 5), "ustar");
  EXPECT_EQ(archive_kind(json), ArchiveKind::None);
  for (const char* format : {"", "isoscope"}) {
    Expected<History> h = read_one("h.json", json, format);
    ASSERT_TRUE(h.ok()) << format << ": " << h.error().to_string();
    EXPECT_EQ(h->num_txns(), 1u);
  }
  std::string edn = "; " + std::string(255, 'x') + "ustar" + std::string(300, ' ') + "\n" + kEdnOps;
  ASSERT_EQ(edn.substr(257, 5), "ustar");
  for (const char* format : {"", "elle"}) {
    Expected<History> h = read_one("h.edn", edn, format);
    ASSERT_TRUE(h.ok()) << format << ": " << h.error().to_string();
    EXPECT_EQ(h->num_txns(), 2u);
  }
  CommandResult r = run_cli("check --level RC " + shell_quote(temp_file("ustar.json", json)));
  EXPECT_EQ(r.status, 0) << r.err;
  r = run_cli("check --level RC --format elle " + shell_quote(temp_file("ustar.edn", edn)));
  EXPECT_EQ(r.status, 0) << r.err;

  // A real tar (GNU tar's own header) is still recognised, and refused unless a format is named.
  const fs::path d = fresh_dir("tar");
  std::ofstream(d / "h.json") << "{\"sessions\": [[[[\"w\", \"x\", 1]]]]}";
  ASSERT_EQ(std::system(("tar -C " + shell_quote(d.string()) + " -cf " + shell_quote((d / "h.tar").string()) + " h.json").c_str()), 0);
  const std::string tar = slurp(d / "h.tar");
  EXPECT_EQ(archive_kind(tar), ArchiveKind::Tar);
  Expected<History> h = read_one("h.tar", tar);
  ASSERT_FALSE(h.ok());
  EXPECT_TRUE(contains(h.error().message, "tar archive")) << h.error().to_string();
  h = read_one("h.tar", tar, "isoscope");
  ASSERT_FALSE(h.ok());
  EXPECT_FALSE(contains(h.error().message, "tar archive")) << h.error().to_string();  // the JSON reader's own error
  std::string damaged = tar;
  damaged[0] ^= 1;  // the checksum no longer holds
  EXPECT_EQ(archive_kind(damaged), ArchiveKind::None);
}

// Class 13: a folder's dot files and __MACOSX are skipped, as in zips, on the command line and
// in the core (whichever front end lists a folder).
TEST(HostileInput, HiddenFilesInFoldersAreSkipped) {
  const fs::path d = fresh_dir("hidden");
  std::ofstream(d / "h.json") << "{\"sessions\": [[[[\"w\", \"x\", 1]]], [[[\"r\", \"x\", 1]]]]}";
  std::ofstream(d / ".DS_Store") << std::string("\0\0\0\1Bud1", 8);
  std::ofstream(d / "._h.json") << "junk";
  fs::create_directories(d / "__MACOSX");
  std::ofstream(d / "__MACOSX" / "._h.json") << "junk";
  CommandResult r = run_cli("check --level RC " + shell_quote(d.string()));
  EXPECT_EQ(r.status, 0) << r.err;
  // An Elle history beside a dot file, through the core alone.
  std::vector<InputFile> files = {{"run/.DS_Store", "\x01\x02"}, {"run/history.edn", kEdnOps}};
  Expected<History> h = read_history(files);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->format, "elle");
  files = {{"run/.DS_Store", "x"}, {"run/.hidden", "y"}};
  h = read_history(files);
  ASSERT_FALSE(h.ok());
  EXPECT_TRUE(contains(h.error().message, "only hidden files")) << h.error().to_string();
}
