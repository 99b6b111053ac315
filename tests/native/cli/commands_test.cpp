// Each command's contract, a suite per command: `check` (exit statuses, stdin, level selection,
// the summary, --initial, folders of histories), `convert` (round trips, exact times, what each
// writer can hold), `generate`, `levels` and `run` (its files and its messages).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "model/levels.h"
#include "stale_read.h"
#include "test_util.h"

namespace fs = std::filesystem;
using namespace isoscope;

namespace {

// tests/fixtures/formats (CMake passes ISOSCOPE_FIXTURES).
const fs::path kCliFormatFixtures = fs::path(ISOSCOPE_FIXTURES) / "formats";

std::string slurp_run_output(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST(CliCheck, ThinAirReadExitsOneAndNamesTheRead) {
  SKIP_WITHOUT_CORPUS();
  CommandResult r = run_cli("check --json " + shell_quote(corpus_dir() + "/textbook/thin-air-read.json"));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("\"ThinAirRead\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("r(x, 5)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"levels\""), std::string::npos);
}

TEST(CliCheck, StdinAndLevelSelection) {
  SKIP_WITHOUT_CORPUS();
  CommandResult r = run_cli("check --json --level RC,SER - < " +
                            shell_quote(corpus_dir() + "/textbook/thin-air-read.json"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("\"RC\""), std::string::npos);
  EXPECT_NE(r.out.find("\"SER\""), std::string::npos);
  EXPECT_EQ(r.out.find("\"RA\""), std::string::npos);
}

TEST(CliCheck, SummaryUniqueValuesAndValueRange) {
  const std::string path = temp_file("repeated.json", R"({"initial": 0, "sessions": [[[["w","x",5]]], [[["w","x",5]]],
                                                          [[["r","x",5]]]]})");
  CommandResult r = run_cli("check " + shell_quote(path));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("repeated values: 1 (key, value) pairs written more than once; 1 reads may read from more than one write"),
            std::string::npos) << r.out;
  r = run_cli("check --json " + shell_quote(path));
  EXPECT_NE(r.out.find("\"ambiguous_reads\": 1"), std::string::npos) << r.out.substr(0, 800);
  r = run_cli("check --unique-values " + shell_quote(path));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("written with value 5 twice"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("repeated.json"), std::string::npos) << r.err;
  // A folder of several histories: each is refused on its own, and a register history (LIN
  // reads no reads-from) is not.
  const std::filesystem::path set = std::filesystem::path(path).parent_path() / "repeated-set";
  std::filesystem::create_directories(set);
  std::filesystem::copy_file(path, set / "a.json", std::filesystem::copy_options::overwrite_existing);
  std::ofstream(set / "b.json") << R"({"initial": 0, "sessions": [[[["w","x",5]]], [[["r","x",5]]]]})";
  r = run_cli("check --json --unique-values " + shell_quote(set.string()));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("written with value 5 twice"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(R"("history": "b.json", "input")"), std::string::npos) << r.out;
  const std::string reg = temp_file("register.edn", "{:process 0, :type :invoke, :f :write, :value 1}\n{:process 0, :type :ok, :f :write, :value 1}\n"
                                                    "{:process 1, :type :invoke, :f :write, :value 1}\n{:process 1, :type :ok, :f :write, :value 1}\n");
  r = run_cli("check --unique-values " + shell_quote(reg));
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  // generate --value-range: a concurrent run whose reads are ambiguous, still serializable.
  const std::string gen = temp_file("gen.json", "");
  r = run_cli("generate --engine ser --sessions 20 --txns 20 --value-range 4 " + shell_quote(gen));
  ASSERT_EQ(r.status, 0) << r.err;
  r = run_cli("check --level SER,SSER " + shell_quote(gen));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("reads may read from more than one write"), std::string::npos) << r.out;
  r = run_cli("generate --mt serial --value-range 4 -");
  EXPECT_EQ(r.status, 2);
}

TEST(CliCheck, TheCommandLineGivesObjectsAnInitialValue) {
  const std::string file = std::string(ISOSCOPE_FIXTURES) + "/jepsen/knossos-multi-register.edn";
  EXPECT_EQ(run_cli("check --level LIN " + file).status, 1);
  const CommandResult r = run_cli("check --level LIN --initial 0 " + file);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("every object starts as 0 (--initial)"), std::string::npos) << r.out;
  const CommandResult json = run_cli("check --level LIN --initial 0 --json " + file);
  EXPECT_EQ(json.status, 0);
  EXPECT_NE(json.out.find("\"initial\": 0,"), std::string::npos) << json.out;  // the report says so
  const CommandResult missing = run_cli("check --initial");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("--initial needs"), std::string::npos) << missing.err;
}

TEST(CliCheck, DirPrintsATableAndTheWorstStatus) {
  const fs::path dir = fs::temp_directory_path() / "isoscope-history-set";
  fs::remove_all(dir);
  fs::create_directories(dir / "hist-00000");
  fs::create_directories(dir / "hist-00001");
  fs::copy_file(kCliFormatFixtures / "lost-update.json", dir / "hist-00000" / "h.json");
  std::ofstream(dir / "hist-00001" / "h.json") << R"({"sessions": [[ [["w","x",1]] ], [ [["r","x",1]] ]]})";
  CommandResult r = run_cli("check --level RC,SER " + shell_quote(dir.string()));
  EXPECT_EQ(r.status, 1) << r.out << r.err;  // the worst: one history fails SER
  EXPECT_NE(r.out.find("2 histories"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hist-00000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hist-00001"), std::string::npos) << r.out;
  r = run_cli("check --json --level SER " + shell_quote(dir.string()));
  EXPECT_NE(r.out.find("{\"histories\": ["), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("{\"history\": \"hist-00001\", \"input\""), std::string::npos) << r.out;
  // a history that cannot be read makes the set an input error
  std::ofstream(dir / "hist-00001" / "h.json") << R"({"sessions": [[ [["w","x",1]] ], [ [["r","x",)";
  fs::create_directories(dir / "hist-00002");
  fs::copy_file(kCliFormatFixtures / "lost-update.json", dir / "hist-00002" / "h.json");
  r = run_cli("check --level SER " + shell_quote(dir.string()));
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  fs::remove_all(dir);
}

TEST(CliConvert, ToIsoscopeAndBack) {
  SKIP_WITHOUT_CORPUS();
  std::string out = temp_file("converted.json", "");
  CommandResult r = run_cli("convert --to isoscope " + shell_quote(corpus_dir() + "/textbook/long-fork.json") + " " + shell_quote(out));
  EXPECT_EQ(r.status, 0) << r.err;
  CommandResult again = run_cli("check --json " + shell_quote(out));
  EXPECT_NE(again.out.find("\"transactions\": 4"), std::string::npos) << again.out;
}

// The CLI's convert, end to end: the output file's times are the input's digits.
TEST(CliConvert, KeepsTimesExactly) {
  const std::string in = temp_file("epoch-ns.edn", stale_elle_edn());
  CommandResult r = run_cli("convert --to isoscope " + shell_quote(in) + " -");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"start\": " + kT2Start + ", \"end\": " + kT2End), std::string::npos) << r.out;
  const std::string back = temp_file("epoch-ns.json", r.out);
  CommandResult c = run_cli("check --level SER,SSER " + shell_quote(back));
  EXPECT_NE(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("SSER  fail"), std::string::npos) << c.out;
}

TEST(CliConvert, RefusesAnEndBeforeItsStart) {
  const std::string in = temp_file("backwards.edn",
                                   "{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 20}\n"
                                   "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time 10}\n");
  CommandResult r = run_cli("convert --to isoscope " + shell_quote(in) + " -");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
}

TEST(CliConvert, WritesOnlyWhatCheckReadsBack) {
  const std::string file = std::string(ISOSCOPE_FIXTURES) + "/jepsen/knossos-bad-analysis.edn";
  const std::string out = temp_file("isoscope-convert-objects.out", "");
  for (const char* to : {"isoscope", "plume"}) {
    SCOPED_TRACE(to);
    const CommandResult r = run_cli(std::string("convert --to ") + to + " " + file + " " + out);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("--to jepsen"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("(a register)"), std::string::npos) << r.err;
  }
  CommandResult r = run_cli("convert --to jepsen " + file + " " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  r = run_cli("check --level LIN " + out);
  EXPECT_EQ(r.status, 1) << r.out << r.err;  // Knossos's verdict: invalid
  EXPECT_NE(r.out.find("jepsen"), std::string::npos) << r.out;
  // Jepsen EDN holds no transactions.
  const std::string txns = temp_file("isoscope-convert-txns.json", "{\"sessions\": [[[[\"w\", 1, 1]]]]}");
  r = run_cli("convert --to jepsen " + txns + " " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--to isoscope"), std::string::npos) << r.err;
}

TEST(CliGenerate, MiniTransactionAndLightweightWorkloads) {
  const std::string mt = temp_file("mt.json", "");
  ASSERT_EQ(run_cli("generate --mt serial --sessions 4 --txns 200 --keys 20 --seed 7 " + shell_quote(mt)).status, 0);
  CommandResult r = run_cli("check --json --level SI,SER,SSER " + shell_quote(mt));
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"mini_transactions\": true"), std::string::npos);

  const std::string lwt = temp_file("lwt.json", "");
  ASSERT_EQ(run_cli("generate --lwt --sessions 4 --txns 300 --keys 10 " + shell_quote(lwt)).status, 0);
  EXPECT_EQ(run_cli("check --level LIN " + shell_quote(lwt)).status, 0);
  ASSERT_EQ(run_cli("generate --lwt --stale-ratio 0.3 --sessions 4 --txns 300 --keys 10 " + shell_quote(lwt)).status, 0);
  EXPECT_EQ(run_cli("check --level LIN " + shell_quote(lwt)).status, 1);

  EXPECT_EQ(run_cli("generate --mt bogus -").status, 2);
  EXPECT_EQ(run_cli("generate --target inject=Nope -").status, 2);
  EXPECT_EQ(run_cli("generate --sessions 1 --target inject=LongFork -").status, 2);
}

// One writer per format: `generate --format plume` refuses what plume cannot express, as
// `convert --to plume` does, and a bad --format creates no file.
TEST(CliGenerate, GenerateAndConvertShareThePlumeWriter) {
  CommandResult r = run_cli("generate --sessions 4 --txns 50 --unknown-ratio 0.5 --format plume -");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.err, "plume cannot express a transaction of unknown outcome")) << r.err;
  const std::string out = (fs::temp_directory_path() / "isoscope-no-such-format.out").string();
  fs::remove(out);
  r = run_cli("generate --format csv " + out);
  EXPECT_EQ(r.status, 2);
  EXPECT_FALSE(fs::exists(out));
}

// `isoscope levels --json` (the web app's level names, texts and lattice) lists every level in
// the enum's order with its texts, and what each implies is the core's lattice.
TEST(CliLevels, ListsEveryLevelWithItsTextsAndTheLattice) {
  const CommandResult r = run_cli("levels --json");
  ASSERT_EQ(r.status, 0) << r.err;
  simdjson::dom::parser parser;
  simdjson::dom::array levels;
  ASSERT_EQ(parser.parse(r.out).get(levels), simdjson::SUCCESS) << r.out;
  ASSERT_EQ(levels.size(), static_cast<size_t>(kNumLevels));
  auto text = [](simdjson::simdjson_result<simdjson::dom::element> e) {
    std::string_view v;
    return e.get(v) == simdjson::SUCCESS ? std::string(v) : std::string("<not a string>");
  };
  int i = 0;
  for (simdjson::dom::element e : levels) {
    const Level l = static_cast<Level>(i++);
    EXPECT_EQ(text(e["name"]), level_name(l));
    EXPECT_EQ(text(e["title"]), level_title(l));
    EXPECT_GT(text(e["summary"]).size(), 20u) << level_name(l);
    EXPECT_EQ(text(e["group"]), is_transactional(l) ? "transactional" : is_causal_model(l) ? "causal" : "linearizability");
    std::set<std::string> implied, weaker;
    simdjson::dom::array implies;
    ASSERT_EQ(e["implies"].get(implies), simdjson::SUCCESS) << level_name(l);
    for (simdjson::dom::element w : implies) { std::string_view v; implied.insert(w.get(v) == simdjson::SUCCESS ? std::string(v) : "<not a string>"); }
    for (int k = 0; k < kNumLevels; ++k)
      if (is_weaker(static_cast<Level>(k), l)) weaker.insert(level_name(static_cast<Level>(k)));
    EXPECT_EQ(implied, weaker) << level_name(l);
  }
  const CommandResult table = run_cli("levels");
  EXPECT_EQ(table.status, 0);
  EXPECT_TRUE(contains(table.out, "SI    Snapshot isolation")) << table.out;
  EXPECT_EQ(run_cli("levels --xml").status, 2);
}

// The whole command: `isoscope run` with no target (a fresh SQLite file in $TMPDIR) and --out,
// with links planted at the names a process of its pid would use, before it starts: the
// SQLite file ($TMPDIR/isoscope-run-<pid>.sqlite and its -wal, -shm, -journal) and the
// history's temporary file (PATH.tmp<pid>). No file they point to is written or made.
TEST(CliRun, WritesNothingThroughPlantedLinks) {
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
  EXPECT_EQ(slurp_run_output(victim), "precious");
  EXPECT_EQ(fs::file_size(empty), 0u);
  for (const char* suffix : {"-wal", "-shm", "-journal"}) EXPECT_FALSE(fs::exists(d / ("made" + std::string(suffix)))) << suffix;
  EXPECT_NE(slurp_run_output(out).find("\"committed\": 10"), std::string::npos);
  // The run's own SQLite folder is gone; the planted links are left as they were.
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(tmp)) entries += fs::is_symlink(e.path()) ? 0 : 1;
  EXPECT_EQ(entries, 0u);
}

// The command line's messages never quote a password: a mistyped scheme, a target given twice,
// a bad port or parameter, an unreachable server.
TEST(CliRun, MessagesNeverPrintThePassword) {
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

// --rate N: N transactions begun a second over all the sessions, recorded; a session never begins
// more than one an interval (sessions/N s), whatever the machine's speed, so in the run's
// seconds the sessions begin at most rate x seconds + one each.
TEST(CliRun, RateBoundsTheTransactionsBegun) {
  const fs::path d = fresh_dir("run-rate"), out = d / "h.json";
  const CommandResult r = run_cli("run --rate 40 --sessions 4 --duration 1 --out " + shell_quote(out.string()));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string h = slurp_run_output(out);
  const auto number = [&](const char* name) {
    const size_t at = h.find(std::string("\"") + name + "\": ");
    return at == std::string::npos ? -1.0 : std::strtod(h.c_str() + at + std::strlen(name) + 4, nullptr);
  };
  EXPECT_EQ(number("rate"), 40);
  const double begun = number("committed") + number("aborted") + number("unknown"), seconds = number("seconds");
  EXPECT_GT(begun, 0);
  EXPECT_LE(begun, 40 * seconds + 4) << h.substr(h.find("\"recorded_by\""), 400);
  for (const char* bad : {"--rate 0", "--rate -1", "--rate x", "--rate"}) {
    const CommandResult b = run_cli(std::string("run ") + bad);
    EXPECT_EQ(b.status, 2) << bad;
    EXPECT_NE(b.err.find("--rate needs transactions a second"), std::string::npos) << bad << ": " << b.err;
  }
}

// --list-append moves a key slot on to a fresh key after --max-writes-per-key appends (Elle's
// rotation): later keys are in use and read, and the history is still serializable on SQLite.
// Most keys take at most the limit and what the other sessions planned meanwhile (on SQLite a
// session making the next keys can wait a while for the database's lock, which two sessions that
// begin again at once keep from it: its slots' keys take more then). With 0 the keys stay
// 0..keys-1; the option is the list-append workload's alone.
TEST(CliRun, ListAppendMovesOnToFreshKeys) {
  const fs::path d = fresh_dir("run-list-keys");
  const auto appends_per_key = [](const std::string& h) {
    std::map<long long, int> n;
    for (size_t at = 0; (at = h.find("[\"append\", ", at)) != std::string::npos; ++at) n[std::atoll(h.c_str() + at + 11)]++;
    return n;
  };
  const fs::path out = d / "h.json";
  const CommandResult r = run_cli("run --list-append --sessions 3 --txns 60 --ops 2-4 --keys 2 --max-writes-per-key 3 --seed 5 --json --out " +
                                  shell_quote(out.string()));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"SER\": {\"verdict\": \"pass\""), std::string::npos) << r.out.substr(0, 2000);
  const std::string h = slurp_run_output(out);
  EXPECT_NE(h.find("\"max_writes_per_key\": 3"), std::string::npos);
  const std::map<long long, int> n = appends_per_key(h);
  ASSERT_GT(n.size(), 6u) << "the slots moved on";
  size_t within = 0;
  for (const auto& [key, count] : n) within += count <= 3 + 3 * 4;
  EXPECT_GE(within * 4, n.size() * 3) << within << " of " << n.size() << " keys";
  // The fresh keys are read too.
  bool read_fresh = false;
  for (size_t at = 0; !read_fresh && (at = h.find("[\"r\", ", at)) != std::string::npos; ++at) read_fresh = std::atoll(h.c_str() + at + 6) >= 2;
  EXPECT_TRUE(read_fresh);

  const fs::path still = d / "still.json";
  const CommandResult s = run_cli("run --list-append --sessions 3 --txns 30 --keys 2 --max-writes-per-key 0 --seed 5 --out " + shell_quote(still.string()));
  ASSERT_EQ(s.status, 0) << s.err;
  const std::map<long long, int> m = appends_per_key(slurp_run_output(still));
  ASSERT_FALSE(m.empty());
  EXPECT_LE(m.rbegin()->first, 1) << "keys 0 and 1 only";
  for (const char* bad : {"--max-writes-per-key 3", "--mt --max-writes-per-key 3", "--list-append --max-writes-per-key -1",
                          "--list-append --max-writes-per-key x"}) {
    const CommandResult b = run_cli(std::string("run ") + bad);
    EXPECT_EQ(b.status, 2) << bad;
    EXPECT_NE(b.err.find("--max-writes-per-key"), std::string::npos) << bad << ": " << b.err;
  }
}

// --predicates on a fresh SQLite file: a table whose rows come and go, recorded as a table
// (rows at the start, selects, inserts, deletes), serializable; and the options it refuses.
TEST(CliRun, PredicatesRecordATable) {
  const fs::path d = fresh_dir("run-predicates"), out = d / "h.json";
  const CommandResult r = run_cli("run --predicates --sessions 3 --txns 20 --keys 6 --seed 4 --json --out " + shell_quote(out.string()));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"SER\": {\"verdict\": \"pass\""), std::string::npos) << r.out.substr(0, 2000);
  const std::string h = slurp_run_output(out);
  EXPECT_EQ(h.rfind("{\"format\": \"isoscope/1\", \"rows\": [[", 0), 0u) << h.substr(0, 200);
  EXPECT_NE(h.find("\"workload\": \"predicates\""), std::string::npos);
  EXPECT_NE(h.find("\"predicate_writes\": {\"update\": \"returning\", \"delete\": \"returning\"}"), std::string::npos);
  EXPECT_NE(h.find("_rows\""), std::string::npos) << "its table is isoscope_run_<id>_rows";
  for (const char* op : {"[\"select\", \"", "[\"insert\", ", "[\"delete\", ", "[\"update\", ", ", null]"})
    EXPECT_NE(h.find(op), std::string::npos) << op;
  EXPECT_NE(h.find("\"committed\": 60"), std::string::npos);
  // The same verdicts from the file.
  const CommandResult again = run_cli("check --level SER " + shell_quote(out.string()));
  EXPECT_EQ(again.status, 0) << again.out;
  for (const char* args : {"--predicates --mt", "--lwt --predicates", "--predicates --list-append", "--predicates --mix cobra",
                           "--predicates --sessions 1000 --txns 1000 --keys 1000"}) {
    const CommandResult bad = run_cli(std::string("run ") + args);
    EXPECT_EQ(bad.status, 2) << args;
    EXPECT_NE(bad.err.find("usage:"), std::string::npos) << args << ": " << bad.err;
  }
}
