// The importers (issue 3): every corpus file in its stated format and by auto-detection,
// counts, hostile input (errors name file and place; nothing crashes), round trips through
// the isoscope JSON and plume writers, and inline fixtures for the formats the corpus lacks.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "checkers/list_order.h"
#include "formats/formats.h"
#include "formats/reader_util.h"
#include "test_util.h"

using namespace isoscope;

namespace {


Expected<History> read_text(const std::string& content, const std::string& format = "",
                            const std::string& name = "input.txt") {
  InputFile f{name, content};
  return read_history(std::span<const InputFile>(&f, 1), format);
}

History ok_text(const std::string& content, const std::string& format = "") {
  Expected<History> h = read_text(content, format);
  EXPECT_TRUE(h.ok()) << (h.ok() ? "" : h.error().to_string());
  return h.ok() ? std::move(*h) : History();
}

InputError err_text(const std::string& content, const std::string& format,
                    const std::string& name = "bad.txt") {
  Expected<History> h = read_text(content, format, name);
  EXPECT_FALSE(h.ok()) << "expected an error for: " << content.substr(0, 200);
  return h.ok() ? InputError{} : h.error();
}

std::string corpus(const std::string& rel) { return corpus_dir() + "/" + rel; }

History ok_path(const std::string& rel, const std::string& format = "") {
  Expected<History> h = read_path(corpus(rel), format);
  EXPECT_TRUE(h.ok()) << rel << ": " << (h.ok() ? "" : h.error().to_string());
  return h.ok() ? std::move(*h) : History();
}

size_t count_status(const History& h, TxnStatus s) {
  size_t n = 0;
  for (size_t t = 1; t < h.txns.size(); ++t) n += h.txns[t].status == s;
  return n;
}
size_t count_read_from(const History& h, uint32_t what) {
  size_t n = 0;
  for (uint32_t op = 0; op < h.ops.size(); ++op) n += h.ops[op].is_read() && h.read_from[op] == what;
  return n;
}

// A structural dump: sessions, transactions (status), ops as text. Equal dumps = same history.
std::string dump_sessions(const History& h) {
  std::string s;
  for (size_t se = 0; se < h.num_sessions(); ++se) {
    s += "session\n";
    for (uint32_t t = h.session_begin[se]; t < h.session_begin[se + 1]; ++t) {
      s += "  txn " + std::to_string(static_cast<int>(h.txns[t].status)) + ":";
      for (uint32_t op = h.txns[t].op_begin; op < h.txns[t].op_end; ++op) s += " " + h.op_text(op);
      s += "\n";
    }
  }
  return s;
}

// Every operation with its session and its transaction's status, in history order.
std::string dump_ops(const History& h) {
  std::string s;
  for (uint32_t op = 0; op < h.ops.size(); ++op) {
    const Txn& t = h.txns[h.op_txn[op]];
    s += std::to_string(t.session) + " " + std::to_string(static_cast<int>(t.status)) + " " + h.op_text(op) + "\n";
  }
  return s;
}

}  // namespace

// ---- the corpus ---------------------------------------------------------------------------

TEST(Formats, EveryCorpusEntryParsesInItsFormatAndByDetection) {
  SKIP_WITHOUT_CORPUS();
  std::vector<CorpusEntry> entries = corpus_entries();
  ASSERT_GT(entries.size(), 40u);
  for (const CorpusEntry& e : entries) {
    SCOPED_TRACE(e.rel);
    Expected<History> named = read_path(e.path, e.format);
    ASSERT_TRUE(named.ok()) << named.error().to_string();
    EXPECT_EQ(named->format, e.format);
    EXPECT_GT(named->num_ops(), 0u);
    Expected<History> detected = read_path(e.path);
    ASSERT_TRUE(detected.ok()) << detected.error().to_string();
    EXPECT_EQ(detected->format, e.format) << "auto-detection chose the wrong format";
    EXPECT_EQ(dump_sessions(*detected), dump_sessions(*named));
  }
}

TEST(Formats, PlumeCorpusCounts) {
  SKIP_WITHOUT_CORPUS();
  History a = ok_path("polysi/galera-lost-update.txt", "plume");
  EXPECT_EQ(a.num_sessions(), 2u);
  EXPECT_EQ(a.num_txns(), 7u);
  EXPECT_EQ(a.num_ops(), 14u);
  History b = ok_path("isovista/dgraph_si.txt");
  EXPECT_EQ(b.num_sessions(), 11u);
  EXPECT_EQ(b.num_txns(), 481u);
  EXPECT_EQ(b.num_ops(), 10600u);
  History c = ok_path("isovista/yugabyte_tcc.txt");
  EXPECT_EQ(c.num_sessions(), 3u);
  EXPECT_EQ(c.num_txns(), 21u);
  EXPECT_EQ(c.num_ops(), 220u);
  // The explicit initial transaction writes 0: reads of 0 resolve to it, not the implicit one.
  EXPECT_EQ(count_read_from(c, kReadsInitial), 0u);
  History d = ok_path("polysi/yugabyte.txt");
  EXPECT_EQ(d.num_txns(), 20u);
  EXPECT_EQ(d.num_ops(), 200u);
  EXPECT_GT(count_read_from(d, kReadsInitial), 0u);  // implicit initial value 0
  EXPECT_EQ(count_read_from(d, kThinAir), 0u);
  // Labels are the original transaction ids.
  EXPECT_EQ(a.labels[a.txns[1].label], "1");
}

TEST(Formats, AwditCorpusCounts) {
  SKIP_WITHOUT_CORPUS();
  History h = ok_path("awdit/causal/long-fork.txt", "awdit-test");
  EXPECT_EQ(h.num_sessions(), 3u);
  EXPECT_EQ(h.num_txns(), 5u);
  EXPECT_EQ(h.num_ops(), 8u);
  EXPECT_FALSE(h.initial.has_value());
  EXPECT_EQ(count_read_from(h, kThinAir), 0u);
  History g = ok_path("awdit/causal/generated/l20e200sqrt.txt");
  EXPECT_GT(g.num_txns(), 20u);
  EXPECT_EQ(count_read_from(g, kThinAir), 0u);
  History rc = ok_path("awdit/read-committed/non-repeatable-read.txt");
  EXPECT_GE(rc.num_sessions(), 2u);
}

TEST(Formats, DbcopBincodeCorpusCounts) {
  SKIP_WITHOUT_CORPUS();
  History a = ok_path("dbcop-oopsla19/antidote_all_writes/3_30_20_180/hist-00000/history.bincode");
  EXPECT_EQ(a.format, "dbcop-bincode");
  EXPECT_EQ(a.num_sessions(), 3u);
  EXPECT_EQ(a.num_txns(), 90u);
  EXPECT_EQ(a.num_ops(), 1800u);
  EXPECT_EQ(a.dropped_events, 0u);
  EXPECT_EQ(count_read_from(a, kThinAir), 0u);
  // Failed events are left out and counted; failed transactions are aborted.
  History r = ok_path("dbcop-oopsla19/roachdb_all_writes/3_30_20_180/hist-00001/history.bincode");
  EXPECT_EQ(r.num_txns(), 90u);
  EXPECT_EQ(r.num_ops(), 1800u - 42u);
  EXPECT_EQ(r.dropped_events, 42u);
  EXPECT_EQ(count_status(r, TxnStatus::Aborted), 5u);
  History d = ok_path("polysi/dgraph/history.bincode");
  EXPECT_EQ(d.num_sessions(), 10u);
  EXPECT_EQ(d.num_txns(), 800u);
  EXPECT_EQ(d.num_ops(), 16000u);
  EXPECT_EQ(count_status(d, TxnStatus::Aborted), 320u);
  // A directory holding history.bincode.
  History dir = ok_path("polysi/dgraph");
  EXPECT_EQ(dir.format, "dbcop-bincode");
  EXPECT_EQ(dir.num_ops(), 16000u);
}

TEST(Formats, CobraCorpusCounts) {
  SKIP_WITHOUT_CORPUS();
  History g = ok_path("cobra/cock-G2", "cobra");
  EXPECT_EQ(g.num_sessions(), 10u);
  EXPECT_EQ(g.num_txns(), 446u);
  EXPECT_EQ(g.num_ops(), 1338u);
  EXPECT_EQ(count_read_from(g, kThinAir), 0u);
  EXPECT_GT(count_read_from(g, kReadsInitial), 0u);
  History c = ok_path("cobra/chengRW-100");
  EXPECT_EQ(c.format, "cobra");
  EXPECT_EQ(c.num_sessions(), 24u);
  EXPECT_EQ(c.num_txns(), 100u);
  EXPECT_EQ(c.num_ops(), 800u);
  // Sessions follow natural file order: T10.log first.
  EXPECT_EQ(c.txns[1].session, 0u);
  // cock-blog: reads name writer transactions absent from every log: they load as thin air.
  History b = ok_path("cobra/cock-blog");
  EXPECT_EQ(b.num_sessions(), 13u);
  EXPECT_EQ(b.num_txns(), 21u);
  EXPECT_EQ(b.num_ops(), 21u);
  size_t thin = count_read_from(b, kThinAir);
  EXPECT_GT(thin, 0u);
  bool named = false;
  for (uint32_t op = 0; op < b.ops.size(); ++op)
    if (b.read_from[op] == kThinAir) named = named || b.op_text(op).find("in no log") != std::string::npos;
  EXPECT_TRUE(named) << "a dangling read should say which writer is missing";
}

// ---- hostile input ------------------------------------------------------------------------

TEST(Formats, PlumeErrorsNameLineAndColumn) {
  InputError e = err_text("r(1,0,0,0)\nw(1,x,0,0)\n", "plume");
  EXPECT_EQ(e.file, "bad.txt");
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.column, 5);
  EXPECT_NE(e.message.find("integer value"), std::string::npos) << e.message;
  e = err_text("r(1,0,0,0)\nw(1,2,0,0\n", "plume");
  EXPECT_EQ(e.line, 2);
  EXPECT_NE(e.message.find("')'"), std::string::npos) << e.message;
  e = err_text("r(1,0,0,0)\nq(1,2,0,0)\n", "plume");
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.column, 1);
  e = err_text("r(1,0,0,0) junk\n", "plume");
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.column, 12);
  e = err_text("r(99999999999999999999,0,0,0)\n", "plume");
  EXPECT_EQ(e.column, 3);
  // A transaction id reused across sessions.
  e = err_text("w(1,1,0,7)\nw(2,1,0,8)\nr(1,1,1,7)\n", "plume");
  EXPECT_EQ(e.line, 3);
  EXPECT_NE(e.message.find("line 1"), std::string::npos) << e.message;
  // Duplicate writes: ambiguous reads by default; with --unique-values an error naming both places.
  History dup = ok_text("w(1,1,0,1)\nw(1,1,1,2)\n", "plume");
  ASSERT_TRUE(repeated_write_error(dup, "bad.txt").has_value());
  e = *repeated_write_error(dup, "bad.txt");
  EXPECT_EQ(e.file, "bad.txt");
  EXPECT_NE(e.message.find("twice"), std::string::npos) << e.message;
  // Empty.
  e = err_text("", "plume");
  EXPECT_NE(e.message.find("none"), std::string::npos) << e.message;
  e = err_text("\n\n  \n", "plume");
  EXPECT_EQ(e.file, "bad.txt");
}

TEST(Formats, PlumeFastAndCarefulScannersAgree) {
  // Long inputs take the unchecked fast path for plain lines; anything unusual (spaces, CR,
  // 19-digit numbers, errors) falls back to the careful scanner, mid-file as at the end.
  std::string text;
  for (int i = 0; i < 60; ++i) text += "w(" + std::to_string(i) + ",1," + std::to_string(i % 3) + "," + std::to_string(i) + ")\n";
  text += "w( 100 , 1 , 0 , 100 )\r\n";
  text += "w(1234567890123456789,-5,1,101)\n";
  text += "w(9223372036854775807,7,2,102)\n";
  for (int i = 0; i < 60; ++i) text += "r(" + std::to_string(i) + ",1," + std::to_string(i % 3) + "," + std::to_string(i) + ")\n";
  History h = ok_text(text, "plume");
  EXPECT_EQ(h.num_ops(), 123u);
  EXPECT_EQ(h.num_txns(), 63u);
  EXPECT_EQ(count_read_from(h, kThinAir), 0u);
  bool big = false;
  for (uint32_t op = 0; op < h.ops.size(); ++op) big = big || h.op_text(op) == "w(1234567890123456789, -5)";
  EXPECT_TRUE(big);
  std::string bad = text;
  bad.replace(bad.find("r(7,1,1,7)"), 10, "r(7,1,1,x)");
  InputError e = err_text(bad, "plume");
  EXPECT_EQ(e.line, 71);
  EXPECT_EQ(e.column, 9);
  bad = text;
  bad.replace(bad.find("w(9223372036854775807"), 21, "w(9223372036854775808");
  e = err_text(bad, "plume");
  EXPECT_EQ(e.line, 63);
  EXPECT_EQ(e.column, 3);
}

TEST(Formats, NondigitMaskAgreesWithAByteLoop) {
  // The SIMD classification (whichever this build compiles) and the portable SWAR one, on
  // random bytes biased towards digits and the bytes next to them ('/', ':', 0x80..0xFF).
  std::mt19937_64 rng(7);
  std::string buf(64, '\0');
  for (int round = 0, n = scaled(20000); round < n; ++round) {
    for (char& c : buf) {
      const int pick = static_cast<int>(rng() % 8);
      c = pick < 5 ? static_cast<char>('0' + rng() % 10)
                   : pick == 5 ? "/:,()\n-r"[rng() % 9] : static_cast<char>(rng() & 0xFF);
    }
    uint64_t expected = 0;
    for (int i = 0; i < 64; ++i)
      if (buf[static_cast<size_t>(i)] < '0' || buf[static_cast<size_t>(i)] > '9') expected |= uint64_t{1} << i;
    ASSERT_EQ(fmt::nondigit_mask64(buf.data()), expected) << round;
    ASSERT_EQ(fmt::nondigit_mask64_swar(buf.data()), expected) << round;
  }
  for (unsigned n = 1; n <= 8; ++n) {
    std::string digits = std::string("98765432").substr(0, n) + "xxxxxxxx";
    EXPECT_EQ(fmt::digits_value(fmt::load_u64(digits.data()), n), std::stoull(digits.substr(0, n)));
  }
}

TEST(Formats, PlumeNumbersOfEveryLengthParseOnEveryPath) {
  // Lines whose numbers have 1..19 digits and either sign go through the vector path (up to 8
  // digits, no sign), the scalar path (signs, up to 18 digits) or the careful scanner (19
  // digits, the last lines of the file): each must read back exactly what was written.
  std::mt19937_64 rng(11);
  auto number = [&](unsigned digits, bool neg) {
    std::string d = std::to_string(1 + rng() % 9);
    while (d.size() < digits) d += static_cast<char>('0' + rng() % 10);
    if (digits == 19) d[0] = '1';  // stays below 2^63
    return (neg ? "-" : "") + d;
  };
  std::string text;
  std::vector<std::pair<std::string, std::string>> expect;  // key, value per line
  for (int i = 0, n = scaled(3000); i < n; ++i) {
    const std::string key = number(1 + static_cast<unsigned>(rng() % 19), rng() % 7 == 0);
    const std::string value = number(1 + static_cast<unsigned>(rng() % 12), false) + std::to_string(i);
    const std::string session = number(1 + static_cast<unsigned>(rng() % 9), false);
    text += std::string(i % 2 ? "w(" : "r(") + key + "," + value + "," + session + "," +
            std::to_string(100000 + i) + ")\n";
    expect.emplace_back(key, value);
  }
  History h = ok_text(text, "plume");
  ASSERT_EQ(h.num_ops(), expect.size());
  std::multiset<std::string> want, got;
  for (size_t i = 0; i < expect.size(); ++i)
    want.insert(std::string(i % 2 ? "w(" : "r(") + expect[i].first + ", " + expect[i].second + ")");
  for (uint32_t op = 0; op < h.num_ops(); ++op) got.insert(h.op_text(op));
  EXPECT_EQ(got, want);
}

TEST(Formats, PlumeGroupsInterleavedTransactionsAndAbortedRuns) {
  History h = ok_text(
      "w(1,1,1,10)\n"
      "w(2,1,0,20)\n"
      "r(2,1,1,10)\n"  // txn 10 continues after a line of session 0
      "w(3,5,0,-1)\n"  // an aborted op of session 0
      "w(4,5,0,-1)\n"  // same run
      "r(1,1,0,21)\n"
      "w(5,5,0,-1)\n"  // a new run
      "r(3,0,1,11)\r\n",
      "plume");
  EXPECT_EQ(h.format, "plume");
  ASSERT_EQ(h.num_sessions(), 2u);
  // Session 0 (id 0): txn 20, aborted run, txn 21, aborted run; session 1: txn 10, txn 11.
  EXPECT_EQ(h.session_begin, (std::vector<uint32_t>{1, 5, 7}));
  EXPECT_EQ(h.txns[2].status, TxnStatus::Aborted);
  EXPECT_EQ(h.txns[2].size(), 2u);
  EXPECT_EQ(h.txns[4].status, TxnStatus::Aborted);
  EXPECT_EQ(h.txns[5].size(), 2u);
  EXPECT_EQ(h.op_text(h.txns[5].op_begin), "w(1, 1)");
  EXPECT_EQ(h.op_text(h.txns[5].op_begin + 1), "r(2, 1)");
  EXPECT_EQ(h.labels[h.txns[5].label], "10");
  EXPECT_EQ(h.read_from[h.txns[6].op_begin], kReadsInitial);
}

TEST(Formats, AwditErrors) {
  InputError e = err_text("w 0 0\n-----\nr 0 x\n", "awdit-test");
  EXPECT_EQ(e.line, 3);
  EXPECT_EQ(e.column, 5);
  e = err_text("w 0 0\n=====\nx 0 0\n", "awdit-test");
  EXPECT_EQ(e.line, 3);
  e = err_text("w 0 0 7\n", "awdit-test");
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.column, 7);
  e = err_text("", "awdit-test");
  EXPECT_NE(e.message.find("none"), std::string::npos);
  // No implicit initial value: a read of 0 with no write of 0 is thin air (not an error).
  History h = ok_text("r 1 0\n", "awdit-test");
  EXPECT_EQ(h.read_from[0], kThinAir);
  // Empty transactions and sessions are skipped, as AWDIT does.
  h = ok_text("w 1 1\n-----\n-----\n=====\n=====\nr 1 1\n\n", "awdit-test");
  EXPECT_EQ(h.num_sessions(), 2u);
  EXPECT_EQ(h.num_txns(), 2u);
}

TEST(Formats, DbcopBincodeHostileInput) {
  SKIP_WITHOUT_CORPUS();
  std::string bytes = slurp(corpus("dbcop-oopsla19/galera_all_writes/3_30_20_180/hist-00000/history.bincode"));
  ASSERT_GT(bytes.size(), 1000u);
  // Every truncation is an error naming a byte offset, never a crash.
  for (size_t n = 0; n < bytes.size(); n += (n < 300 ? 1 : 97)) {
    std::string cut = bytes.substr(0, n);
    InputFile f{"history.bincode", cut};
    Expected<History> h = read_dbcop_bincode(std::span<const InputFile>(&f, 1));
    ASSERT_FALSE(h.ok()) << n;
    EXPECT_EQ(h.error().file, "history.bincode");
    EXPECT_GE(h.error().offset, 0) << n;
    EXPECT_LE(h.error().offset, static_cast<int64_t>(n));
  }
  // A bad write flag.
  {
    std::string bad = bytes;
    auto le = [&](size_t at) {
      uint64_t v = 0;
      for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bad[at + static_cast<size_t>(i)]);
      return v;
    };
    size_t first_event = 40;
    for (int i = 0; i < 3; ++i) first_event += 8 + le(first_event);  // info, start, end
    first_event += 8 + 8 + 8;  // #sessions, #transactions, #events
    ASSERT_EQ(static_cast<unsigned char>(bad[first_event]), 1u);
    bad[first_event] = 7;
    InputFile f{"h.bincode", bad};
    Expected<History> h = read_dbcop_bincode(std::span<const InputFile>(&f, 1));
    ASSERT_FALSE(h.ok());
    EXPECT_EQ(h.error().offset, static_cast<int64_t>(first_event));
    EXPECT_NE(h.error().message.find("write flag"), std::string::npos) << h.error().message;
  }
  // Trailing garbage.
  {
    std::string bad = bytes + "xyz";
    InputFile f{"h.bincode", bad};
    Expected<History> h = read_dbcop_bincode(std::span<const InputFile>(&f, 1));
    ASSERT_FALSE(h.ok());
    EXPECT_EQ(h.error().offset, static_cast<int64_t>(bytes.size()));
  }
  // Random corruption never crashes.
  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) {
    std::string bad = bytes;
    for (int k = 0; k < 4; ++k) bad[rng() % bad.size()] = static_cast<char>(rng());
    InputFile f{"h.bincode", bad};
    Expected<History> h = read_dbcop_bincode(std::span<const InputFile>(&f, 1));
    if (!h.ok()) EXPECT_FALSE(h.error().message.empty());
  }
  // A directory without history.bincode, and one with two.
  std::vector<InputFile> two = {{"a/history.bincode", bytes}, {"b/history.bincode", bytes}};
  Expected<History> h2 = read_dbcop_bincode(two);
  ASSERT_FALSE(h2.ok());
  EXPECT_NE(h2.error().message.find("2 files"), std::string::npos) << h2.error().message;
  std::vector<InputFile> none = {{"d/readme.md", "x"}, {"d/other", "y"}};
  EXPECT_FALSE(read_dbcop_bincode(none).ok());
}

TEST(Formats, CobraHostileInput) {
  SKIP_WITHOUT_CORPUS();
  LoadedFiles lf = load_path(corpus("cobra/cock-G2"));
  ASSERT_EQ(lf.files.size(), 10u);
  std::string log = std::string(lf.files[3].bytes);
  for (size_t n = 1; n < log.size(); n += 7) {
    std::string cut = log.substr(0, n);
    InputFile f{"T3.log", cut};
    Expected<History> h = read_cobra(std::span<const InputFile>(&f, 1));
    if (!h.ok()) {
      EXPECT_EQ(h.error().file, "T3.log");
      EXPECT_GE(h.error().offset, 0);
    }  // a cut right after a record loads, with the last transaction Unknown
  }
  // A wrong record tag.
  {
    std::string bad = log;
    bad[9] = 'Q';
    InputFile f{"T3.log", bad};
    Expected<History> h = read_cobra(std::span<const InputFile>(&f, 1));
    ASSERT_FALSE(h.ok());
    EXPECT_EQ(h.error().offset, 9);
    EXPECT_NE(h.error().message.find("record tag"), std::string::npos) << h.error().message;
  }
  // A commit of another transaction.
  {
    std::string bad = log;
    size_t c = bad.find('C');
    ASSERT_NE(c, std::string::npos);
    bad[c + 8] = static_cast<char>(bad[c + 8] ^ 1);
    InputFile f{"T3.log", bad};
    Expected<History> h = read_cobra(std::span<const InputFile>(&f, 1));
    ASSERT_FALSE(h.ok());
    EXPECT_NE(h.error().message.find("open transaction"), std::string::npos) << h.error().message;
  }
  // Random corruption never crashes.
  std::mt19937 rng(11);
  for (int i = 0; i < 300; ++i) {
    std::string bad = log;
    for (int k = 0; k < 3; ++k) bad[rng() % bad.size()] = static_cast<char>(rng());
    InputFile f{"T3.log", bad};
    (void)read_cobra(std::span<const InputFile>(&f, 1));
  }
  // A transaction id in two logs.
  std::vector<InputFile> dup = {{"d/T1.log", log}, {"d/T2.log", log}};
  Expected<History> h = read_cobra(dup);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().file, "d/T2.log");
  EXPECT_NE(h.error().message.find("d/T1.log"), std::string::npos) << h.error().message;
  // No logs at all / only empty logs.
  std::vector<InputFile> none = {{"d/a.txt", "x"}, {"d/b.txt", "y"}};
  EXPECT_FALSE(read_cobra(none).ok());
  std::vector<InputFile> empty = {{"d/T1.log", ""}};
  EXPECT_FALSE(read_cobra(empty).ok());
}

TEST(Formats, CobraTimestampsAndOpenTransactions) {
  auto be = [](std::string& s, uint64_t v) {
    for (int i = 7; i >= 0; --i) s += static_cast<char>((v >> (i * 8)) & 0xFF);
  };
  std::string log;
  log += 'S'; be(log, 0x100); be(log, 1000);
  log += 'W'; be(log, 77); be(log, 5); be(log, 0xabc);
  log += 'C'; be(log, 0x100); be(log, 2000);
  log += 'S'; be(log, 0x101); be(log, 3000);
  log += 'R'; be(log, 0x100); be(log, 77); be(log, 5); be(log, 0xabc);
  log += 'R'; be(log, 0xbebeebee); be(log, 0xbebeebee); be(log, 6); be(log, 0);
  log += 'R'; be(log, 0x999); be(log, 78); be(log, 5); be(log, 0);  // dangling
  std::vector<InputFile> files = {{"logs/T0.log", log}, {"logs/notes.txt", "hello"}};
  ASSERT_TRUE(detect_cobra(files));
  Expected<History> h = read_history(files);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->format, "cobra");
  ASSERT_EQ(h->num_txns(), 2u);
  EXPECT_TRUE(h->has_timestamps);
  EXPECT_EQ(h->times[1].start, Time::integer(1000));
  EXPECT_EQ(h->times[1].end, Time::integer(2000));
  EXPECT_EQ(h->txns[2].status, TxnStatus::Unknown);  // no 'C': the log ended
  EXPECT_EQ(h->read_from[1], 0u);
  EXPECT_EQ(h->read_from[2], kReadsInitial);
  EXPECT_EQ(h->read_from[3], kThinAir);
  EXPECT_TRUE(h->txns[2].committed == false || h->txns[2].committed == true);
}

// VeriStrong's repeated-value Cobra logs: reads name writer 0xabddefee ("any transaction") and
// a write is known by its (write id, value) pair; the same write id may carry different values.
TEST(Formats, CobraReadsNamingAnyWriter) {
  auto be = [](std::string& s, uint64_t v) {
    for (int i = 7; i >= 0; --i) s += static_cast<char>((v >> (i * 8)) & 0xFF);
  };
  const uint64_t any = 0xabddefee;
  std::string a, b;
  a += 'S'; be(a, 0x100);
  a += 'W'; be(a, 7); be(a, 5); be(a, 11);  // key 5: write id 7, value 11
  a += 'W'; be(a, 7); be(a, 6); be(a, 40);  // key 6: (7, 40)
  a += 'C'; be(a, 0x100);
  b += 'S'; be(b, 0x200);
  b += 'W'; be(b, 7); be(b, 5); be(b, 12);  // key 5: the same write id, another value
  b += 'W'; be(b, 7); be(b, 6); be(b, 40);  // key 6: (7, 40) again: a repeated pair
  b += 'C'; be(b, 0x200);
  b += 'S'; be(b, 0x300);
  b += 'R'; be(b, any); be(b, 7); be(b, 5); be(b, 12);  // T 0x200's write only
  b += 'R'; be(b, any); be(b, 7); be(b, 6); be(b, 40);  // either write
  b += 'R'; be(b, any); be(b, 7); be(b, 5); be(b, 13);  // a pair nobody wrote
  b += 'R'; be(b, 0xbebeebee); be(b, 0xbebeebee); be(b, 9); be(b, 3);
  b += 'C'; be(b, 0x300);
  std::vector<InputFile> files = {{"logs/T1.log", a}, {"logs/T2.log", b}};
  Expected<History> h = read_history(files);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->format, "cobra");
  ASSERT_EQ(h->num_txns(), 3u);
  EXPECT_EQ(h->repeated_pairs, 1u);  // (6, 7/40) only: (5, 7/11) and (5, 7/12) differ
  EXPECT_EQ(h->read_from[4], 2u);  // txn 0 is the initial one; ops: T1 w w (0, 1), T2 w w (2, 3), T3 r r r r (4-7)
  EXPECT_EQ(h->read_from[5], kAmbiguous);
  EXPECT_EQ(h->read_from[6], kThinAir);
  EXPECT_EQ(h->read_from[7], kReadsInitial);
  ASSERT_EQ(h->ambiguous.op.size(), 1u);
  EXPECT_EQ(h->ambiguous.op[0], 5u);
  // --unique-values refuses the repeated pair.
  std::optional<InputError> strict = unique_values_error(*h, files);
  ASSERT_TRUE(strict.has_value());
  EXPECT_NE(strict->message.find("written"), std::string::npos) << strict->message;
}

TEST(Formats, DbcopJson) {
  const std::string bare = R"([
    [{"events": [{"Write": {"variable": 0, "version": 1}}, {"Read": {"variable": 1, "version": null}}], "committed": true},
     {"events": [{"Read": {"variable": 0, "version": 1}}], "committed": false}],
    [{"events": [{"Write": {"variable": "y", "version": 2}}, {"Read": {"variable": 0, "version": 1}}], "committed": true}]
  ])";
  History h = ok_text(bare);
  EXPECT_EQ(h.format, "dbcop-json");
  EXPECT_EQ(h.num_sessions(), 2u);
  EXPECT_EQ(h.num_txns(), 3u);
  EXPECT_EQ(h.num_ops(), 5u);
  EXPECT_EQ(h.txns[2].status, TxnStatus::Aborted);
  EXPECT_EQ(h.read_from[1], kReadsInitial);
  EXPECT_EQ(h.read_from[2], 0u);
  EXPECT_EQ(h.op_text(3), "w(y, 2)");
  History w = ok_text(R"({"params": {"id": 0, "n_node": 2}, "info": "x", "data": )" + bare + "}");
  EXPECT_EQ(w.format, "dbcop-json");
  EXPECT_EQ(dump_sessions(w), dump_sessions(h));
  // Errors: a JSON path and a place.
  InputError e = err_text(R"([[{"events": [{"Write": {"variable": 0, "version": null}}]}]])", "dbcop-json");
  EXPECT_NE(e.message.find("session 0, transaction 0, event 0"), std::string::npos) << e.message;
  EXPECT_EQ(e.line, 1);
  e = err_text("[[{\"events\": [{\"Delete\": {}}]}]]", "dbcop-json");
  EXPECT_NE(e.message.find("\"Write\" or \"Read\""), std::string::npos) << e.message;
  e = err_text("[[{\"events\": [\n{\"Write\": {\"variable\": 0, \"version\": 1}},\n", "dbcop-json");
  EXPECT_FALSE(e.message.empty());
  e = err_text("", "dbcop-json");
  EXPECT_FALSE(e.message.empty());
  e = err_text(R"({"params": {}})", "dbcop-json");
  EXPECT_NE(e.message.find("\"data\""), std::string::npos) << e.message;
}

TEST(Formats, DbcopText) {
  const std::string text =
      "// two sessions\n"
      "[x:=1 y:=1]\n"
      "[x==1, y==?]!  [z:=3]\n"
      "---\n"
      "[ x==1\n  z==3 ] // spans lines\n";
  History h = ok_text(text);
  EXPECT_EQ(h.format, "dbcop-text");
  EXPECT_EQ(h.num_sessions(), 2u);
  EXPECT_EQ(h.num_txns(), 4u);
  EXPECT_EQ(h.num_ops(), 7u);
  EXPECT_EQ(h.txns[2].status, TxnStatus::Aborted);
  EXPECT_EQ(h.read_from[3], kReadsInitial);
  EXPECT_EQ(h.op_text(0), "w(x, 1)");
  InputError e = err_text("[x:=1]\n[y=2]\n", "dbcop-text");
  EXPECT_EQ(e.line, 2);
  EXPECT_EQ(e.column, 3);
  e = err_text("[x:=1\n", "dbcop-text");
  EXPECT_EQ(e.line, 1);
  EXPECT_NE(e.message.find("not closed"), std::string::npos) << e.message;
  e = err_text("[x:=a]", "dbcop-text");
  EXPECT_EQ(e.column, 5);
  e = err_text("// nothing\n", "dbcop-text");
  EXPECT_NE(e.message.find("none"), std::string::npos);
}

TEST(Formats, ElleEdnListAppend) {
  const std::string edn =
      "{:type :invoke, :f :txn, :value [[:append :x 1] [:r :y nil]], :process 0, :time 10, :index 0}\n"
      "{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :time 11, :index 1}\n"
      "{:type :ok, :f :txn, :value [[:append :x 1] [:r :y []]], :process 0, :time 20, :index 2}\n"
      "{:type :info, :f :start-partition, :process :nemesis, :time 21}\n"
      "{:type :ok, :f :txn, :value [[:r :x [1]]], :process 1, :time 30, :index 3}\n"
      "{:type :invoke, :f :txn, :value [[:append :y 2] [:r :x nil]], :process 0, :time 40, :index 4}\n"
      "{:type :fail, :f :txn, :value [[:append :y 2] [:r :x nil]], :process 0, :time 50, :index 5}\n"
      "{:type :invoke, :f :txn, :value [[:append :x 3]], :process 2, :time 60, :index 6}\n"
      "{:type :info, :f :txn, :value [[:append :x 3]], :process 2, :time 70, :index 7}\n"
      "{:type :invoke, :f :txn, :value [[:r :x nil]], :process 3, :time 80, :index 8}\n";
  History h = ok_text(edn);
  EXPECT_EQ(h.format, "elle");
  EXPECT_TRUE(h.has_lists);
  EXPECT_TRUE(h.has_timestamps);
  ASSERT_EQ(h.num_sessions(), 4u);
  ASSERT_EQ(h.num_txns(), 5u);
  // Process 0: the ok txn, then the failed one (its nil read dropped).
  EXPECT_EQ(h.txns[1].status, TxnStatus::Committed);
  EXPECT_EQ(h.times[1].start, Time::integer(10));
  EXPECT_EQ(h.times[1].end, Time::integer(20));
  EXPECT_EQ(h.labels[h.txns[1].label], "2");
  EXPECT_EQ(h.op_text(h.txns[1].op_begin), "append(x, 1)");
  EXPECT_EQ(h.op_text(h.txns[1].op_begin + 1), "r(y, [])");
  EXPECT_EQ(h.txns[2].status, TxnStatus::Aborted);
  EXPECT_EQ(h.txns[2].size(), 1u);
  EXPECT_EQ(h.txns[3].status, TxnStatus::Committed);  // process 1
  EXPECT_EQ(h.read_from[h.txns[3].op_begin], h.txns[1].op_begin);
  EXPECT_EQ(h.txns[4].status, TxnStatus::Unknown);  // :info
  EXPECT_EQ(h.txns[5].status, TxnStatus::Unknown);  // never completed
  EXPECT_EQ(h.txns[5].size(), 0u);                  // its read was never observed
  EXPECT_TRUE(check_list_prefixes(h).empty());
}

TEST(Formats, ElleJsonAndRegisters) {
  const std::string json = R"([
    {"type": "invoke", "f": "txn", "value": [["w", 1, 5], ["r", 2, null]], "process": 0, "time": 1, "index": 0},
    {"type": "ok", "f": "txn", "value": [["w", 1, 5], ["r", 2, null]], "process": 0, "time": 2, "index": 1},
    {"type": "ok", "f": "txn", "value": [["r", 1, 5], ["r", "k\u0041", 7]], "process": 1, "time": 3, "index": 2}
  ])";
  History h = ok_text(json);
  EXPECT_EQ(h.format, "elle");
  EXPECT_FALSE(h.has_lists);
  ASSERT_EQ(h.num_txns(), 2u);
  EXPECT_EQ(h.read_from[1], kReadsInitial);  // rw-register: nil is the initial value
  EXPECT_EQ(h.read_from[2], 0u);
  EXPECT_EQ(h.read_from[3], kThinAir);
  EXPECT_EQ(h.keys.display(h.ops[3].key), "kA");
  EXPECT_TRUE(h.txns[1].has_time());
  EXPECT_FALSE(h.txns[2].has_time());  // no invocation
  // One JSON object a line works too.
  History l = ok_text(
      "{\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"append\",\"x\",1]],\"process\":0}\n"
      "{\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"r\",\"x\",[1]]],\"process\":1}\n");
  EXPECT_EQ(l.format, "elle");
  EXPECT_EQ(l.num_txns(), 2u);
  EXPECT_EQ(l.read_from[1], 0u);
}

TEST(Formats, ElleTaggedVectorAndErrors) {
  History h = ok_text(
      "[#jepsen.history.Op{:index 0, :time 5, :type :ok, :process 0, :f :txn, :value [[:append 1 1]]}\n"
      " #jepsen.history.Op{:index 1, :time 6, :type :ok, :process 1, :f :txn, :value [[:r 1 [1]] [:r 2 nil]]}]\n");
  EXPECT_EQ(h.format, "elle");
  EXPECT_EQ(h.num_txns(), 2u);
  EXPECT_EQ(h.op_text(2), "r(2, [])");
  InputError e = err_text("{:type :ok, :f :txn, :value [[:append :x 1] [:bogus :x 1]], :process 0}\n", "elle");
  EXPECT_EQ(e.line, 1);
  EXPECT_EQ(e.column, 46);
  e = err_text("{:type :ok, :f :txn, :value [[:append :x 1]], :process 0}\n{:type :ok, :f :txn\n", "elle");
  EXPECT_EQ(e.line, 2);
  EXPECT_NE(e.message.find("not closed"), std::string::npos) << e.message;
  e = err_text("{:type :weird, :f :txn, :value [], :process 0}", "elle");
  EXPECT_NE(e.message.find(":invoke, :ok, :fail or :info"), std::string::npos) << e.message;
  e = err_text("{:type :ok, :f :read, :value 3, :process 0}", "elle");
  EXPECT_NE(e.message.find(":f :txn"), std::string::npos) << e.message;
  e = err_text("{:type :invoke, :f :txn, :value [], :process 0}\n{:type :invoke, :f :txn, :value [], :process 0}\n",
               "elle");
  EXPECT_EQ(e.line, 2);
  std::string deep(200, '[');
  e = err_text("{:type :ok, :f :txn, :process 0, :value " + deep, "elle");
  EXPECT_FALSE(e.message.empty());
  e = err_text("", "elle");
  EXPECT_FALSE(e.message.empty());
}

TEST(Formats, ListPrefixIncompatibleOrder) {
  History h = ok_text(
      "{:type :ok, :f :txn, :value [[:append :x 1] [:append :x 2]], :process 0}\n"
      "{:type :ok, :f :txn, :value [[:append :x 3]], :process 1}\n"
      "{:type :ok, :f :txn, :value [[:r :x [1 2 3]]], :process 2}\n"
      "{:type :ok, :f :txn, :value [[:r :x [1 3]]], :process 3}\n"
      "{:type :ok, :f :txn, :value [[:r :x [1 2]]], :process 4}\n");
  std::vector<Anomaly> as = check_list_prefixes(h);
  ASSERT_EQ(as.size(), 1u);
  EXPECT_EQ(name_of(as[0].kind), "IncompatibleOrder");
  EXPECT_EQ(as[0].txns.size(), 2u);
  EXPECT_NE(as[0].explanation.find("[1 3]"), std::string::npos) << as[0].explanation;
  History d = ok_text(
      "{:type :ok, :f :txn, :value [[:append :x 1]], :process 0}\n"
      "{:type :ok, :f :txn, :value [[:r :x [1 1]]], :process 1}\n");
  as = check_list_prefixes(d);
  ASSERT_EQ(as.size(), 1u);
  EXPECT_EQ(name_of(as[0].kind), "DuplicateElements");
}

// ---- detection ------------------------------------------------------------------------------

TEST(Formats, DetectionKeepsFormatsApart) {
  EXPECT_EQ(ok_text("r(1,0,0,0)\n").format, "plume");
  EXPECT_EQ(ok_text("r 1 0\n").format, "awdit-test");
  EXPECT_EQ(ok_text("=====\nw 1 0\n").format, "awdit-test");
  EXPECT_EQ(ok_text("[x:=1]\n").format, "dbcop-text");
  EXPECT_EQ(ok_text("---\n[x==?]\n").format, "dbcop-text");
  EXPECT_EQ(ok_text("[[{\"events\":[{\"Write\":{\"variable\":0,\"version\":1}}],\"committed\":true}]]").format,
            "dbcop-json");
  EXPECT_EQ(ok_text("{:type :ok, :f :txn, :value [[:w 1 1]], :process 0}").format, "elle");
  // Garbage is recognised as nothing.
  EXPECT_FALSE(read_text("hello world\n").ok());
  EXPECT_FALSE(read_text(std::string("\x00\x01\x02", 3)).ok());
  for (const FormatInfo& f : all_formats()) {
    InputFile empty{"empty", ""};
    EXPECT_FALSE(f.detect(std::span<const InputFile>(&empty, 1)) && std::string(f.name) != "cobra") << f.name;
    Expected<History> h = f.read(std::span<const InputFile>(&empty, 1), nullptr);
    EXPECT_FALSE(h.ok()) << f.name << " accepted an empty file";
    std::vector<InputFile> no_files;
    EXPECT_FALSE(f.read(no_files, nullptr).ok()) << f.name;
  }
}

// ---- round trips --------------------------------------------------------------------------

TEST(Formats, RoundTripThroughIsoscopeJsonAndPlume) {
  SKIP_WITHOUT_CORPUS();
  const char* inputs[] = {"polysi/galera-lost-update.txt", "isovista/dgraph_si.txt",
                          "dbcop-oopsla19/roachdb_all_writes/3_30_20_180/hist-00001/history.bincode",
                          "polysi/dgraph/history.bincode", "awdit/causal/long-fork.txt", "cobra/cock-G2",
                          "cobra/cock-blog"};
  for (const char* rel : inputs) {
    SCOPED_TRACE(rel);
    History a = ok_path(rel);
    std::string json = write_isoscope_json(a);
    Expected<History> b = read_text(json, "isoscope", "roundtrip.json");
    ASSERT_TRUE(b.ok()) << b.error().to_string();
    EXPECT_EQ(b->num_sessions(), a.num_sessions());
    EXPECT_EQ(b->num_txns(), a.num_txns());
    EXPECT_EQ(b->num_ops(), a.num_ops());
    EXPECT_EQ(dump_sessions(*b), dump_sessions(a));
    EXPECT_EQ(b->read_from, a.read_from);
    Expected<std::string> plume = write_plume(a);
    if (!plume.ok()) continue;  // e.g. a non-zero initial value (Cobra), or no initial value
    Expected<History> c = read_text(*plume, "plume", "roundtrip.txt");
    ASSERT_TRUE(c.ok()) << c.error().to_string();
    EXPECT_EQ(c->num_ops(), a.num_ops());
    EXPECT_EQ(c->read_from, a.read_from);
    // Plume marks aborted operations with txn -1 and nothing else, so adjacent aborted
    // transactions of a session come back as one (and an empty one vanishes): the committed
    // transactions and every operation (with its transaction's status) survive exactly.
    EXPECT_EQ(count_status(*c, TxnStatus::Committed), count_status(a, TxnStatus::Committed));
    EXPECT_EQ(dump_ops(*c), dump_ops(a));
    if (count_status(a, TxnStatus::Aborted) == 0) EXPECT_EQ(dump_sessions(*c), dump_sessions(a));
  }
}

// Elle's strings are strict, as JSON and EDN define them: a bad escape is an error at its
// backslash, never a guess; surrogate pairs become one UTF-8 character.
TEST(Formats, ElleStringsAreStrict) {
  auto history = [](const std::string& key) {
    return "{:type :invoke, :f :txn, :value [[:w " + key + " 1]], :process 0, :index 0}\n"
           "{:type :ok, :f :txn, :value [[:w " + key + " 1]], :process 0, :index 1}\n";
  };
  struct Bad {
    const char* key;
    const char* message;
  };
  for (const Bad& b : {Bad{R"("a\u12")", "exactly four hex digits"}, Bad{R"("a\q")", "unknown escape '\\q'"},
                       Bad{R"("\uDC00")", "lone low surrogate \\uDC00"}, Bad{R"("\uD800x")", "lone high surrogate \\uD800"},
                       Bad{R"("\uD800\u0041")", "lone high surrogate"}}) {
    InputError e = err_text(history(b.key), "elle");
    EXPECT_NE(e.message.find(b.message), std::string::npos) << b.key << ": " << e.message;
    EXPECT_EQ(e.line, 1) << b.key;
    EXPECT_GE(e.column, 38) << b.key;  // at the backslash, inside :value
  }
  History h = ok_text(history(R"("x\uD83D\uDE00\u00e9\n")"), "elle");
  EXPECT_EQ(h.keys.as_str(h.ops[0].key), "x\xF0\x9F\x98\x80\xC3\xA9\n");
  // JSON (elle-cli) forbids raw control characters inside strings
  InputError e = err_text("[{\"type\": \"ok\", \"f\": \"txn\", \"value\": [[\"w\", \"a\tb\", 1]], \"process\": 0}]", "elle");
  EXPECT_NE(e.message.find("control character"), std::string::npos) << e.message;
}
