// Line endings (issue 22, class 2): CR alone (old Mac OS), LF and CRLF are one thing in every
// text format. With CR-only endings a `;` comment (EDN) or `//` comment (dbcop-text) used to run
// to a '\n' that never came: every later operation vanished and the check passed. Each text
// format's history is read with the three endings and must give the same history, the same
// verdicts, and errors on the same line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "checkers/check.h"
#include "formats/formats.h"
#include "formats/writers.h"
#include "test_util.h"

using namespace isoscope;

namespace {

std::string with_endings(const std::string& lf, const std::string& nl) {
  std::string s;
  for (char c : lf) {
    if (c == '\n')
      s += nl;
    else
      s += c;
  }
  return s;
}

// Every level's verdict, in level order: "RC:pass RR:pass ...".
std::string verdicts(const History& h) {
  const CheckReport r = check_history(h, CheckOptions{});
  std::string s;
  for (int i = 0; i < kNumLevels; ++i)
    if (r.requested[i]) s += std::string(level_name(static_cast<Level>(i))) + ":" + verdict_name(r.results[i].verdict) + " ";
  return s;
}

struct Sample {
  const char* format;
  const char* name;
  std::string lf;       // the history, LF endings
  size_t txns;          // what the LF history holds (a check that the sample means something)
  const char* fails;    // a level the LF history fails
  std::string bad_lf;   // a broken variant, LF endings
  int64_t bad_line;     // the line its error names
};

// Histories with a lost update (SI fails) after comments, in every text format.
std::vector<Sample> samples() {
  return {
      {"elle", "history.edn",
       "; a lost update; the comment comes first\n"
       "{:type :invoke, :f :txn, :value [[:r :x nil] [:w :x 1]], :process 0, :time 1} ; trailing\n"
       "{:type :invoke, :f :txn, :value [[:r :x nil] [:w :x 2]], :process 1, :time 2}\n"
       ";; between\n"
       "{:type :ok, :f :txn, :value [[:r :x nil] [:w :x 1]], :process 0, :time 3}\n"
       "{:type :ok, :f :txn, :value [[:r :x nil] [:w :x 2]], :process 1, :time 4}\n"
       "; the end\n",
       2, "SI",
       "; comment\n"
       "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0}\n"
       "; comment\n"
       "{:type :ok, :f :txn, :value [[:q :x 1]], :process 1}\n",
       4},
      {"elle", "history.json",
       "[{\"type\": \"ok\", \"f\": \"txn\", \"value\": [[\"r\", \"x\", null], [\"w\", \"x\", 1]], \"process\": 0},\n"
       " {\"type\": \"ok\", \"f\": \"txn\", \"value\": [[\"r\", \"x\", null], [\"w\", \"x\", 2]], \"process\": 1}\n"
       "]\n",
       2, "SI",
       "[{\"type\": \"ok\", \"f\": \"txn\", \"value\": [[\"w\", \"x\", 1]], \"process\": 0},\n"
       "\n"
       " {\"type\": \"ok\", \"f\": \"txn\", \"value\": [[\"q\", \"x\", 1]], \"process\": 1}]\n",
       3},
      {"dbcop-text", "h.txt",
       "// a lost update; the comment comes first\n"
       "[x==? x:=1] // t1\n"
       "--- // the second session\n"
       "// between\n"
       "[x==? x:=2]\n"
       "[x==2]\n"
       "// the end\n",
       3, "SI",
       "// comment\n"
       "[x:=1]\n"
       "// comment\n"
       "[x=1]\n",
       4},
      {"plume", "h.plume",
       "r(1,0,0,1)\n"
       "w(1,1,0,1)\n"
       "\n"
       "r(1,0,1,2)\n"
       "w(1,2,1,2)\n"
       "r(1,2,1,3)\n",
       3, "SI",
       "r(1,0,0,1)\n"
       "\n"
       "w(1,1,0,1)\n"
       "w(1,1,0,x)\n",
       4},
      {"awdit-test", "h.txt",
       "w 1 0\n"
       "=====\n"
       "\n"
       "r 1 0\n"
       "w 1 1\n"
       "=====\n"
       "r 1 0\n"
       "w 1 2\n"
       "-----\n"
       "r 1 2\n",
       4, "SI",
       "w 1 0\n"
       "=====\n"
       "\n"
       "q 1 0\n",
       4},
      {"isoscope", "h.json",
       "{\"initial\": 0, \"sessions\": [\n"
       "  [ [[\"r\", \"x\", 0], [\"w\", \"x\", 1]] ],\n"
       "  [ [[\"r\", \"x\", 0], [\"w\", \"x\", 2]] ]\n"
       "]}\n",
       2, "SI",
       "{\"initial\": 0, \"sessions\": [\n"
       "  [ [[\"r\", \"x\", 0], [\"w\", \"x\", 1]] ],\n"
       "\n"
       "  [ [[\"q\", \"x\", 0]] ]\n"
       "]}\n",
       4},
      {"dbcop-json", "h.json",
       "[\n"
       " [{\"events\": [{\"Read\": {\"variable\": 0, \"version\": null}}, {\"Write\": {\"variable\": 0, \"version\": 1}}], \"committed\": true}],\n"
       " [{\"events\": [{\"Read\": {\"variable\": 0, \"version\": null}}, {\"Write\": {\"variable\": 0, \"version\": 2}}], \"committed\": true}]\n"
       "]\n",
       2, "SI",
       "[\n"
       " [{\"events\": [{\"Write\": {\"variable\": 0, \"version\": 1}}], \"committed\": true}],\n"
       "\n"
       " [{\"events\": [{\"Wrote\": {\"variable\": 0, \"version\": 2}}], \"committed\": true}]\n"
       "]\n",
       4},
      // Jepsen object histories (found by the jepsen-log fuzz target: a CR-only log read as one line).
      {"jepsen", "history.edn",
       "; a stale read; the comment comes first\n"
       "{:process 0, :type :invoke, :f :write, :value 1}\n"
       "{:process 0, :type :ok, :f :write, :value 1} ; done\n"
       ";; between\n"
       "{:process 1, :type :invoke, :f :read, :value nil}\n"
       "{:process 1, :type :ok, :f :read, :value nil}\n",
       0, "LIN",
       "; comment\n"
       "{:process 0, :type :invoke, :f :write, :value 1}\n"
       "\n"
       "{:process 0, :type :okay, :f :write, :value 1}\n",
       4},
      {"jepsen-log", "jepsen.log",
       "INFO  jepsen.core - a stale read\n"
       "INFO  jepsen.util - 0\t:invoke\t:write\t1\n"
       "INFO  jepsen.util - 0\t:ok\t:write\t1\n"
       "\n"
       "INFO  jepsen.util - 1\t:invoke\t:read\tnil\n"
       "INFO  jepsen.util - 1\t:ok\t:read\tnil\n",
       0, "LIN",
       "INFO  jepsen.util - 0\t:invoke\t:write\t1\n"
       "\n"
       "INFO  jepsen.util - 0\t:okay\t:write\t1\n",
       3},
  };
}

}  // namespace

TEST(LineEndings, EveryTextFormatReadsCrLfAndCrlfAlike) {
  for (const Sample& s : samples()) {
    Expected<History> lf = read_one(s.name, s.lf, s.format);
    ASSERT_TRUE(lf.ok()) << s.format << ": " << lf.error().to_string();
    if (s.txns) EXPECT_EQ(lf->num_txns(), s.txns) << s.format;
    const std::string want = verdicts(*lf), want_text = write_isoscope_json(*lf);
    if (s.fails) EXPECT_NE(want.find(std::string(s.fails) + ":fail"), std::string::npos) << s.format << ": " << want;
    for (const char* nl : {"\r", "\r\n"}) {
      const std::string text = with_endings(s.lf, nl);
      for (const std::string& format : {std::string(s.format), std::string()}) {  // named and detected
        Expected<History> h = read_one(s.name, text, format);
        ASSERT_TRUE(h.ok()) << s.format << " with " << (nl[1] ? "CRLF" : "CR") << " endings: " << h.error().to_string();
        EXPECT_EQ(h->format, lf->format) << s.format;
        EXPECT_EQ(write_isoscope_json(*h), want_text) << s.format << " with " << (nl[1] ? "CRLF" : "CR") << " endings";
        EXPECT_EQ(verdicts(*h), want) << s.format << " with " << (nl[1] ? "CRLF" : "CR") << " endings";
      }
    }
  }
}

TEST(LineEndings, ErrorsNameTheSameLineWhateverTheEndings) {
  for (const Sample& s : samples()) {
    if (s.bad_lf.empty()) continue;
    for (const char* nl : {"\n", "\r", "\r\n"}) {
      Expected<History> h = read_one(s.name, with_endings(s.bad_lf, nl), s.format);
      ASSERT_FALSE(h.ok()) << s.format;
      EXPECT_EQ(h.error().line, s.bad_line) << s.format << " with " << (nl[0] == '\n' ? "LF" : nl[1] ? "CRLF" : "CR")
                                            << " endings: " << h.error().to_string();
    }
  }
}

// A line break is a line break: it ends an AWDIT or plume line, so an operation cannot continue
// on the next line after a CR, and a CR is not a blank inside a line.
TEST(LineEndings, ACrEndsALine) {
  EXPECT_FALSE(read_one("h.txt", "w\r1 1\r", "awdit-test").ok());
  EXPECT_FALSE(read_one("h.txt", "w 1\r1\r", "awdit-test").ok());
  EXPECT_FALSE(read_one("h.plume", "w(1,1,0,1)\rr", "plume").ok());
  // A comment after the first operation ends at its CR: the operations after it count (they
  // used to vanish, leaving one transaction that passed every level).
  Expected<History> edn = read_one("h.edn",
                                   "{:type :ok, :f :txn, :value [[:r :x nil] [:w :x 1]], :process 0} ; one\r"
                                   "{:type :ok, :f :txn, :value [[:r :x nil] [:w :x 2]], :process 1}\r", "elle");
  ASSERT_TRUE(edn.ok()) << edn.error().to_string();
  EXPECT_EQ(edn->num_txns(), 2u);
  EXPECT_NE(verdicts(*edn).find("SI:fail"), std::string::npos) << verdicts(*edn);
  Expected<History> dbcop = read_one("h.txt", "[x==? x:=1] // one\r---\r[x==? x:=2]\r", "dbcop-text");
  ASSERT_TRUE(dbcop.ok()) << dbcop.error().to_string();
  EXPECT_EQ(dbcop->num_txns(), 2u);
  EXPECT_NE(verdicts(*dbcop).find("SI:fail"), std::string::npos) << verdicts(*dbcop);
  // dbcop-text: a separator line ends at a CR, and the next line is a transaction.
  Expected<History> h = read_one("h.txt", "[x:=1]\r---\r[x==1]\r", "dbcop-text");
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->num_sessions(), 2u);
}

// Line and column of an error, in the shared locator: CR, LF and CRLF each end one line.
TEST(LineEndings, LocateLineCountsEveryEnding) {
  for (const char* nl : {"\n", "\r", "\r\n"}) {
    const std::string text = with_endings("a\nbb\n\nxyz", nl);
    InputError e;
    e.offset = static_cast<int64_t>(text.find('z'));
    locate_line(text, e);
    EXPECT_EQ(e.line, 4) << (nl[0] == '\n' ? "LF" : nl[1] ? "CRLF" : "CR");
    EXPECT_EQ(e.column, 3);
  }
}
