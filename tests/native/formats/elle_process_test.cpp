// Elle's sessions (issue 22, class 3): an operation without :process is a session of its own.
// It used to get a made-up process id (INT64_MIN/2 downwards), so a history whose :process was
// exactly that id merged two sessions: a read then looked like it came before its own writer in
// session order, and a serializable history failed RA and WCC. Now no :process value, however
// chosen, can meet an operation without one.
#include <gtest/gtest.h>

#include <string>

#include "checkers/check.h"
#include "formats/formats.h"

using namespace isoscope;

namespace {

Expected<History> read_elle(const std::string& text) {
  InputFile f{"history.edn", text};
  return read_history(std::span<const InputFile>(&f, 1), "elle");
}

}  // namespace

TEST(ElleProcesses, NoProcessIdMeetsAnOperationWithoutProcess) {
  // The ids the old reader gave the first operations without :process, and their neighbours.
  const int64_t old_synthetic = INT64_MIN / 2;
  for (int64_t id : {old_synthetic, old_synthetic - 1, old_synthetic - 2, old_synthetic + 1, int64_t{0}, INT64_MIN, INT64_MAX}) {
    // T1 (no :process) reads x = 1, which T2 (process `id`) writes: serializable (T2, T1).
    const std::string text = "{:type :ok, :f :txn, :value [[:r :x 1]]}\n"
                             "{:type :ok, :f :txn, :value [[:w :x 1]], :process " + std::to_string(id) + "}\n"
                             "{:type :ok, :f :txn, :value [[:r :y nil]]}\n";
    Expected<History> h = read_elle(text);
    ASSERT_TRUE(h.ok()) << h.error().to_string();
    EXPECT_EQ(h->num_sessions(), 3u) << id;
    EXPECT_EQ(h->num_txns(), 3u) << id;
    for (Level l : {Level::RA, Level::CC, Level::SER, Level::WCC}) EXPECT_EQ(verdict(*h, l), Verdict::Pass) << id << " " << level_name(l);
  }
}

TEST(ElleProcesses, OperationsWithoutProcessNeverPair) {
  // An invocation without :process is not completed by a later completion without one: each is a
  // transaction (and session) of its own, as before.
  Expected<History> h = read_elle("{:type :invoke, :f :txn, :value [[:w :x 1]]}\n"
                                 "{:type :ok, :f :txn, :value [[:w :x 2]]}\n"
                                 "{:type :invoke, :f :txn, :value [[:w :y 1]], :process 3}\n"
                                 "{:type :ok, :f :txn, :value [[:w :y 1]], :process 3}\n");
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->num_sessions(), 3u);
  EXPECT_EQ(h->num_txns(), 3u);
  // Processes come first (ascending), then the operations without :process in file order.
  EXPECT_EQ(h->op_text(h->txns[1].op_begin), "w(y, 1)");
  EXPECT_EQ(h->txns[2].status, TxnStatus::Unknown);
  EXPECT_EQ(h->op_text(h->txns[2].op_begin), "w(x, 1)");
  EXPECT_EQ(h->txns[3].status, TxnStatus::Committed);
}
