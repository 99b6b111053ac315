// Shared machinery of the weak checkers (RC, RR, RA, CC): the reads that survive read
// consistency, the partial commit order co' = so ∪ wr ∪ (inferred orderings) as a tagged CSR
// graph, and the cycle / anomaly reporting. Internal to checkers/weak/.
#pragma once
#include <cstdint>
#include <vector>

#include "checkers/result.h"
#include "graph/digraph.h"
#include "util/flat_map.h"

namespace isoscope::weak {

// Edge tags of the co' graph: session order, write-read (with the reader's op), or an index
// into CoGraph::co (an ordering an axiom forced).
constexpr uint32_t kTagSO = 0xFFFFFFFFu;
constexpr uint32_t kTagWR = 0x80000000u;  // kTagWR | read op id
inline bool is_wr_tag(uint32_t tag) { return tag != kTagSO && (tag & kTagWR); }
inline bool is_co_tag(uint32_t tag) { return !(tag & kTagWR); }

// The reads the axioms speak about: every read of a committed transaction that satisfies read
// consistency and reads from another transaction (reads of the transaction's own writes are
// settled by read consistency alone). Flat: reads of txn t are [begin[t], begin[t+1]).
struct Reads {
  std::vector<uint32_t> begin;   // size txns + 1
  std::vector<uint32_t> op;      // read op ids, in program order
  std::vector<uint32_t> writer;  // the writer transaction (kInitialTxn for the initial value)
  std::vector<uint32_t> num_writes;  // write ops per transaction
  std::vector<uint64_t> write_sig;   // per transaction: OR of key_bit(k) over the keys it writes
  size_t inconsistent = 0;           // reads discarded by read consistency
};
Reads collect_reads(const History& h);

// "t writes key" in O(1): a hash of (txn, key) pairs, built on first use (only the
// intersections that iterate over read keys need it).
class WriteIndex {
 public:
  explicit WriteIndex(const History& h) : h_(h) {}
  bool writes(uint32_t txn, uint32_t key);

 private:
  const History& h_;
  bool built_ = false;
  FlatMap64 map_;
};

// A one-bit signature of a key: (write_sig[t] & mask) == 0 proves that t writes no key of the
// set whose signatures make up mask (a cheap filter before an exact intersection).
inline uint64_t key_bit(uint32_t key) {
  return uint64_t(1) << ((static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ULL) >> 58);
}

// Whether intersecting writer t2's written keys with `other` keys should scan t2's ops (in
// program order, contiguous) rather than look each key up in a WriteIndex. Scanning a short
// transaction is cheaper than hashing; a long one is scanned only when the other set is at
// least comparable, so the intersection still costs O(min(|t2|, other)) up to a constant.
inline bool scan_writer(const History& h, uint32_t t2, size_t other) {
  return h.txns[t2].size() <= 8 * other + 64;
}

// Why an axiom forced t2 -> t1 (t2 is the edge's source, t1 its target):
//   r  = the read of the reading transaction t3 that reads from t2 (RC, RA wr case), or kNone
//        (RA session case, CC: t2 precedes / happens before t3)
//   rx = t3's read of x from t1
struct CoWhy {
  uint32_t r, rx;
};

enum class Axiom : uint8_t { RC, RA, CC };

class CoGraph {
 public:
  // Nodes are all transactions; adds so (the initial transaction first, then each session's
  // committed transactions in order) and wr (one edge per writer/reader pair).
  CoGraph(const History& h, const Reads& reads);
  void add_co(uint32_t t2, uint32_t t1, uint32_t r, uint32_t rx) {
    b_.add(t2, t1, static_cast<uint32_t>(co.size()));
    co.push_back({r, rx});
  }
  void reserve_co(size_t edges) {
    b_.reserve(b_.size() + edges);
    co.reserve(co.size() + edges);
  }
  Digraph build() const { return b_.build(); }
  std::vector<CoWhy> co;

 private:
  DigraphBuilder b_;
};

// Read-consistency anomalies (and the verdict's start). Every checker begins with this.
LevelResult begin_result(const History& h);

// Repeatable reads: each committed transaction reads each key (before writing it) from one
// writer. Adds a NonRepeatableRead per (transaction, key) that does not; returns how many.
// When multi is given it receives, per index into reads.op, 1 when that read's key is read
// from more than one writer in its transaction. With phantoms (RR), a predicate read's version
// of a key it did not return counts for no read of the key: a row that appears or vanishes
// between two reads is a phantom, which repeatable read allows (read atomic does not).
size_t report_non_repeatable(const History& h, const Reads& reads, LevelResult& out,
                             std::vector<char>* multi, bool phantoms = false);

// SCCs of g; one short cycle per non-trivial component (up to kMaxCycles reported, all
// counted), named and explained for the axiom. Sets the verdict from everything reported.
void report_cycles(const History& h, const Digraph& g, const std::vector<CoWhy>& co, Axiom ax,
                   LevelResult& out);
void set_verdict(LevelResult& out);

// RC saturation (AWDIT Alg. 1): adds the orderings the Read Committed axiom forces. RR uses it.
// False when the budget ran out first.
bool saturate_rc(const History& h, const Reads& reads, CoGraph& g, const CheckBudget& budget);
// Read Committed's cycles on top of `res` (what the level has found so far: RR's non-repeatable
// reads), and its verdict: the end both RC and RR share.
LevelResult decide_rc(const History& h, const Reads& reads, LevelResult res, const CheckBudget& budget);

// Polled once per this many transactions by the near-linear checkers: a budget check costs a
// clock read, far less than 4096 transactions' work.
constexpr uint32_t kBudgetPollMask = 4095;

constexpr size_t kMaxCycles = 64;

}  // namespace isoscope::weak
