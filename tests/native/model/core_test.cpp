// The foundation: model semantics, the canonical JSON reader/writer, read consistency,
// causality cycles and the result JSON (the command line's contract: tests/native/cli/).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "checkers/check.h"
#include "checkers/read_consistency.h"
#include "formats/formats.h"
#include "report/result_json.h"
#include "util/json.h"
#include "test_util.h"

using namespace isoscope;

namespace {

InputError parse_error(const std::string& text) {
  InputFile f{"bad.json", text};
  Expected<History> h = read_isoscope_json(std::span<const InputFile>(&f, 1));
  EXPECT_FALSE(h.ok());
  return h.ok() ? InputError{} : h.error();
}

std::vector<std::string> kinds(const std::vector<Anomaly>& as) {
  std::vector<std::string> k;
  for (const Anomaly& a : as) k.push_back(name_of(a.kind));
  return k;
}

}  // namespace

TEST(Model, LayoutAndInitialTransaction) {
  History h = parse_json(R"({"initial": 0, "sessions": [
      [{"id": "t1", "ops": [["r","x",0], ["w","x",1]], "start": 1, "end": 2}, [["r","y",0]]],
      [{"ops": [["w","y",5]], "status": "aborted"}]]})");
  ASSERT_EQ(h.num_sessions(), 2u);
  EXPECT_EQ(h.num_txns(), 3u);
  EXPECT_EQ(h.num_ops(), 4u);
  EXPECT_EQ(h.session_begin, (std::vector<uint32_t>{1, 3, 4}));
  EXPECT_EQ(h.txns[1].session, 0u);
  EXPECT_EQ(h.txns[2].index, 1u);
  EXPECT_EQ(h.txns[3].session, 1u);
  EXPECT_EQ(h.labels[h.txns[1].label], "t1");
  EXPECT_TRUE(h.txns[1].has_time());
  EXPECT_FALSE(h.txns[2].has_time());
  EXPECT_FALSE(h.txns[3].committed);
  EXPECT_EQ(h.read_from[0], kReadsInitial);
  EXPECT_EQ(h.writer_txn(0), kInitialTxn);
  EXPECT_EQ(h.read_from[2], kReadsInitial);  // y = 0: the initial value, not the aborted 5
}

TEST(Model, UnknownTransactionsCommitWhenReadTransitively) {
  History h = parse_json(R"({"initial": 0, "sessions": [
      [{"ops": [["w","x",1]], "status": "unknown"}],
      [{"ops": [["r","x",1], ["w","y",1]], "status": "unknown"}],
      [{"ops": [["r","y",1]]}],
      [{"ops": [["w","z",1]], "status": "unknown"}]]})");
  EXPECT_TRUE(h.txns[1].committed);
  EXPECT_TRUE(h.txns[2].committed);
  EXPECT_TRUE(h.txns[3].committed);
  EXPECT_FALSE(h.txns[4].committed);
}

TEST(Model, DuplicateWriteIsAnInputErrorNamingBothPlacesWithUniqueValues) {
  History h = parse_json(R"({"sessions": [[ [["w","x",1]] ], [ [["r","y",0], ["w","x",1]] ]]})");
  ASSERT_TRUE(repeated_write_error(h).has_value());
  InputError e = *repeated_write_error(h);
  EXPECT_NE(e.message.find("twice"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("session 0, transaction 0, operation 0"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("session 1, transaction 0, operation 1"), std::string::npos) << e.message;
}

TEST(Model, StringAndIntegerKeysAreDistinct) {
  History h = parse_json(R"({"initial": 0, "sessions": [[ [["w","1",5], ["w",1,6], ["r","1",5], ["r",1,6]] ]]})");
  EXPECT_EQ(h.keys.size(), 2u);
  EXPECT_EQ(h.read_from[2], 0u);
  EXPECT_EQ(h.read_from[3], 1u);
}

TEST(Model, ListAppendReadsResolveToTheLastElement) {
  History h = parse_json(R"({"sessions": [[ [["append","x",1], ["append","x",2]] ], [ [["r","x",[1,2]], ["r","y",[]]] ]]})");
  EXPECT_TRUE(h.has_lists);
  EXPECT_EQ(h.read_from[2], 1u);
  EXPECT_EQ(h.read_from[3], kReadsInitial);
  EXPECT_EQ(h.op_text(2), "r(x, [1 2])");
}

TEST(JsonReader, ErrorsNameByteOffsetLineAndExpectation) {
  InputError e = parse_error("{\"sessions\": [[ [[\"r\",\"x\",0] [\"w\",\"x\",1]] ]]}");
  EXPECT_EQ(e.file, "bad.json");
  EXPECT_GE(e.offset, 0);
  EXPECT_EQ(e.line, 1);
  EXPECT_NE(e.to_string().find("byte"), std::string::npos);

  e = parse_error("{\"sessions\": [[ [[\"q\",\"x\",0]] ]]}");
  EXPECT_NE(e.message.find("\"r\", \"w\", \"append\", \"select\", \"insert\", \"update\" or \"delete\""), std::string::npos) << e.message;

  e = parse_error("{\"sessions\": [[ {\"ops\": [], \"status\": \"maybe\"} ]]}");
  EXPECT_NE(e.message.find("status"), std::string::npos) << e.message;

  e = parse_error("{\"sessions\": [[ [[\"r\",\"x\"]] ]]}");
  EXPECT_NE(e.message.find("value"), std::string::npos) << e.message;

  e = parse_error("{\"initial\": 0}");
  EXPECT_NE(e.message.find("sessions"), std::string::npos) << e.message;

  e = parse_error("");
  EXPECT_FALSE(e.message.empty());

  e = parse_error("{\"sessions\": [[ [[\"r\",\"x\",0]] ]]");  // truncated
  EXPECT_FALSE(e.message.empty());

  e = parse_error("{\"sessions\": [[ {\"ops\": [], \"start\": 5} ]]}");
  EXPECT_NE(e.message.find("end"), std::string::npos) << e.message;

  e = parse_error("{\"sessions\": [[ [[\"r\",null,0]] ]]}");
  EXPECT_NE(e.message.find("key"), std::string::npos) << e.message;

  e = parse_error("{\"sessions\": [[ [[\"r\",\"x\",0,7]] ]]}");
  EXPECT_NE(e.message.find("three"), std::string::npos) << e.message;

  e = parse_error("{\"sessions\": [[ [[\"r\",\"x\",0]] ]]} trailing");
  EXPECT_FALSE(e.message.empty());

  // Line numbers count newlines before the offset.
  e = parse_error("{\"sessions\": [\n[\n [[\"r\",\"x\",true]] ]]}");
  EXPECT_EQ(e.line, 3) << e.to_string();
}

TEST(JsonReader, IntegersAreExactlyJsonIntegers) {
  // The reader's own integer fast path must accept and reject what JSON does.
  auto one = [](const std::string& v) { return "{\"sessions\": [[ [[\"w\", 1, " + v + "]] ]]}"; };
  for (const char* bad : {"01", "-01", "1.5", "1e3", "99999999999999999999", "+5", "-", "0x10"}) {
    InputError e = parse_error(one(bad));
    EXPECT_NE(e.message.find("value"), std::string::npos) << bad << ": " << e.message;
    EXPECT_EQ(e.column, 27) << bad;  // at the value
  }
  for (const auto& [text, shown] : std::vector<std::pair<std::string, std::string>>{
           {"0", "0"}, {"-0", "0"}, {"-7", "-7"}, {" 12 ", "12"}, {"9223372036854775807", "9223372036854775807"},
           {"-9223372036854775808", "-9223372036854775808"}, {"\"12\"", "\"12\""}}) {
    History h = parse_json(one(text));
    EXPECT_EQ(h.op_text(0), "w(1, " + shown + ")") << text;
  }
  // Keys go through the same path: 1 and "1" are different keys.
  History h = parse_json("{\"sessions\": [[ [[\"w\", 1, 1], [\"w\", \"1\", 2]] ]]}");
  EXPECT_EQ(h.keys.size(), 2u);
}

TEST(JsonWriter, NumbersAreTheShortestThatReadBack) {
  // Times in reports are milliseconds rounded to microseconds: written as k / 1000 (a fast
  // path), the digits "%.15g" gives; other numbers as before.
  EXPECT_EQ(json_number(0.012), "0.012");
  EXPECT_EQ(json_number(-1.5), "-1.5");
  EXPECT_EQ(json_number(123456.789), "123456.789");
  EXPECT_EQ(json_number(0.0005), "0.0005");
  EXPECT_EQ(json_number(1.0 / 3), "0.33333333333333331");
  EXPECT_EQ(json_number(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(json_number(42), "42");
  for (double d : {0.001, 2.25, 99.999, 1e11 + 0.5, -0.07})
    EXPECT_EQ(std::strtod(json_number(d).c_str(), nullptr), d) << d;
}

TEST(JsonReader, RoundTripThroughWriter) {
  std::string text = R"({"initial": 0, "sessions": [
      [{"id": "a", "ops": [["r","x",0], ["w","x",1]], "start": 1.5, "end": 2}, [["r","y","s"]]],
      [{"ops": [["w","y","s"], ["append", 3, null]], "status": "aborted"}, {"ops": [["r", 3, [null]]], "status": "unknown"}]]})";
  History a = parse_json(text);
  History b = parse_json(write_isoscope_json(a));
  EXPECT_EQ(write_isoscope_json(a), write_isoscope_json(b));
  EXPECT_EQ(a.num_ops(), b.num_ops());
  EXPECT_EQ(a.read_from, b.read_from);
  EXPECT_EQ(b.times[1].start, (Time{1, Time::kFracUnit / 2}));
  EXPECT_EQ(b.times[1].start.text(), "1.5");
  EXPECT_EQ(b.txns[3].status, TxnStatus::Aborted);
  EXPECT_EQ(b.txns[4].status, TxnStatus::Unknown);
}

TEST(ReadConsistency, EveryKindIsReported) {
  History h = parse_json(R"({"initial": 0, "sessions": [
      [ [["r","a",7]] ],
      [ {"ops": [["w","b",1]], "status": "aborted"} ], [ [["r","b",1]] ],
      [ [["r","c",1], ["w","c",1]] ],
      [ [["w","d",1], ["w","d",2], ["r","d",1]] ],
      [ [["w","e",1]] ], [ [["w","e",2], ["r","e",1]] ],
      [ [["w","f",1], ["w","f",2]] ], [ [["r","f",1]] ]
  ]})");
  std::vector<Anomaly> as = check_read_consistency(h);
  EXPECT_EQ(kinds(as), (std::vector<std::string>{"ThinAirRead", "AbortedRead", "FutureRead",
                                                  "NotMyLastWrite", "NotMyOwnWrite", "IntermediateRead"}));
  for (const Anomaly& a : as) {
    EXPECT_FALSE(a.explanation.empty());
    EXPECT_FALSE(a.ops.empty());
  }
}

TEST(ReadConsistency, ConsistentHistoryHasNone) {
  History h = parse_json(R"({"initial": 0, "sessions": [
      [ [["r","x",0], ["w","x",1], ["r","x",1], ["w","x",2]] ], [ [["r","x",2]] ]]})");
  EXPECT_TRUE(check_read_consistency(h).empty());
}

// A so ∪ wr cycle fails CC (and every level above it) as a CausalityCycle.
TEST(Causality, CycleThroughSessionOrderAndReads) {
  // T1 (s0) reads y from T4 (s1); T3 (s1) reads x from T2 (s0, after T1): a so ∪ wr cycle.
  History h = parse_json(R"({"initial": 0, "sessions": [
      [ [["r","y",1]], [["w","x",1]] ],
      [ [["r","x",1]], [["w","y",1]] ]]})");
  const LevelResult cc = check_history(h, {}).results[static_cast<int>(Level::CC)];
  ASSERT_EQ(cc.verdict, Verdict::Fail);
  ASSERT_FALSE(cc.anomalies.empty());
  const Anomaly& c = cc.anomalies[0];
  EXPECT_EQ(name_of(c.kind), "CausalityCycle");
  for (size_t i = 0; i < c.edges.size(); ++i)
    EXPECT_EQ(c.edges[i].to_txn, c.edges[(i + 1) % c.edges.size()].from_txn);
}

TEST(Check, ReadConsistencyFailureFailsEveryTransactionalLevel) {
  History h = parse_json(R"({"initial": 0, "sessions": [[ [["r","x",5]] ]]})");
  CheckReport r = check_history(h, {});
  for (Level l : {Level::RC, Level::RA, Level::CC, Level::SER}) {
    const LevelResult& lr = r.results[static_cast<int>(l)];
    EXPECT_EQ(lr.verdict, Verdict::Fail) << level_name(l);
    ASSERT_FALSE(lr.anomalies.empty());
    EXPECT_EQ(name_of(lr.anomalies[0].kind), "ThinAirRead");
  }
  EXPECT_EQ(r.results[static_cast<int>(Level::SSER)].verdict, Verdict::NotApplicable);
  std::string json = report_json(h, r, 0.1);
  EXPECT_NE(json.find("\"ThinAirRead\""), std::string::npos);
  EXPECT_NE(json.find("\"SSER\": {\"verdict\": \"n/a\""), std::string::npos);
}

TEST(Corpus, EveryIsoscopeEntryParses) {
  SKIP_WITHOUT_CORPUS();
  std::vector<CorpusEntry> entries = corpus_entries();
  ASSERT_GT(entries.size(), 20u);
  size_t parsed = 0;
  for (const CorpusEntry& e : entries) {
    if (e.format != "isoscope") continue;
    LoadedFiles files = load_path(e.path);
    Expected<History> h = read_history(files.files, "isoscope");
    EXPECT_TRUE(h.ok()) << e.path << ": " << (h.ok() ? "" : h.error().to_string());
    Expected<History> auto_h = read_history(files.files, "");
    EXPECT_TRUE(auto_h.ok() && auto_h->format == "isoscope") << e.path;
    ++parsed;
  }
  EXPECT_GE(parsed, 25u);
}

// ---- the command line contract ----------------------------------------------------------------

// "initial" is optional and defaults to null: leaving it out and writing null mean the same.
TEST(Model, CanonicalInitialDefaultsToNull) {
  for (const char* text : {R"({"sessions": [[ [["r","x",null]] ]]})", R"({"initial": null, "sessions": [[ [["r","x",null]] ]]})"}) {
    std::string bytes = text;
    InputFile f{"h.json", bytes};
    Expected<History> h = read_history(std::span<const InputFile>(&f, 1), "");
    ASSERT_TRUE(h.ok()) << h.error().to_string();
    EXPECT_EQ(h->read_from[0], kReadsInitial) << text;
    EXPECT_EQ(check_history(*h, {}).results[static_cast<int>(Level::RC)].verdict, Verdict::Pass) << text;
  }
}
