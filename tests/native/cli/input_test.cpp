// What the command line reads: peers' files as their tools load them, what a reader leaves out
// counted with its reason, folders of mixed formats, and archives (zip, gzip, tar) to check and
// to convert.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "archive_writer.h"
#include "test_util.h"

namespace fs = std::filesystem;

// Peers' files load as their tools load them: Elle histories with ; comments, without :f and
// without :process; operations of :nemesis are counted, never silently dropped.
TEST(CliInput, ElleFilesLoadAsElleLoadsThem) {
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
TEST(CliInput, UnobservedReadsAreCountedWithTheirReason) {
  const std::string file = (fs::temp_directory_path() / "isoscope-unobserved.edn").string();
  std::ofstream(file) << "{:type :invoke, :f :txn, :value [[:r :x nil] [:w :x 1]], :process 0, :index 0}\n"
                         "{:type :fail, :f :txn, :value [[:r :x nil] [:w :x 1]], :process 0, :index 1}\n"
                         "{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :index 2}\n"
                         "{:type :ok, :f :txn, :value [[:r :x nil]], :process 1, :index 3}\n";
  const CommandResult r = run_cli("check --json --level RC " + shell_quote(file));
  EXPECT_TRUE(contains(r.out, "\"dropped_events\": 1")) << r.out;
  EXPECT_TRUE(contains(r.out, "reads whose result was never observed")) << r.out;
}

// A folder (or zip) whose files are histories of different formats is an error naming each,
// never one format read and the others silently ignored.
TEST(CliInput, MixedFormatsNameEachFile) {
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

TEST(CliInput, ChecksAndConvertsArchives) {
  SKIP_WITHOUT_CORPUS();
  LoadedFiles g2 = load_path(corpus_dir() + "/cobra/cock-G2");
  std::vector<ZipEntry> entries;
  for (size_t i = 0; i < g2.files.size(); ++i) entries.push_back(deflated("cock-G2/" + std::string(g2.files[i].base_name()), g2.storage[i]));
  const std::string zip = temp_file("cock-G2.zip", make_zip(entries));
  CommandResult r = run_cli("check --json " + shell_quote(zip));
  EXPECT_EQ(r.status, 1) << r.err;  // the G2 anomaly: SER fails
  EXPECT_TRUE(contains(r.out, "\"format\": \"cobra\"")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"transactions\": 446")) << r.out;
  EXPECT_EQ(run_cli("check --level RC,RA,CC " + shell_quote(zip)).status, 0);

  const std::string gz = temp_file("serial.json.gz", make_gzip(slurp(corpus_dir() + "/textbook/serial.json")));
  r = run_cli("check " + shell_quote(gz));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(run_cli("check - < " + shell_quote(gz)).status, 0);  // stdin: by content

  const std::string out = temp_file("from-zip.json", "");
  r = run_cli("convert --to isoscope " + shell_quote(zip) + " " + shell_quote(out));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(run_cli("check --json " + shell_quote(out)).out, "\"transactions\": 446"));

  std::string damaged = make_zip(entries);
  damaged.resize(damaged.size() / 2);
  const std::string bad = temp_file("damaged.zip", damaged);
  r = run_cli("check " + shell_quote(bad));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "damaged.zip")) << r.err;
  EXPECT_TRUE(contains(r.err, "byte")) << r.err;
  const std::string tar = tar_of("logs/T1.log");
  r = run_cli("check " + shell_quote(temp_file("logs.tar", tar)));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "tar")) << r.err;
}
