// The Jepsen readers against hostile records (issue 35, classes 1, 2, 12 and 13):
//   1  a :process that is neither an integer nor :nemesis is a located input error (it used to
//      be taken for the nemesis: its operations were left out and LIN passed);
//   2  no process a user can write meets a reader's own marks (jepsen-log's INT64_MIN meant
//      "not a client"; :index -1 meant "no index");
//   12 a completion nobody invoked is a located error (it used to be "invoked at
//      -2305843009213693952 ns"), and a time at the int64 maximum is a time (not "never");
//   13 every operation LIN's counterexample names carries its line in the file, and its :index
//      where the history has one, in the explanation and in the result JSON.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "checkers/check.h"
#include "formats/formats.h"
#include "report/result_json.h"
#include "test_util.h"

using namespace isoscope;

namespace {

Expected<History> read_as(const std::string& text, const char* format = "", const char* name = "h.edn") {
  InputFile f{name, text};
  return read_history(std::span<const InputFile>(&f, 1), format);
}

const LevelResult& lin(const CheckReport& r) { return r.results[static_cast<int>(Level::LIN)]; }

CheckReport check_lin(const History& h) {
  CheckOptions o;
  o.levels = {Level::LIN};
  return check_history(h, o);
}

// A register history that is not linearizable: process 0 writes 1, then process 1 reads 2,
// which nobody wrote. `p1` is how the reading process is written.
std::string edn_stale(const std::string& p1) {
  return "{:type :invoke, :f :write, :value 1, :process 0}\n"
         "{:type :ok, :f :write, :value 1, :process 0}\n"
         "{:type :invoke, :f :read, :value nil, :process " + p1 + "}\n"
         "{:type :ok, :f :read, :value 2, :process " + p1 + "}\n";
}

std::string json_stale(const std::string& p0, const std::string& p1) {
  return "[{\"type\": \"invoke\", \"f\": \"write\", \"value\": 1, \"process\": " + p0 + "},\n"
         " {\"type\": \"ok\", \"f\": \"write\", \"value\": 1, \"process\": " + p0 + "},\n"
         " {\"type\": \"invoke\", \"f\": \"read\", \"value\": null, \"process\": " + p1 + "},\n"
         " {\"type\": \"ok\", \"f\": \"read\", \"value\": 2, \"process\": " + p1 + "}]\n";
}

std::string log_stale(const std::string& p1) {
  return "INFO  jepsen.util - 0\t:invoke\t:write\t1\n"
         "INFO  jepsen.util - 0\t:ok\t:write\t1\n"
         "INFO  jepsen.util - " + p1 + "\t:invoke\t:read\tnil\n"
         "INFO  jepsen.util - " + p1 + "\t:ok\t:read\t2\n";
}

void expect_process_error(const Expected<History>& h, int64_t line, const std::string& context) {
  SCOPED_TRACE(context);
  ASSERT_FALSE(h.ok()) << "read (format " << h->format << ", LIN " << verdict_name(lin(check_lin(*h)).verdict) << ")";
  EXPECT_EQ(h.error().line, line) << h.error().to_string();
  EXPECT_NE(h.error().message.find("process"), std::string::npos) << h.error().to_string();
  EXPECT_NE(h.error().message.find("nemesis"), std::string::npos) << h.error().to_string();
}

}  // namespace

// ---- class 1: a :process that names neither a client nor the nemesis ----------------------------

TEST(HostileReaders, JepsenProcessThatIsNoIntegerIsAnError) {
  for (const char* p : {"\"1\"", "nil", "1.5", ":client", "[1]", "\"nemesis\"", "nemesis", "{:a 1}", "true"}) {
    expect_process_error(read_as(edn_stale(p)), 3, std::string("EDN :process ") + p);
    expect_process_error(read_as(edn_stale(p), "jepsen"), 3, std::string("EDN as jepsen, :process ") + p);
  }
  // The nemesis itself still is no client: its records are counted, the rest is checked.
  Expected<History> h = read_as(edn_stale("1") + "{:type :info, :f :start, :value nil, :process :nemesis}\n");
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->dropped_events, 1u);
  EXPECT_EQ(lin(check_lin(*h)).verdict, Verdict::Fail);
}

TEST(HostileReaders, JepsenJsonProcessThatIsNoIntegerIsAnError) {
  // Every process a string: it used to read as a history of nemesis records only, and pass.
  expect_process_error(read_as(json_stale("\"0\"", "\"1\""), "", "h.json"), 1, "all strings");
  for (const char* p : {"\"1\"", "null", "1.5", "[1]", "{\"a\": 1}", "true", "\":nemesis\""})
    expect_process_error(read_as(json_stale("0", p), "", "h.json"), 3, std::string("JSON process ") + p);
  // JSON writes :nemesis as "nemesis".
  Expected<History> h = read_as(json_stale("0", "1").insert(1, "{\"type\": \"info\", \"f\": \"start\", \"value\": null, \"process\": \"nemesis\"},\n"), "", "h.json");
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->format, "jepsen");
  EXPECT_EQ(h->dropped_events, 1u);
  EXPECT_EQ(lin(check_lin(*h)).verdict, Verdict::Fail);
  // The command line: an input error (2), not a pass (0).
  const std::string file = temp_file("isoscope-strings.json", json_stale("\"0\"", "\"1\""));
  const CommandResult r = run_cli("check --level LIN " + file);
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("line 1,"), std::string::npos) << r.err;
}

TEST(HostileReaders, JepsenLogProcessThatIsNoIntegerIsAnError) {
  for (const char* p : {":client", ":nemesis1", "\"1\"", "nil", "1.5", "x", "1x"})
    expect_process_error(read_as(log_stale(p), "", "h.log"), 3, std::string("log process ") + p);
  Expected<History> h = read_as(log_stale("1") + "INFO  jepsen.util - :nemesis\t:info\t:start\tnil\n", "", "h.log");
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->format, "jepsen-log");
  EXPECT_EQ(h->dropped_events, 1u);
  EXPECT_EQ(lin(check_lin(*h)).verdict, Verdict::Fail);
}

TEST(HostileReaders, ElleProcessThatIsNoIntegerIsAnError) {
  auto elle = [](const std::string& p) {
    return "{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0}\n"
           "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0}\n"
           "{:type :ok, :f :txn, :value [[:r :x 2]], :process " + p + "}\n";
  };
  for (const char* p : {"\"1\"", "nil", "1.5", ":client", "[1]", "\"nemesis\""}) {
    expect_process_error(read_as(elle(p)), 3, std::string("elle :process ") + p);
    expect_process_error(read_as(elle(p), "elle"), 3, std::string("as elle, :process ") + p);
  }
  const std::string json =
      "{\"type\": \"ok\", \"f\": \"txn\", \"value\": [[\"w\", \"x\", 1]], \"process\": \"0\"}\n"
      "{\"type\": \"ok\", \"f\": \"txn\", \"value\": [[\"r\", \"x\", 2]], \"process\": \"1\"}\n";
  expect_process_error(read_as(json, "", "h.json"), 1, "elle JSON, every process a string");
  // :nemesis (JSON "nemesis") is still the nemesis.
  Expected<History> h = read_as(elle("1") + "{:type :info, :f :kill, :value nil, :process :nemesis}\n");
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->dropped_events, 1u);
  Expected<History> j = read_as(
      "{\"type\": \"ok\", \"f\": \"txn\", \"value\": [[\"w\", \"x\", 1]], \"process\": 0}\n"
      "{\"type\": \"info\", \"f\": \"kill\", \"value\": null, \"process\": \"nemesis\"}\n",
      "", "h.json");
  ASSERT_TRUE(j.ok()) << j.error().to_string();
  EXPECT_EQ(j->format, "elle");
  EXPECT_EQ(j->dropped_events, 1u);
}

TEST(HostileReaders, OnlyNemesisRecordsStillPass) {
  for (const auto& [text, name] : std::vector<std::pair<std::string, const char*>>{
           {"{:type :info, :f :start, :value nil, :process :nemesis}\n", "h.edn"},
           {"[{\"type\": \"info\", \"f\": \"start\", \"value\": null, \"process\": \"nemesis\"}]\n", "h.json"},
           {"INFO  jepsen.util - :nemesis\t:info\t:start\tnil\n", "h.log"}}) {
    SCOPED_TRACE(text);
    Expected<History> h = read_as(text, "", name);
    ASSERT_TRUE(h.ok()) << h.error().to_string();
    EXPECT_EQ(lin(check_lin(*h)).verdict, Verdict::Pass);
  }
}

// ---- class 2: no value a user writes is a reader's mark ------------------------------------------

TEST(HostileReaders, NoProcessNumberIsTheLogReadersMark) {
  for (int64_t p : {INT64_MIN, INT64_MIN + 1, INT64_MIN / 4, INT64_MAX, int64_t{-1}}) {
    SCOPED_TRACE(p);
    Expected<History> h = read_as(log_stale(std::to_string(p)), "", "h.log");
    ASSERT_TRUE(h.ok()) << h.error().to_string();
    EXPECT_EQ(h->dropped_events, 0u);
    EXPECT_EQ(h->registers.ops.size(), 2u);
    EXPECT_EQ(lin(check_lin(*h)).verdict, Verdict::Fail);
    Expected<History> e = read_as(edn_stale(std::to_string(p)));
    ASSERT_TRUE(e.ok()) << e.error().to_string();
    EXPECT_EQ(e->registers.ops.size(), 2u);
    EXPECT_EQ(lin(check_lin(*e)).verdict, Verdict::Fail);
  }
}

TEST(HostileReaders, NoIndexIsTheReadersNoIndexMark) {
  // :index -1 is what the readers used for "no index": an operation written with it lost it.
  Expected<History> h = read_as("{:type :invoke, :f :write, :value 1, :process 0, :index -1}\n"
                                "{:type :ok, :f :write, :value 1, :process 0, :index -1}\n");
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  ASSERT_NE(h->txns[1].label, kNone);
  EXPECT_EQ(h->labels[h->txns[1].label], "-1");
  Expected<History> e = read_as("{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :index -1}\n");
  ASSERT_TRUE(e.ok()) << e.error().to_string();
  ASSERT_NE(e->txns[1].label, kNone);
  EXPECT_EQ(e->labels[e->txns[1].label], "-1");
  // An :index that is no integer is no index: a located error, not silently no label.
  for (const char* ix : {"\"3\"", "1.5", ":three", "nil"}) {
    SCOPED_TRACE(ix);
    Expected<History> bad = read_as(std::string("{:type :invoke, :f :write, :value 1, :process 0}\n"
                                                 "{:type :ok, :f :write, :value 1, :process 0, :index ") + ix + "}\n");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().line, 2) << bad.error().to_string();
    EXPECT_NE(bad.error().message.find(":index"), std::string::npos) << bad.error().to_string();
    Expected<History> bad_elle = read_as(std::string("{:type :ok, :f :txn, :value [[:w :x 1]], :process 0}\n"
                                                      "{:type :ok, :f :txn, :value [[:w :x 2]], :process 0, :index ") + ix + "}\n");
    ASSERT_FALSE(bad_elle.ok());
    EXPECT_EQ(bad_elle.error().line, 2) << bad_elle.error().to_string();
    EXPECT_NE(bad_elle.error().message.find(":index"), std::string::npos) << bad_elle.error().to_string();
  }
}

// ---- class 12: marks shown as data ---------------------------------------------------------------

TEST(HostileReaders, ACompletionNobodyInvokedIsAnError) {
  for (const char* type : {":ok", ":fail", ":info"}) {
    SCOPED_TRACE(type);
    // Process 1 completes a read it never invoked (line 3).
    Expected<History> h = read_as(std::string("{:type :invoke, :f :write, :value 1, :process 0, :time 1}\n"
                                              "{:type :ok, :f :write, :value 1, :process 0, :time 2}\n"
                                              "{:type ") + type + ", :f :read, :value 1, :process 1, :time 3}\n");
    ASSERT_FALSE(h.ok()) << h->format;
    EXPECT_EQ(h.error().line, 3) << h.error().to_string();
    EXPECT_NE(h.error().message.find("process 1"), std::string::npos) << h.error().to_string();
    EXPECT_NE(h.error().message.find("invo"), std::string::npos) << h.error().to_string();
    // A second completion of one invocation is one too (line 4).
    Expected<History> twice = read_as(std::string("{:type :invoke, :f :write, :value 1, :process 0}\n"
                                                  "{:type :ok, :f :write, :value 1, :process 0}\n"
                                                  "{:type :invoke, :f :read, :value nil, :process 0}\n"
                                                  "{:type :ok, :f :read, :value 1, :process 0}\n"
                                                  "{:type ") + type + ", :f :read, :value 1, :process 0}\n");
    ASSERT_FALSE(twice.ok());
    EXPECT_EQ(twice.error().line, 5) << twice.error().to_string();
    Expected<History> log = read_as(std::string("INFO  jepsen.util - 0\t:invoke\t:write\t1\n"
                                                "INFO  jepsen.util - 1\t") + type + "\t:read\t1\n",
                                    "", "h.log");
    ASSERT_FALSE(log.ok());
    EXPECT_EQ(log.error().line, 2) << log.error().to_string();
  }
  // convert refuses it too (it used to write :time -2305843009213693952).
  const std::string in = temp_file("isoscope-orphan.edn", "{:type :ok, :f :write, :value 1, :process 0, :time 5}\n");
  const std::string out = temp_file("isoscope-orphan.out.edn", "");
  const CommandResult r = run_cli("convert --to jepsen " + in + " " + out);
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_EQ(r.err.find("2305843009213693952"), std::string::npos) << r.err;
}

TEST(HostileReaders, TimesAtTheEndsOfInt64AreTimes) {
  // Process 1's read of 2 returns at the largest :time there is; its invocation is at the old
  // "no invocation" mark. Both are real times, shown as such.
  const std::string text =
      "{:type :invoke, :f :write, :value 1, :process 0, :time -2305843009213693952}\n"
      "{:type :ok, :f :write, :value 1, :process 0, :time 10}\n"
      "{:type :invoke, :f :read, :value nil, :process 1, :time 20}\n"
      "{:type :ok, :f :read, :value 2, :process 1, :time 9223372036854775807}\n";
  Expected<History> h = read_as(text);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  for (uint32_t t = 1; t < h->txns.size(); ++t) EXPECT_TRUE(h->txns[t].has_time()) << t;
  const CheckReport rep = check_lin(*h);
  ASSERT_EQ(lin(rep).verdict, Verdict::Fail);
  const std::string& why = lin(rep).anomalies.at(0).explanation;
  EXPECT_EQ(why.find("never"), std::string::npos) << why;
  EXPECT_NE(why.find("9223372036854775807 ns"), std::string::npos) << why;
  EXPECT_NE(why.find("-2305843009213693952 ns"), std::string::npos) << why;
}

// ---- class 13: the counterexample's operations carry their lines and indexes ----------------------

TEST(HostileReaders, TheCounterexampleNamesLinesAndIndexes) {
  // A Jepsen log with lines that are no operations: process 3's read (lines 7 and 9) cannot
  // follow process 0's write of 5 (lines 8 and 10), the last of the prefix.
  const std::string log =
      "2017-01-01 INFO  jepsen.core - Running test\n"
      "\n"
      "INFO  jepsen.util - 0\t:invoke\t:write\t1\n"
      "INFO  jepsen.util - 0\t:ok\t:write\t1\n"
      "INFO  jepsen.util - :nemesis\t:info\t:start\tnil\n"
      "some other line\n"
      "INFO  jepsen.util - 3\t:invoke\t:read\tnil\n"
      "INFO  jepsen.util - 0\t:invoke\t:write\t5\n"
      "INFO  jepsen.util - 3\t:ok\t:read\t2\n"
      "INFO  jepsen.util - 0\t:ok\t:write\t5\n";
  Expected<History> h = read_as(log, "", "h.log");
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  const CheckReport rep = check_lin(*h);
  ASSERT_EQ(lin(rep).verdict, Verdict::Fail);
  const std::string& why = lin(rep).anomalies.at(0).explanation;
  EXPECT_NE(why.find("process 3's read 2"), std::string::npos) << why;
  EXPECT_NE(why.find("line 7"), std::string::npos) << why;
  EXPECT_NE(why.find("line 9"), std::string::npos) << why;
  EXPECT_NE(why.find("line 8"), std::string::npos) << why;  // the prefix's last operation
  EXPECT_EQ(why.find("record "), std::string::npos) << why;  // positions among records mean nothing to a reader
  // The result JSON: each transaction the anomaly names carries its lines.
  const std::string json = report_json(*h, rep, 0);
  EXPECT_NE(json.find("\"line\": 7, \"completion_line\": 9"), std::string::npos) << json;
  EXPECT_NE(json.find("\"line\": 8, \"completion_line\": 10"), std::string::npos) << json;

  // EDN with Knossos's :index, CRLF line ends and a map over two lines.
  const std::string edn =
      "{:type :invoke, :f :write, :value 1, :process 0, :index 0}\r\n"
      "{:type :ok, :f :write, :value 1, :process 0, :index 1}\r\n"
      ";; a comment\r\n"
      "{:type :invoke, :f :read, :value nil,\r\n :process 1, :index 2}\r\n"
      "{:type :ok, :f :read, :value 2, :process 1, :index 3}\r\n";
  Expected<History> e = read_as(edn);
  ASSERT_TRUE(e.ok()) << e.error().to_string();
  const CheckReport er = check_lin(*e);
  ASSERT_EQ(lin(er).verdict, Verdict::Fail);
  const std::string& ewhy = lin(er).anomalies.at(0).explanation;
  EXPECT_NE(ewhy.find("index 3"), std::string::npos) << ewhy;
  EXPECT_NE(ewhy.find("line 4"), std::string::npos) << ewhy;
  EXPECT_NE(ewhy.find("line 6"), std::string::npos) << ewhy;
  const std::string ejson = report_json(*e, er, 0);
  EXPECT_NE(ejson.find("\"id\": \"3\", \"line\": 4, \"completion_line\": 6"), std::string::npos) << ejson;
  // The command line's text says it too.
  const std::string file = temp_file("isoscope-lines.log", log);
  const CommandResult r = run_cli("check --level LIN " + file);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("line 7"), std::string::npos) << r.out;
}
