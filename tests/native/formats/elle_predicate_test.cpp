// Elle's closed-predicate histories (issue 38): :init rows, :insert, :delete and :rp predicate
// reads, read as tables (docs/formats.md). The histories are the cases of Elle's own
// closed-predicate tests, with the verdicts their anomalies imply (and, where isoscope reads the
// history more strictly than Elle's checker, the stricter one docs/formats.md explains).
#include <gtest/gtest.h>

#include <string>

#include "checkers/check.h"
#include "formats/formats.h"
#include "formats/writers.h"
#include "model/anomaly_kinds.h"
#include "test_util.h"

using namespace isoscope;

namespace {

Expected<History> read_closed(const std::string& text) {
  InputFile f{"history.edn", text};
  return read_history(std::span<const InputFile>(&f, 1), "elle");
}

// The weakest level of RC..SER that fails, or "none".
std::string closed_weakest(const History& h) {
  for (Level l : {Level::RC, Level::RR, Level::RA, Level::CC, Level::PC, Level::SI, Level::SER})
    if (verdict(h, l) == Verdict::Fail) return level_name(l);
  return "none";
}

std::string closed_error(const std::string& text) {
  Expected<History> h = read_closed(text);
  return h.ok() ? "" : h.error().to_string();
}

constexpr const char* kClosedInitXY0 =
    "{:process 0, :type :invoke, :f :init, :value {:x 0, :y 0}}\n"
    "{:process 0, :type :ok,     :f :init, :value {:x 0, :y 0}}\n";

}  // namespace

TEST(EllePredicates, InitRowsAndPredicateReadsMakeATable) {
  Expected<History> h = read_closed(std::string(kClosedInitXY0) +
                                  "{:process 0, :type :invoke, :f :txn, :value [[:rp [:= 0] nil] [:w :x 1]]}\n"
                                  "{:process 0, :type :ok,     :f :txn, :value [[:rp [:= 0] {:x 0, :y 0}] [:w :x 1]]}\n");
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_TRUE(h->has_rows());
  EXPECT_EQ(h->num_txns(), 1u);  // :init is the initial state, not a transaction
  ASSERT_EQ(h->predicates.size(), 1u);
  EXPECT_EQ(h->predicates[0].text, "value = 0");
  ASSERT_EQ(h->predicate_reads.size(), 1u);
  EXPECT_EQ(h->values.display(*h->initial_of(h->keys.intern_str("y"))), "0");
  EXPECT_EQ(closed_weakest(*h), "none");
}

TEST(EllePredicates, ElleCasesGiveTheirAnomalies) {
  // g1c-predicate-read-unseen-universe-write: each select of value 0 returned one row, so the
  // other key was already 1, written by the other transaction: a cycle of write-read edges.
  Expected<History> g1c = read_closed(std::string(kClosedInitXY0) +
                                    "{:process 0, :type :ok, :f :txn, :value [[:rp [:= 0] {:x 0}] [:w :x 1]]}\n"
                                    "{:process 1, :type :ok, :f :txn, :value [[:rp [:= 0] {:y 0}] [:w :y 1]]}\n");
  ASSERT_TRUE(g1c.ok()) << g1c.error().to_string();
  EXPECT_EQ(closed_weakest(*g1c), "RC");
  // g1c-predicate-read-unseen-universe-delete: each deletes a key, and its select of every row
  // returned none, so it saw the other's delete.
  Expected<History> g1c_delete = read_closed(std::string(kClosedInitXY0) +
                                           "{:process 0, :type :ok, :f :txn, :value [[:delete :x] [:rp :true {}]]}\n"
                                           "{:process 1, :type :ok, :f :txn, :value [[:delete :y] [:rp :true {}]]}\n");
  ASSERT_TRUE(g1c_delete.ok()) << g1c_delete.error().to_string();
  EXPECT_EQ(closed_weakest(*g1c_delete), "RC");
  // g2-predicate-read-unseen-universe-write: predicate write skew. Each select of value 1
  // returned none, so each saw the other key at 0, and each then wrote 1: SI allows it.
  Expected<History> g2 = read_closed(std::string(kClosedInitXY0) +
                                   "{:process 0, :type :ok, :f :txn, :value [[:rp [:= 1] {}] [:w :x 1]]}\n"
                                   "{:process 1, :type :ok, :f :txn, :value [[:rp [:= 1] {}] [:w :y 1]]}\n");
  ASSERT_TRUE(g2.ok()) << g2.error().to_string();
  EXPECT_EQ(closed_weakest(*g2), "SER");
  // The same, but one deletes instead: its select may have seen x's delete (x is null, not 1)
  // or the initial 0, so the other order is possible: serializable.
  Expected<History> g2_delete = read_closed(std::string(kClosedInitXY0) +
                                          "{:process 0, :type :ok, :f :txn, :value [[:rp [:= 1] {}] [:w :x 1]]}\n"
                                          "{:process 1, :type :ok, :f :txn, :value [[:rp [:= 1] {}] [:delete :y]]}\n");
  ASSERT_TRUE(g2_delete.ok()) << g2_delete.error().to_string();
  EXPECT_EQ(closed_weakest(*g2_delete), "none");
  // wr-g1c-item: reads of rows inserted, deleted (a read of nil) and written form a cycle.
  Expected<History> item = read_closed("{:process 0, :type :ok, :f :init, :value {:x 0 :z 0}}\n"
                                     "{:process 0, :type :ok, :f :txn, :value [[:r :z 3] [:delete :x]]}\n"
                                     "{:process 1, :type :ok, :f :txn, :value [[:r :x nil] [:insert :y 2]]}\n"
                                     "{:process 2, :type :ok, :f :txn, :value [[:r :y 2] [:w :z 3]]}\n");
  ASSERT_TRUE(item.ok()) << item.error().to_string();
  EXPECT_EQ(closed_weakest(*item), "RC");
  // failure-to-observe (Elle's predicate-read-miss): key 5 only ever held 3, which both
  // predicates match, and neither returned it.
  Expected<History> miss = read_closed("{:index 0, :type :invoke, :process 0, :f :init, :value {5 3}}\n"
                                     "{:index 5, :type :ok, :process 0, :f :init, :value {5 3}}\n"
                                     "{:index 8, :type :ok, :process 1, :f :txn, :value [[:rp [:mod 2 1] {}] [:rp [:= 3] {}]]}\n");
  ASSERT_TRUE(miss.ok()) << miss.error().to_string();
  EXPECT_EQ(closed_weakest(*miss), "RC");
  CheckOptions opts;
  opts.levels = {Level::RC};
  const CheckReport r = check_history(*miss, opts);
  const LevelResult& rc = r.results[static_cast<size_t>(Level::RC)];
  ASSERT_FALSE(rc.anomalies.empty());
  EXPECT_EQ(kind_name(rc.anomalies[0].kind), std::string("ThinAirRead"));
}

TEST(EllePredicates, APredicateReadSeesItsOwnWrites) {
  // Elle's g2-predicate-read-unseen: each transaction writes a key, then selects every row and
  // gets none, its own write included. Elle reports G2; a transaction that misses its own write
  // fails every level.
  Expected<History> h = read_closed("{:process 0, :type :ok, :f :txn, :value [[:w :x 1] [:rp :true {}]]}\n"
                                  "{:process 1, :type :ok, :f :txn, :value [[:w :y 2] [:rp :true {}]]}\n");
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(closed_weakest(*h), "RC");
}

TEST(EllePredicates, ConvertsToIsoscopeJsonWithTheSameVerdicts) {
  Expected<History> h = read_closed(std::string(kClosedInitXY0) +
                                  "{:process 0, :type :ok, :f :txn, :value [[:rp [:= 1] {}] [:w :x 1]]}\n"
                                  "{:process 1, :type :ok, :f :txn, :value [[:rp [:mod 2 0] {:x 0}] [:insert :q 4] [:delete :y]]}\n");
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  const std::string json = write_isoscope_json(*h);
  InputFile f{"h.json", json};
  Expected<History> back = read_history(std::span<const InputFile>(&f, 1), "isoscope");
  ASSERT_TRUE(back.ok()) << back.error().to_string() << "\n" << json;
  for (Level l : {Level::RC, Level::RR, Level::RA, Level::CC, Level::PC, Level::SI, Level::SER})
    EXPECT_EQ(verdict(*back, l), verdict(*h, l)) << level_name(l) << "\n" << json;
}

TEST(EllePredicates, BadInputNamesWhatWasExpected) {
  EXPECT_NE(closed_error("{:type :ok, :f :init, :value {:x 1 :x 2}}\n{:type :ok, :value [[:r :x 1]]}\n").find("each key once"), std::string::npos);
  EXPECT_NE(closed_error("{:type :ok, :value [[:rp [:< 2] {:x 1}]]}\n").find("a predicate :true, [:= v] or [:mod m r]"), std::string::npos);
  EXPECT_NE(closed_error("{:type :ok, :value [[:rp [:= 2] {:x 1}]]}\n").find("match the predicate value = 2"), std::string::npos);
  EXPECT_NE(closed_error("{:type :ok, :value [[:rp [:mod 2 1] {:x 1}] [:w :x -1]]}\n").find("divisor's sign"), std::string::npos);
  EXPECT_NE(closed_error("{:type :ok, :value [[:rp [:mod 0 0] {}]]}\n").find("m > 0"), std::string::npos);
  EXPECT_NE(closed_error("{:type :ok, :value [[:delete :x 1]]}\n").find("[:delete k]"), std::string::npos);
  EXPECT_NE(closed_error("{:type :ok, :value [[:rp :true nil]]}\n").find("found nil"), std::string::npos);
  EXPECT_NE(closed_error("{:type :fail, :f :init, :value {:x 1}}\n{:type :ok, :value [[:r :x 1]]}\n").find("complete :ok"), std::string::npos);
  EXPECT_NE(closed_error("{:type :ok, :f :init, :value {:x 1}}\n{:type :ok, :f :init, :value {:y 1}}\n{:type :ok, :value [[:r :x 1]]}\n")
                .find("one :init"),
            std::string::npos);
  EXPECT_NE(closed_error("{:type :ok, :value [[:insert :x 1] [:append :y 2]]}\n").find("found both"), std::string::npos);
}
