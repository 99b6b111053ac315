// Real time is exact (issue 22, class 1): times are compared as the integers (or decimals) the
// input wrote, over the whole int64 range. Epoch nanoseconds (~1.7e18) lie beyond a double's
// 2^53: as doubles, 1700000000000000200 and ...300 are the same number, the real-time edge
// between two transactions vanishes, and SSER passes a stale read. Every format that carries
// times is tested with such a history (helpers/stale_read.h); that `convert` keeps the times
// exactly is the command line's test (cli/commands_test.cpp).
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "checkers/check.h"
#include "formats/formats.h"
#include "formats/writers.h"
#include "model/time.h"
#include "stale_read.h"
#include "test_util.h"

using namespace isoscope;

namespace {

void be64(std::string& s, uint64_t v) {
  for (int i = 7; i >= 0; --i) s += static_cast<char>((v >> (i * 8)) & 0xFF);
}

// Two Cobra logs with 8-byte timestamps: T0.log writes, T1.log reads the initial value.
std::vector<std::pair<std::string, std::string>> stale_cobra(uint64_t b = static_cast<uint64_t>(kB)) {
  std::string w, r;
  w += 'S'; be64(w, 0x100); be64(w, b);
  w += 'W'; be64(w, 77); be64(w, 5); be64(w, 0xabc);
  w += 'C'; be64(w, 0x100); be64(w, b + 200);
  r += 'S'; be64(r, 0x200); be64(r, b + 300);
  r += 'R'; be64(r, 0xbebeebee); be64(r, 0xbebeebee); be64(r, 5); be64(r, 0);
  r += 'C'; be64(r, 0x200); be64(r, b + 400);
  return {{"logs/T0.log", w}, {"logs/T1.log", r}};
}

Expected<History> read_files(const std::vector<std::pair<std::string, std::string>>& named) {
  std::vector<InputFile> files;
  for (const auto& [n, c] : named) files.push_back({n, c});
  return read_history(files);
}

void expect_stale_read_fails_sser(const Expected<History>& h, const char* what) {
  ASSERT_TRUE(h.ok()) << what << ": " << h.error().to_string();
  ASSERT_TRUE(h->has_timestamps) << what;
  EXPECT_EQ(h->times[1].end, Time::integer(kB + 200)) << what;
  EXPECT_EQ(h->times[2].start, Time::integer(kB + 300)) << what;
  EXPECT_EQ(verdict(*h, Level::SER), Verdict::Pass) << what;
  EXPECT_EQ(verdict(*h, Level::SSER), Verdict::Fail) << what;
}

}  // namespace

TEST(Times, ParseIsExactOverTheWholeInt64Range) {
  struct Case {
    const char* text;
    Time want;
  };
  const Case ok[] = {
      {"0", {0, 0}},
      {"-0", {0, 0}},
      {"1700000000000000100", {kB + 100, 0}},
      {"9223372036854775807", {INT64_MAX, 0}},
      {"-9223372036854775808", {INT64_MIN, 0}},
      {"1.5", {1, Time::kFracUnit / 2}},
      {"-1.5", {-2, Time::kFracUnit / 2}},
      {"-0.000000000000000001", {-1, Time::kFracUnit - 1}},
      {"0.000000000000000001", {0, 1}},
      {"1.5e3", {1500, 0}},
      {"1.7e18", {kB, 0}},
      {"17E17", {kB, 0}},
      {"25e-1", {2, Time::kFracUnit / 2}},
      {"1.000000000000000000000000", {1, 0}},  // trailing zeros are no precision
      {"100e-2", {1, 0}},
      {"+7", {7, 0}},  // EDN
      {"7N", {7, 0}},  // EDN bigint
      {"2.5M", {2, Time::kFracUnit / 2}},  // EDN bigdecimal
      {"0e999999999999", {0, 0}},
  };
  for (const Case& c : ok) {
    Time t;
    ASSERT_EQ(parse_time(c.text, t), TimeParse::Ok) << c.text;
    EXPECT_EQ(t, c.want) << c.text;
  }
  const std::pair<const char*, TimeParse> bad[] = {
      {"9223372036854775808", TimeParse::TooLarge},
      {"-9223372036854775809", TimeParse::TooLarge},
      {"-9223372036854775807.5", TimeParse::Ok},
      {"-9223372036854775808.5", TimeParse::TooLarge},
      {"1e19", TimeParse::TooLarge},
      {"1e999999999999", TimeParse::TooLarge},
      {"1e-19", TimeParse::TooPrecise},
      {"0.0000000000000000001", TimeParse::TooPrecise},
      {"NaN", TimeParse::NotANumber},
      {"Infinity", TimeParse::NotANumber},
      {"-Infinity", TimeParse::NotANumber},
      {"##Inf", TimeParse::NotANumber},
      {".5", TimeParse::NotANumber},
      {"1e", TimeParse::NotANumber},
      {"1x", TimeParse::NotANumber},
      {"", TimeParse::NotANumber},
      {"-", TimeParse::NotANumber},
  };
  for (const auto& [text, want] : bad) {
    Time t;
    EXPECT_EQ(parse_time(text, t), want) << text;
  }
}

TEST(Times, TextIsExactAndReadsBack) {
  const Time samples[] = {{0, 0}, {kB + 100, 0}, {INT64_MAX, 0}, {INT64_MIN, 0}, {-2, Time::kFracUnit / 2},
                          {1, 1}, {-1, Time::kFracUnit - 1}, {INT64_MIN, 1}, {INT64_MAX, Time::kFracUnit - 1}};
  const char* texts[] = {"0", "1700000000000000100", "9223372036854775807", "-9223372036854775808", "-1.5",
                         "1.000000000000000001", "-0.000000000000000001", "-9223372036854775807.999999999999999999",
                         "9223372036854775807.999999999999999999"};
  for (size_t i = 0; i < std::size(samples); ++i) {
    EXPECT_EQ(samples[i].text(), texts[i]);
    Time back;
    ASSERT_EQ(parse_time(samples[i].text(), back), TimeParse::Ok) << texts[i];
    EXPECT_EQ(back, samples[i]) << texts[i];
  }
  // Order is the numbers' order, fractions and negatives included.
  for (size_t i = 0; i + 1 < std::size(samples); ++i)
    for (size_t j = 0; j < std::size(samples); ++j) {
      Time a, b;
      parse_time(texts[i], a);
      parse_time(texts[j], b);
      const long double x = std::stold(texts[i]), y = std::stold(texts[j]);
      if (x != y) EXPECT_EQ(a < b, x < y) << texts[i] << " vs " << texts[j];
    }
  EXPECT_LT((Time{kB + 200, 0}), (Time{kB + 300, 0}));
  EXPECT_LT(Time::below_all(), (Time{INT64_MIN, 1}));
  EXPECT_LT((Time{INT64_MAX, Time::kFracUnit - 1}), Time::above_all());
}

TEST(Times, StaleReadAtEpochNanosecondsFailsSserInIsoscopeJson) {
  expect_stale_read_fails_sser(read_one("h.json", stale_isoscope_json()), "isoscope JSON");
}

TEST(Times, StaleReadAtEpochNanosecondsFailsSserInElleEdn) {
  expect_stale_read_fails_sser(read_one("history.edn", stale_elle_edn()), "Elle EDN");
}

TEST(Times, StaleReadAtEpochNanosecondsFailsSserInElleJson) {
  expect_stale_read_fails_sser(read_one("history.json", stale_elle_json(), "elle"), "Elle JSON");
}

TEST(Times, StaleReadAtEpochNanosecondsFailsSserInCobra) {
  expect_stale_read_fails_sser(read_files(stale_cobra()), "Cobra");
}

TEST(Times, TheExplanationNamesTheExactTimes) {
  Expected<History> h = read_one("h.json", stale_isoscope_json());
  ASSERT_TRUE(h.ok());
  CheckOptions o;
  o.levels = {Level::SSER};
  const CheckReport report = check_history(*h, o);
  const LevelResult& r = report.results[static_cast<int>(Level::SSER)];
  ASSERT_EQ(r.verdict, Verdict::Fail);
  std::string all;
  for (const Anomaly& a : r.anomalies) {
    all += a.explanation + "\n";
    for (const AnomalyEdge& e : a.edges) all += e.why + "\n";
  }
  EXPECT_NE(all.find("at " + kT1End + ")"), std::string::npos) << all;
  EXPECT_NE(all.find("at " + kT2Start + ")"), std::string::npos) << all;
}

// A time that does not fit is an error with its place, in every format; never a rounding.
TEST(Times, ATimeThatDoesNotFitIsALocatedError) {
  struct Case {
    const char* name;
    std::string content;
    const char* format;
  };
  const Case cases[] = {
      {"h.json", R"({"sessions": [[{"ops": [["w", "x", 1]], "start": 1, "end": 9223372036854775808}]]})", ""},
      {"h.json", R"({"sessions": [[{"ops": [["w", "x", 1]], "start": 1e400, "end": 1e401}]]})", ""},
      {"h.json", R"({"sessions": [[{"ops": [["w", "x", 1]], "start": 0.0000000000000000001, "end": 1}]]})", ""},
      {"h.edn", "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time 1e400}\n", "elle"},
      {"h.edn", "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time 99999999999999999999}\n", "elle"},
      {"h.json", R"([{"type": "ok", "f": "txn", "value": [["w", "x", 1]], "process": 0, "time": 1e-30}])", "elle"},
  };
  for (const Case& c : cases) {
    Expected<History> h = read_one(c.name, c.content, c.format);
    ASSERT_FALSE(h.ok()) << c.content;
    EXPECT_EQ(h.error().line, 1) << h.error().to_string();
    EXPECT_GT(h.error().offset, 0) << h.error().to_string();
  }
  // Cobra: a u64 timestamp above int64.
  Expected<History> h = read_files(stale_cobra(uint64_t{1} << 63));
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().file, "logs/T0.log");
  EXPECT_EQ(h.error().offset, 9);
  EXPECT_NE(h.error().message.find("9223372036854775808"), std::string::npos) << h.error().message;
}

// convert keeps every time exactly: written as exact decimals (beyond 2^53 too), read back equal.
TEST(Times, ConvertRoundTripKeepsTimesExactly) {
  const std::string fractions = R"({"sessions": [
    [{"ops": [["w", "x", 1]], "start": -9223372036854775808, "end": 9223372036854775807}],
    [{"ops": [["w", "y", 1]], "start": -1.000000000000000001, "end": 0.5}]]})";
  const std::vector<Expected<History>> inputs = [&] {
    std::vector<Expected<History>> v;
    v.push_back(read_one("h.json", stale_isoscope_json()));
    v.push_back(read_one("history.edn", stale_elle_edn()));
    v.push_back(read_one("history.json", stale_elle_json(), "elle"));
    v.push_back(read_files(stale_cobra()));
    v.push_back(read_one("f.json", fractions));
    return v;
  }();
  for (const Expected<History>& a : inputs) {
    ASSERT_TRUE(a.ok()) << a.error().to_string();
    const std::string text = write_isoscope_json(*a);
    Expected<History> b = read_one("back.json", text);
    ASSERT_TRUE(b.ok()) << b.error().to_string() << "\n" << text;
    ASSERT_EQ(b->times.size(), a->times.size());
    for (size_t t = 1; t < a->txns.size(); ++t) {
      EXPECT_EQ(b->times[t].start, a->times[t].start) << text;
      EXPECT_EQ(b->times[t].end, a->times[t].end) << text;
    }
    EXPECT_EQ(write_isoscope_json(*b), text);
  }
  EXPECT_NE(write_isoscope_json(*inputs[0]).find("\"end\": " + kT1End), std::string::npos);
  EXPECT_NE(write_isoscope_json(*inputs[4]).find("\"start\": -9223372036854775808, \"end\": 9223372036854775807"),
            std::string::npos);
  EXPECT_NE(write_isoscope_json(*inputs[4]).find("\"start\": -1.000000000000000001, \"end\": 0.5"), std::string::npos);
}

// LIN (MTC's lightweight transactions) orders by the same exact times: an insert that ends
// 100 ns before a read of the absent state starts makes the read stale.
TEST(Times, StaleReadAtEpochNanosecondsFailsLin) {
  const std::string text = R"({"sessions": [
    [{"ops": [["w", "x", 1]], "start": )" + kT1Start + R"(, "end": )" + kT1End + R"(}],
    [{"ops": [["r", "x", null]], "start": )" + kT2Start + R"(, "end": )" + kT2End + R"(}]]})";
  Expected<History> h = read_one("lwt.json", text);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(verdict(*h, Level::LIN), Verdict::Fail);
  // One more nanosecond of overlap and it linearizes (the read first).
  Expected<History> overlap = read_one("lwt.json", text.substr(0, text.find(kT2Start)) + kT1End +
                                                       text.substr(text.find(kT2Start) + kT2Start.size()));
  ASSERT_TRUE(overlap.ok()) << overlap.error().to_string();
  EXPECT_EQ(verdict(*overlap, Level::LIN), Verdict::Pass);
}

// One rule for every format (issue 22, class 8): a transaction that ends before it starts is an
// input error naming its place. Elle and Cobra used to accept it ("T1 < T1 because T1 ends before
// T1 starts") while isoscope JSON refused it, and `convert` then wrote files its reader refused.
TEST(Times, AnEndBeforeItsStartIsALocatedErrorInEveryFormat) {
  struct Case {
    const char* name;
    std::string content;
    const char* format;
    int64_t line;
  };
  const Case cases[] = {
      {"h.json", "{\"sessions\": [\n[{\"ops\": [[\"w\", \"x\", 1]], \"start\": 20, \"end\": 10}]]}", "", 2},
      {"h.edn",
       "{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 20}\n"
       "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time 10}\n", "elle", 2},
      {"h.json",
       "[{\"type\": \"invoke\", \"f\": \"txn\", \"value\": [[\"w\", \"x\", 1]], \"process\": 0, \"time\": 1.5},\n"
       " {\"type\": \"ok\", \"f\": \"txn\", \"value\": [[\"w\", \"x\", 1]], \"process\": 0, \"time\": 1.25}]\n", "elle", 2},
      // Epoch nanoseconds 1 ns backwards: as doubles these were equal and passed.
      {"h.edn",
       "{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 1700000000000000101}\n"
       "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time 1700000000000000100}\n", "elle", 2},
  };
  for (const Case& c : cases) {
    Expected<History> h = read_one(c.name, c.content, c.format);
    ASSERT_FALSE(h.ok()) << c.content;
    EXPECT_EQ(h.error().line, c.line) << h.error().to_string();
    EXPECT_NE(h.error().message.find("before it starts"), std::string::npos) << h.error().to_string();
  }
  // Cobra: the commit's timestamp before the start's, reported at the commit's timestamp.
  std::string log;
  log += 'S'; be64(log, 0x100); be64(log, 1000);
  log += 'W'; be64(log, 77); be64(log, 5); be64(log, 0xabc);
  log += 'C'; be64(log, 0x100); be64(log, 999);
  Expected<History> h = read_files({{"logs/T0.log", log}});
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().file, "logs/T0.log");
  EXPECT_EQ(h.error().offset, 17 + 25 + 9);
  EXPECT_NE(h.error().message.find("before it starts (at 1000)"), std::string::npos) << h.error().message;
  // start == end is an instant: fine everywhere.
  EXPECT_TRUE(read_one("h.json", R"({"sessions": [[{"ops": [["w", "x", 1]], "start": 5, "end": 5}]]})").ok());
  EXPECT_TRUE(read_one("h.edn", "{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 5}\n"
                                "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time 5}\n", "elle").ok());
}

// Infinite and NaN times are refused by every reader that could hold them, with a place.
TEST(Times, InfiniteOrNanTimesAreLocatedErrors) {
  const std::pair<const char*, std::string> cases[] = {
      {"h.edn", "{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 1}\n"
                "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time ##Inf}\n"},
      {"h.edn", "{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 1}\n"
                "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time ##NaN}\n"},
      {"h.edn", "{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :time 1}\n"
                "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :time 1e999}\n"},
      {"h.json", "[{\"type\": \"invoke\", \"f\": \"txn\", \"value\": [[\"w\", \"x\", 1]], \"process\": 0, \"time\": 1},\n"
                 " {\"type\": \"ok\", \"f\": \"txn\", \"value\": [[\"w\", \"x\", 1]], \"process\": 0, \"time\": 1e999}]"},
      {"h.json", "{\"sessions\": [\n[{\"ops\": [[\"w\", \"x\", 1]], \"start\": 1, \"end\": 1e999}]]}"},
      {"h.json", "{\"sessions\": [\n[{\"ops\": [[\"w\", \"x\", 1]], \"start\": 1, \"end\": Infinity}]]}"},
      {"h.json", "{\"sessions\": [\n[{\"ops\": [[\"w\", \"x\", 1]], \"start\": NaN, \"end\": 1}]]}"},
  };
  for (const auto& [name, content] : cases) {
    Expected<History> h = read_one(name, content, std::string(name) == "h.edn" || content[0] == '[' ? "elle" : "");
    ASSERT_FALSE(h.ok()) << content;
    EXPECT_EQ(h.error().line, 2) << h.error().to_string();
  }
}

// `convert` never writes what `check` refuses: every format's fixture, and the timed histories
// above, written as isoscope JSON (and plume where it can) read back with the same verdicts.
TEST(Times, ConvertNeverWritesWhatCheckRefuses) {
  const std::string dir = std::string(ISOSCOPE_FIXTURES) + "/formats";
  std::vector<Expected<History>> inputs;
  for (const char* f : {"cobra", "dbcop-bincode", "lost-update.awdit.txt", "lost-update.dbcop.json",
                        "lost-update.dbcop.txt", "lost-update.edn", "lost-update.json", "lost-update.plume.txt"})
    inputs.push_back(read_path(dir + "/" + f));
  inputs.push_back(read_path(std::string(ISOSCOPE_FIXTURES) + "/elle/nemesis.edn"));
  inputs.push_back(read_one("h.json", stale_isoscope_json()));
  inputs.push_back(read_one("history.edn", stale_elle_edn()));
  inputs.push_back(read_files(stale_cobra()));
  std::set<std::string> formats;
  for (const Expected<History>& a : inputs) {
    ASSERT_TRUE(a.ok()) << a.error().to_string();
    formats.insert(a->format);
    const CheckReport want = check_history(*a, CheckOptions{});
    std::vector<std::pair<std::string, std::string>> outputs = {{"isoscope", write_isoscope_json(*a)}};
    if (!plume_cannot_express(*a)) outputs.push_back({"plume", *write_plume(*a)});
    for (const auto& [format, text] : outputs) {
      Expected<History> b = read_one("out", text, format);
      ASSERT_TRUE(b.ok()) << a->format << " -> " << format << ": " << b.error().to_string() << "\n" << text;
      const CheckReport got = check_history(*b, CheckOptions{});
      for (int l = 0; l < kNumLevels; ++l)
        if (format == "isoscope" || static_cast<Level>(l) != Level::SSER)  // plume drops times
          EXPECT_EQ(got.results[l].verdict, want.results[l].verdict)
              << a->format << " -> " << format << " " << level_name(static_cast<Level>(l));
    }
  }
  EXPECT_EQ(formats.size(), 8u);  // every reader
  // A history built with an end before its start (no reader makes one) is not written.
  HistoryBuilder hb;
  hb.begin_session();
  hb.begin_txn();
  hb.write(hb.keys().intern_int(1), hb.values().intern_int(1));
  hb.set_time(Time::integer(2), Time::integer(1));
  Expected<History> bad = hb.finish("built");
  ASSERT_TRUE(bad.ok());
  TextOut out;
  std::unique_ptr<HistoryWriter> w = make_writer("isoscope", out);
  write_history(*bad, *w);
  ASSERT_TRUE(w->error().has_value());
  EXPECT_NE(w->error()->message.find("before it starts"), std::string::npos);
}
